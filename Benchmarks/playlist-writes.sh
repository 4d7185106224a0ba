#!/usr/bin/env bash
# Writing a big playlist: `spotify-playlists create` with 10,000 items on stdin, on
# fake-spotify with 50 ms added to every request. Spotify takes at most 100 items a request and
# the batches must go one after another to keep their order, so 100 sequential requests are the
# floor (plus the create itself). Each run prints the time, the requests by route, and the ratio
# to that floor, and checks the playlist then holds exactly the 10,000 items in order.
#
#   Benchmarks/playlist-writes.sh                 # 3 runs
#   BENCH_RUNS=5 BENCH_LATENCY_MS=100 Benchmarks/playlist-writes.sh
#
# fake-spotify listens on 127.0.0.1 only and exits by itself after an hour at most.
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/measure.sh  # now, median

runs=${BENCH_RUNS:-3}
latency=${BENCH_LATENCY_MS:-50}
items=10000
command -v curl >/dev/null || { echo "bench: curl is needed to talk to fake-spotify's controls" >&2; exit 69; }

work=$(mktemp -d "${TMPDIR:-/tmp}/playlist-writes.XXXXXX")
# What the tools keep (version history, journals, logs) stays in here, never in the user's own.
export XDG_DATA_HOME="$work/data" XDG_STATE_HOME="$work/state"
fake_pid=
cleanup() { [ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null && wait "$fake_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

echo "bench: building release binaries ..." >&2
for product in spotify-playlists spotify-tracks fake-spotify; do swift build -c release --product "$product" >/dev/null; done
bin=$(swift build -c release --show-bin-path)
"$bin/fake-spotify" --port-file "$work/port" --exit-after 1h --latency-ms "$latency" > /dev/null 2> "$work/fake.err" &
fake_pid=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
[ -s "$work/port" ] || { echo "bench: fake-spotify did not start: $(cat "$work/fake.err")" >&2; exit 69; }
base="http://127.0.0.1:$(cat "$work/port")"
scope="playlist-read-private playlist-modify-private playlist-modify-public user-library-read"
token=$(curl -s -X POST --data-urlencode "scope=$scope" -d expires_in=36000 "$base/_fake/tokens" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')
tools() { SPOTIFY_API_BASE="$base/v1" SPOTIFY_ACCESS_TOKEN="$token" XDG_CONFIG_HOME="$work/config" XDG_CACHE_HOME="$work/cache" "$@"; }

tools "$bin/spotify-tracks" --no-cache gen0000000000000010000 > "$work/source.jsonl"
python3 -c 'import json, sys; [print(json.loads(l)["uri"]) for l in open(sys.argv[1])]' "$work/source.jsonl" > "$work/source.uris"
[ "$(wc -l < "$work/source.uris")" -eq "$items" ] || { echo "bench: the source does not hold $items items" >&2; exit 70; }

: > "$work/times"
for ((i = 1; i <= runs; i++)); do
    curl -s -X POST "$base/_fake/reset-counters" > /dev/null
    start=$(now)
    tools "$bin/spotify-playlists" create "Bench $i" < "$work/source.jsonl" > "$work/record.json" 2> "$work/create.err" ||
        { echo "bench: create failed: $(cat "$work/create.err")" >&2; exit 70; }
    seconds=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }')
    echo "$seconds" >> "$work/times"
    requests=$(curl -s "$base/_fake/counters" | python3 -c '
import json, sys
c = json.load(sys.stdin)["requests"]
print(", ".join(f"{k} {n}" for k, n in sorted(c.items()) if " /v1/" in k))')
    echo "run $i: ${seconds}s; $requests" >&2
    id=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["id"])' "$work/record.json")
    tools "$bin/spotify-tracks" --no-cache "$id" |
        python3 -c 'import json, sys; [print(json.loads(l)["uri"]) for l in sys.stdin]' > "$work/written.uris"
    cmp -s "$work/source.uris" "$work/written.uris" || { echo "bench: run $i wrote other items than it read" >&2; exit 70; }
done
median=$(median < "$work/times")
floor=$(awk -v l="$latency" -v n="$items" 'BEGIN { printf "%.3f", (n / 100 + 1) * l / 1000 }')
echo "spotify-playlists create with $items items, ${latency} ms per request, $runs runs; each playlist read back identical"
echo "median ${median}s; floor $((items / 100)) sequential batches of 100 + the create = $((items / 100 + 1)) requests x ${latency} ms = ${floor}s; time/floor $(awk -v a="$median" -v b="$floor" 'BEGIN { printf "%.2f", a / b }')x"
