#!/usr/bin/env bash
# A library at three sizes, as `spotify-playlists --owned | spotify-tracks` reads it: with no
# cache, with the cache empty (cold) and filled (warm), against fake-spotify's uniform libraries
# (--library-shape PxN: P playlists of N items) at BENCH_LATENCY_MS (default 20 ms) a request,
# beside a spotipy loop over the same library when pip can install spotipy. For each:
# the time, the Web API requests (fake-spotify's counters), the peak memory of the slowest stage
# (the largest RSS of the pipeline's processes) and the bytes the cache holds on disk. no-cache,
# cold and warm must print the same records, byte for byte, or the run fails.
#
#   Benchmarks/scale.sh                                   # 50x100, 500x200, 2000x200
#   BENCH_SCALE_SIZES="50x100 500x200" Benchmarks/scale.sh  # minutes, not a quarter of an hour
#   BENCH_BEFORE=main Benchmarks/scale.sh                 # and the tools of that revision beside
#   BENCH_SPOTIPY=0 Benchmarks/scale.sh                   # without spotipy
#
# BENCH_BEFORE builds the revision's spotify-playlists and spotify-tracks from `git archive` in a
# temporary directory (a release build from scratch: minutes) and runs them against this tree's
# fake-spotify (which has the uniform libraries). Everything the run makes is under a temporary
# directory removed at the end; fake-spotify listens on 127.0.0.1 only; nothing talks to Spotify.
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/measure.sh # now

sizes=${BENCH_SCALE_SIZES:-50x100 500x200 2000x200}
latency=${BENCH_LATENCY_MS:-20}
before=${BENCH_BEFORE:-}
with_spotipy=${BENCH_SPOTIPY:-1}

command -v python3 >/dev/null || { echo "bench: python3 is needed" >&2; exit 69; }
command -v curl >/dev/null || { echo "bench: curl is needed to talk to fake-spotify's controls" >&2; exit 69; }

work=$(mktemp -d "${TMPDIR:-/tmp}/scale.XXXXXX")
# What the tools keep (version history, journals, logs) stays in here, never in the user's own.
export XDG_DATA_HOME="$work/data" XDG_STATE_HOME="$work/state"
fake_pid=
cleanup() {
    [ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null && wait "$fake_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

echo "bench: building release binaries ..." >&2
for product in spotify-playlists spotify-tracks fake-spotify; do swift build -c release --product "$product" >/dev/null; done
bin=$(swift build -c release --show-bin-path)
builds="after"
if [ -n "$before" ]; then
    echo "bench: building $before's tools from git archive (a release build from scratch) ..." >&2
    mkdir -p "$work/before-src"
    git archive "$before" | tar -x -C "$work/before-src"
    for product in spotify-playlists spotify-tracks; do
        (cd "$work/before-src" && swift build -c release --product "$product" >/dev/null)
    done
    before_bin=$(cd "$work/before-src" && swift build -c release --show-bin-path)
    builds="before after"
fi

spotipy=""
if [ "$with_spotipy" = 1 ]; then
    echo "bench: installing spotipy from PyPI into $work/venv ..." >&2
    if python3 -m venv "$work/venv" >/dev/null 2>&1 &&
        "$work/venv/bin/pip" install --quiet --disable-pip-version-check spotipy >/dev/null 2>&1; then
        spotipy=$("$work/venv/bin/python" -c 'import importlib.metadata as m; print(m.version("spotipy"))')
    else
        echo "bench: pip could not install spotipy: no spotipy column" >&2
    fi
fi

"$bin/fake-spotify" --port-file "$work/port" --exit-after 2h --latency-ms "$latency" > /dev/null 2> "$work/fake.err" &
fake_pid=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
[ -s "$work/port" ] || { echo "bench: fake-spotify did not start: $(cat "$work/fake.err")" >&2; exit 69; }
base="http://127.0.0.1:$(cat "$work/port")"
token=$(curl -s -X POST -d expires_in=36000 "$base/_fake/tokens" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')

# Web API requests since the last reset.
requests() {
    curl -s "$base/_fake/counters" |
        python3 -c 'import json, sys; print(sum(n for k, n in json.load(sys.stdin)["requests"].items() if " /v1/" in k))'
}
# Runs a shell command timed: "seconds peak-MB status" (peak: the largest RSS of its processes).
timed() {
    python3 -c '
import resource, subprocess, sys, time
start = time.time()
status = subprocess.call(["bash", "-c", sys.argv[1]])
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print("%.2f %.0f %d" % (time.time() - start, peak, status))' "$1"
}

printf '%-8s %-7s %-9s %9s %9s %8s %10s %s\n' size build case seconds requests peak_MB cache_MB records
for size in $sizes; do
    playlists=${size%x*}
    items=${size#*x}
    curl -s -X POST -d "library_shape=$size" "$base/_fake/library" > /dev/null
    for build in $builds; do
        tools=$bin
        [ "$build" = before ] && tools=$before_bin
        cache="$work/cache-$build-$size"
        # The version history (XDG_DATA_HOME) too: a first read keeps every playlist's version, and
        # a benchmark must neither write into the user's own history nor find its versions there.
        data="$work/data-$build-$size"
        rm -rf "$cache" "$data"
        for case in no-cache cold warm; do
            flags=""
            [ "$case" = no-cache ] && flags="--no-cache"
            out="$work/$build-$size-$case.jsonl"
            curl -s -X POST "$base/_fake/reset-counters" > /dev/null
            read -r seconds peak status < <(timed "
                export SPOTIFY_API_BASE='$base/v1' SPOTIFY_ACCESS_TOKEN='$token' XDG_CONFIG_HOME='$work/config' \
                    XDG_STATE_HOME='$work/state' XDG_CACHE_HOME='$cache' XDG_DATA_HOME='$data'
                set -o pipefail
                '$tools/spotify-playlists' --owned | '$tools/spotify-tracks' $flags > '$out' 2> '$out.err'")
            [ "$status" = 0 ] || { echo "bench: $build $size $case exited $status: $(head -3 "$out.err")" >&2; exit 1; }
            cache_mb=$(du -sk "$cache" 2>/dev/null | awk '{ printf "%.1f", $1 / 1024 }')
            [ "$case" = no-cache ] && cache_mb=-
            printf '%-8s %-7s %-9s %9s %9s %8s %10s %s\n' "$size" "$build" "$case" "$seconds" "$(requests)" "$peak" \
                "$cache_mb" "$(wc -l < "$out")"
        done
        for case in cold warm; do
            cmp -s "$work/$build-$size-no-cache.jsonl" "$work/$build-$size-$case.jsonl" ||
                { echo "bench: $build $size: $case printed other records than no-cache" >&2; exit 1; }
        done
        [ "$((playlists * items))" = "$(wc -l < "$work/$build-$size-warm.jsonl")" ] ||
            { echo "bench: $build $size: not $((playlists * items)) records" >&2; exit 1; }
    done
    if [ -n "$spotipy" ]; then
        curl -s -X POST "$base/_fake/reset-counters" > /dev/null
        read -r seconds peak status < <(timed "'$work/venv/bin/python' Benchmarks/spotipy_library.py '$base' '$token' \
            > '$work/spotipy-$size.ids'")
        [ "$status" = 0 ] || { echo "bench: spotipy $size exited $status" >&2; exit 1; }
        printf '%-8s %-7s %-9s %9s %9s %8s %10s %s\n' "$size" "spotipy" "loop" "$seconds" "$(requests)" "$peak" - \
            "$(wc -l < "$work/spotipy-$size.ids")"
    fi
done
echo "latency ${latency} ms a request; spotipy ${spotipy:-not installed}; $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
