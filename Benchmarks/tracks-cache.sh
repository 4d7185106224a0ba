#!/usr/bin/env bash
# The snapshot cache, measured: spotify-tracks on the 10,000-item playlist against fake-spotify
# with 50 ms added to every request. A first run (empty cache), a second run (cache current:
# one snapshot check), and a run fed the playlist record from spotify-playlists (its snapshot_id
# matches the cache: no request). Prints requests made and median times; checks all three print
# the same bytes. Targets: second run <= 1 request and >= 10x faster than the first; 0 requests
# with the record.
#
#   Benchmarks/tracks-cache.sh                 # 5 rounds
#   BENCH_RUNS=3 BENCH_LATENCY_MS=100 Benchmarks/tracks-cache.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/measure.sh  # now, median

runs=${BENCH_RUNS:-5}
latency=${BENCH_LATENCY_MS:-50}
playlist=gen0000000000000010000

command -v jq >/dev/null || { echo "bench: jq is needed (apt-get install jq)" >&2; exit 69; }
command -v curl >/dev/null || { echo "bench: curl is needed (apt-get install curl)" >&2; exit 69; }

swift build -c release --product spotify-tracks >/dev/null
swift build -c release --product spotify-playlists >/dev/null
swift build -c release --product fake-spotify >/dev/null
bin="$(swift build -c release --show-bin-path)"

work=$(mktemp -d)
# What the tools keep (version history, journals, logs) stays in here, never in the user's own.
export XDG_DATA_HOME="$work/data" XDG_STATE_HOME="$work/state"
fake_pid=
cleanup() { [ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

"$bin/fake-spotify" --port-file "$work/port" --latency-ms "$latency" --exit-after 30m >/dev/null 2>&1 &
fake_pid=$!
for _ in $(seq 1 500); do [ -s "$work/port" ] && break; sleep 0.02; done
[ -s "$work/port" ] || { echo "bench: fake-spotify did not start" >&2; exit 70; }
base="http://127.0.0.1:$(cat "$work/port")"

export SPOTIFY_API_BASE="$base/v1" SPOTIFY_ACCOUNTS_BASE="$base"
SPOTIFY_ACCESS_TOKEN=$(curl -s -X POST "$base/_fake/tokens" | jq -r .access_token)
export SPOTIFY_ACCESS_TOKEN
export XDG_CONFIG_HOME="$work/config" XDG_CACHE_HOME="$work/cache"
unset SPOTIFY_TOOLKIT_CACHE_SIZE

requests() {  # Web API requests since the last call
    curl -s "$base/_fake/counters" | jq '[.requests[]] | add // 0'
    curl -s -X POST "$base/_fake/reset-counters" >/dev/null
}
seconds() {  # runs "$@" with stdout to $out; prints the wall time in seconds
    local start=$EPOCHREALTIME
    "$@" > "$out"
    echo "$EPOCHREALTIME $start" | awk '{ printf "%.3f\n", $1 - $2 }'
}

"$bin/spotify-playlists" get "$playlist" > "$work/record.jsonl"
"$bin/spotify-tracks" --no-cache "$playlist" > "$work/expected.jsonl"
[ "$(wc -l < "$work/expected.jsonl")" -eq 10000 ] || { echo "bench: expected 10,000 records" >&2; exit 70; }
requests >/dev/null

: > "$work/first.t"; : > "$work/second.t"; : > "$work/piped.t"
for ((i = 1; i <= runs; i++)); do
    rm -rf "$XDG_CACHE_HOME" "$XDG_DATA_HOME"  # a first read keeps the playlist's version too
    out="$work/first.jsonl";  t1=$(seconds "$bin/spotify-tracks" "$playlist");  r1=$(requests)
    out="$work/second.jsonl"; t2=$(seconds "$bin/spotify-tracks" "$playlist");  r2=$(requests)
    out="$work/piped.jsonl";  t3=$(seconds "$bin/spotify-tracks" < "$work/record.jsonl"); r3=$(requests)
    for run in first second piped; do
        cmp -s "$work/$run.jsonl" "$work/expected.jsonl" || { echo "bench: the $run run printed something else" >&2; exit 70; }
    done
    echo "$t1" >> "$work/first.t"; echo "$t2" >> "$work/second.t"; echo "$t3" >> "$work/piped.t"
    echo "round $i: first ${t1}s ($r1 requests), second ${t2}s ($r2 requests), piped record ${t3}s ($r3 requests)" >&2
done

first=$(median < "$work/first.t"); second=$(median < "$work/second.t"); piped=$(median < "$work/piped.t")
ratio=$(awk -v a="$first" -v b="$second" 'BEGIN { printf "%.1f", a / b }')
echo "spotify-tracks, 10,000 items, ${latency} ms per request, median of $runs:"
echo "  first run (empty cache): ${first}s, $r1 requests"
echo "  second run (unchanged):  ${second}s, $r2 requests (${ratio}x faster)"
echo "  piped playlist record:   ${piped}s, $r3 requests"
status=0
[ "$r2" -le 1 ] || { echo "bench: target missed: the second run made $r2 requests (target <= 1)" >&2; status=1; }
awk -v r="$ratio" 'BEGIN { exit !(r >= 10) }' || { echo "bench: target missed: ${ratio}x (target >= 10x)" >&2; status=1; }
[ "$r3" -eq 0 ] || { echo "bench: target missed: the piped run made $r3 requests (target 0)" >&2; status=1; }
exit $status
