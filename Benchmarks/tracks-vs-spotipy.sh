#!/usr/bin/env bash
# spotify-tracks against spotipy (the Python library) paging the same 10,000-item playlist from
# fake-spotify with 50 ms added to every request, side by side in one run: both must print the
# same 10,000 ids in the same order; then the medians, the ratio, and the most requests
# fake-spotify saw in flight. Target: spotify-tracks at least 8x faster, never more than 8 in flight.
#
#   Benchmarks/tracks-vs-spotipy.sh                         # 5 runs each
#   BENCH_RUNS=3 BENCH_LATENCY_MS=100 Benchmarks/tracks-vs-spotipy.sh
#
# spotipy is installed from PyPI (pip) into a throwaway virtualenv under a temporary directory,
# removed at the end with everything else the run made. Nothing talks to Spotify.
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/measure.sh  # now, median

runs=${BENCH_RUNS:-5}
latency=${BENCH_LATENCY_MS:-50}
playlist=gen0000000000000010000   # fake-spotify's generated 10,000-item playlist

. Benchmarks/spotipy-peer.sh  # after the cd above: paths are from the repository root
spotipy_peer_setup tracks-vs-spotipy spotify-tracks -- --latency-ms "$latency"

# spotipy as its documentation pages a playlist: Benchmarks/spotipy_library.py with the playlist's id.

in_flight() { curl -s "$base/_fake/counters" | python3 -c 'import json, sys; print(json.load(sys.stdin)["max_in_flight"])'; }

: > "$work/tracks.times"; : > "$work/spotipy.times"; : > "$work/tracks.inflight"; : > "$work/spotipy.inflight"
for ((i = 1; i <= runs; i++)); do
    # Alternate the order so neither always runs on a cooler or warmer machine.
    if (( i % 2 )); then order="tracks spotipy"; else order="spotipy tracks"; fi
    for tool in $order; do
        curl -s -X POST "$base/_fake/reset-counters" > /dev/null
        start=$(now)
        if [ "$tool" = tracks ]; then
            # --no-cache: page every time, as spotipy does (a warm cache would answer from disk).
            SPOTIFY_API_BASE="$base/v1" SPOTIFY_ACCESS_TOKEN="$token" XDG_CACHE_HOME="$work/cache" \
                "$bin/spotify-tracks" --no-cache "$playlist" > "$work/tracks.jsonl"
        else
            "$work/venv/bin/python" Benchmarks/spotipy_library.py "$base" "$token" "$playlist" > "$work/spotipy.ids"
        fi
        seconds=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }')
        echo "$seconds" >> "$work/$tool.times"
        in_flight >> "$work/$tool.inflight"
        echo "run $i: $tool ${seconds}s" >&2
    done
    # Both must have printed the same 10,000 ids in the same order before their speed means anything.
    python3 -c 'import json, sys; [print(json.loads(l)["id"] or json.loads(l)["uri"]) for l in open(sys.argv[1])]' "$work/tracks.jsonl" > "$work/tracks.ids"
    count=$(wc -l < "$work/tracks.ids")
    [ "$count" -eq 10000 ] || { echo "bench: spotify-tracks printed $count ids, not 10000" >&2; exit 70; }
    cmp -s "$work/tracks.ids" "$work/spotipy.ids" || { echo "bench: spotify-tracks and spotipy printed different ids" >&2; exit 70; }
done

t=$(median < "$work/tracks.times")
s=$(median < "$work/spotipy.times")
echo "playlist: $playlist (10,000 items, 200 pages of 50), fake-spotify with ${latency} ms per request, $runs runs each; both printed the same 10,000 ids in the same order"
echo "spotify-tracks: median ${t}s, most in flight $(sort -n "$work/tracks.inflight" | tail -1)   (target: <= 8)"
echo "spotipy $spotipy_version (playlist_items + next): median ${s}s, most in flight $(sort -n "$work/spotipy.inflight" | tail -1)"
echo "ratio (spotipy / spotify-tracks): $(awk -v a="$s" -v b="$t" 'BEGIN { printf "%.1f", a / b }')x   (target: >= 8x)"
# The floor of any client under the issue's rules: the first page alone (it tells the total), then
# 199 pages at most 8 at a time, so 26 round trips one after another, each at least the latency.
floor=$(awk -v l="$latency" 'BEGIN { printf "%.3f", (1 + int((199 + 7) / 8)) * l / 1000 }')
echo "floor: 26 round trips of ${latency} ms = ${floor}s for any client keeping 8 in flight; spotipy / floor = $(awk -v a="$s" -v b="$floor" 'BEGIN { printf "%.1f", a / b }')x, spotify-tracks over the floor: $(awk -v a="$t" -v b="$floor" 'BEGIN { printf "%.0f", (a - b) * 1000 }') ms"
