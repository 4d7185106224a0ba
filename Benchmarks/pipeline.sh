#!/usr/bin/env bash
# Do the stages of `spotify-playlists | spotify-tracks` overlap? On
# fake-spotify's real-shaped library (--library-shape real: 150 playlists, 20,531 items) with
# 300 ms added to every request (the latency at which architecture-2.md section 3.1 found the
# pipeline taking the sum of its stages), each run, in turn:
#
#   (a) playlists   spotify-playlists > all.jsonl                            (the first stage alone)
#   (b) tracks      spotify-tracks --no-cache < all.jsonl > tracks.jsonl     (the second stage alone)
#   (c) pipeline    spotify-playlists | spotify-tracks --no-cache > piped.jsonl
#
# (b) and (c) must print the same records. The target: the pipeline takes at most the slower
# stage plus one round trip, max(a, b) + latency (medians), where running the stages one after
# the other takes a + b.
#
#   Benchmarks/pipeline.sh                                  # 3 runs, 300 ms
#   BENCH_RUNS=5 BENCH_LATENCY_MS=100 Benchmarks/pipeline.sh
#
# fake-spotify listens on 127.0.0.1 only and exits by itself after an hour at most.
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/measure.sh  # now, median

runs=${BENCH_RUNS:-3}
latency=${BENCH_LATENCY_MS:-300}

command -v curl >/dev/null || { echo "bench: curl is needed to talk to fake-spotify's controls" >&2; exit 69; }
work=$(mktemp -d "${TMPDIR:-/tmp}/pipeline.XXXXXX")
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
"$bin/fake-spotify" --port-file "$work/port" --exit-after 1h --library-shape real --latency-ms "$latency" \
    > /dev/null 2> "$work/fake.err" &
fake_pid=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
[ -s "$work/port" ] || { echo "bench: fake-spotify did not start: $(cat "$work/fake.err")" >&2; exit 69; }
base="http://127.0.0.1:$(cat "$work/port")"
token=$(curl -s -X POST -d expires_in=36000 "$base/_fake/tokens" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')
export SPOTIFY_API_BASE="$base/v1" SPOTIFY_ACCESS_TOKEN="$token" XDG_CONFIG_HOME="$work/config" \
    XDG_CACHE_HOME="$work/cache"

# The library's normal outcome is exit 77 (one playlist is someone else's: 403, said on stderr).
run_case() { # name
    local name=$1 start
    start=$(now)
    case $name in
        playlists) "$bin/spotify-playlists" > "$work/all.jsonl" ;;
        tracks) "$bin/spotify-tracks" --no-cache < "$work/all.jsonl" > "$work/tracks.jsonl" 2> "$work/tracks.err" || true ;;
        pipeline)
            { "$bin/spotify-playlists" | "$bin/spotify-tracks" --no-cache > "$work/piped.jsonl"; } 2> "$work/piped.err" || true
            ;;
    esac
    awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.3f\n", b - a }' >> "$work/$name.times"
    echo "run $i: $name $(tail -1 "$work/$name.times")s" >&2
}

for name in playlists tracks pipeline; do : > "$work/$name.times"; done
for ((i = 1; i <= runs; i++)); do
    # (b) reads what (a) wrote, so they stay in that order; the pipeline goes first or last in turn.
    if (( i % 2 )); then order="playlists tracks pipeline"; else order="pipeline playlists tracks"; fi
    for name in $order; do run_case "$name"; done
    cmp -s "$work/tracks.jsonl" "$work/piped.jsonl" || { echo "bench: the pipeline printed other records than the stages apart" >&2; exit 70; }
done

a=$(median < "$work/playlists.times"); b=$(median < "$work/tracks.times"); p=$(median < "$work/pipeline.times")
target=$(awk -v a="$a" -v b="$b" -v l="$latency" 'BEGIN { printf "%.3f", (a > b ? a : b) + l / 1000 }')
sum=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a + b }')
echo "library: fake-spotify --library-shape real, $(wc -l < "$work/all.jsonl") playlists, $(wc -l < "$work/piped.jsonl") records, ${latency} ms per request, $runs runs (medians)"
printf '%-34s %9s\n' "spotify-playlists > all.jsonl" "${a}s"
printf '%-34s %9s\n' "spotify-tracks --no-cache < all.jsonl" "${b}s"
printf '%-34s %9s\n' "the stages one after the other" "${sum}s"
printf '%-34s %9s\n' "slower stage + one round trip" "${target}s"
printf '%-34s %9s  (%sx the target, %sx the sum)\n' "spotify-playlists | spotify-tracks" "${p}s" \
    "$(awk -v a="$p" -v b="$target" 'BEGIN { printf "%.3f", a / b }')" "$(awk -v a="$p" -v b="$sum" 'BEGIN { printf "%.3f", a / b }')"
if awk -v a="$p" -v b="$target" 'BEGIN { exit !(a <= b) }'; then verdict=met; else verdict="NOT met"; fi
echo "issue 27's target: the pipeline within the slower stage plus one round trip: $verdict"
