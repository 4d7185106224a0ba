#!/usr/bin/env bash
# A whole library, as a user's first report reads it: `spotify-playlists > all.jsonl`, then
# `spotify-tracks < all.jsonl`, on fake-spotify's real-shaped library (--library-shape real: 150
# playlists, 20,531 items, mostly small, 3 of thousands) with 50 ms added to every request, against
# a spotipy loop over the same playlists in the same run. Each run, in turn:
#
#   (a) no-cache   spotify-playlists > all.jsonl; spotify-tracks --no-cache < all.jsonl
#   (b) cache      the same with the cache on and empty (a fresh XDG_CACHE_HOME every run)
#   (c) spotipy    current_user_playlists by offset, then playlist_items + next for each playlist
#   (d) warm       spotify-tracks < all.jsonl again on (b)'s cache (the piped re-run; no listing)
#
# (a), (b), (c) and (d) must print the same item ids in the same order, or the run fails. Then for
# each: the median time, requests (GET /_fake/counters, reset before each), the most in flight, and
# the ratios to the round-trip floor and to spotipy.
#
#   Benchmarks/library-vs-spotipy.sh                          # 3 runs each
#   BENCH_RUNS=5 BENCH_LATENCY_MS=100 Benchmarks/library-vs-spotipy.sh
#
# spotipy is installed from PyPI (pip) into a throwaway virtualenv under a temporary directory,
# removed at the end with everything else the run made. fake-spotify listens on 127.0.0.1 only and
# exits by itself after an hour at most; nothing talks to Spotify.
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/measure.sh  # now, median

runs=${BENCH_RUNS:-3}
latency=${BENCH_LATENCY_MS:-50}
in_flight_limit=8   # spotify-tracks' default --concurrency, and the floor's

. Benchmarks/spotipy-peer.sh  # after the cd above: paths are from the repository root
spotipy_peer_setup library-vs-spotipy spotify-playlists spotify-tracks -- --library-shape real --latency-ms "$latency"

# spotipy as its documentation pages: Benchmarks/spotipy_library.py.

# "requests max_in_flight" of the Web API since the last reset.
counters() {
    curl -s "$base/_fake/counters" | python3 -c '
import json, sys
c = json.load(sys.stdin)
print(sum(n for k, n in c["requests"].items() if " /v1/" in k), c["max_in_flight"])'
}
ids_of() { python3 -c 'import json, sys; [print(r["id"] or r["uri"]) for r in map(json.loads, open(sys.argv[1]))]' "$1"; }
tools() {
    SPOTIFY_API_BASE="$base/v1" SPOTIFY_ACCESS_TOKEN="$token" XDG_CONFIG_HOME="$work/config" "$@"
}

run_case() { # name: runs it, timed, and records its time, requests and most in flight
    local name=$1 start seconds
    curl -s -X POST "$base/_fake/reset-counters" > /dev/null
    start=$(now)
    case $name in
        no-cache)
            tools env XDG_CACHE_HOME="$work/cache-none" "$bin/spotify-playlists" > "$work/all.jsonl"
            tools env XDG_CACHE_HOME="$work/cache-none" "$bin/spotify-tracks" --no-cache < "$work/all.jsonl" > "$work/no-cache.jsonl"
            ;;
        cache)
            rm -rf "$work/cache" "$work/data"  # a first read keeps a version of each playlist too
            tools env XDG_CACHE_HOME="$work/cache" "$bin/spotify-playlists" > "$work/all.jsonl"
            tools env XDG_CACHE_HOME="$work/cache" "$bin/spotify-tracks" < "$work/all.jsonl" > "$work/cache.jsonl"
            ;;
        spotipy)
            "$work/venv/bin/python" Benchmarks/spotipy_library.py "$base" "$token" > "$work/spotipy.ids"
            ;;
        warm)
            tools env XDG_CACHE_HOME="$work/cache" "$bin/spotify-tracks" < "$work/all.jsonl" > "$work/warm.jsonl"
            ;;
    esac
    seconds=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }')
    echo "$seconds" >> "$work/$name.times"
    counters >> "$work/$name.counters"
    echo "run $i: $name ${seconds}s, $(tail -1 "$work/$name.counters" | awk '{ print $1 " requests, most in flight " $2 }')" >&2
}

cases="no-cache cache spotipy"
for name in $cases warm; do : > "$work/$name.times"; : > "$work/$name.counters"; done
for ((i = 1; i <= runs; i++)); do
    # Rotate the order so no case always runs first on a cooler or warmer machine; warm needs
    # cache's fresh cache, so it follows it directly.
    order=$(echo $cases $cases | cut -d' ' -f$(( (i - 1) % 3 + 1 ))-$(( (i - 1) % 3 + 3 )))
    for name in $order; do
        run_case "$name"
        [ "$name" = cache ] && run_case warm
    done
    # All four must have printed the same items in the same order before their speed means anything.
    expected=$(python3 -c 'import json, sys; print(sum(json.loads(l)["items_total"] for l in open(sys.argv[1])))' "$work/all.jsonl")
    for name in no-cache cache warm; do ids_of "$work/$name.jsonl" > "$work/$name.ids"; done
    for name in no-cache cache warm spotipy; do
        count=$(wc -l < "$work/$name.ids")
        [ "$count" -eq "$expected" ] || { echo "bench: $name printed $count ids, not $expected" >&2; exit 70; }
        cmp -s "$work/spotipy.ids" "$work/$name.ids" || { echo "bench: $name and spotipy printed different ids" >&2; exit 70; }
    done
done

# The floor of any client keeping at most 8 requests in flight: the list's first page alone (it
# tells the total), its other pages together (ceil((L - 1) / 8) round trips), then every
# playlist's pages of 50, P = sum of ceil(items_total / 50), 8 at a time: ceil(P / 8) round trips;
# each round trip at least the latency.
read -r playlists items pages list_pages < <(python3 -c '
import json, sys
totals = [json.loads(l)["items_total"] for l in open(sys.argv[1])]
print(len(totals), sum(totals), sum((t + 49) // 50 for t in totals), (len(totals) + 49) // 50)' "$work/all.jsonl")
round_trips=$(( 1 + (list_pages - 1 + in_flight_limit - 1) / in_flight_limit + (pages + in_flight_limit - 1) / in_flight_limit ))
floor=$(awk -v r="$round_trips" -v l="$latency" 'BEGIN { printf "%.3f", r * l / 1000 }')
s=$(median < "$work/spotipy.times")

echo "library: fake-spotify --library-shape real, $playlists playlists, $items items, $pages pages of 50 (+ $list_pages list pages), ${latency} ms per request, $runs runs each; all four printed the same $items ids in the same order"
echo "floor: (1 + ceil(($list_pages - 1) / $in_flight_limit) + ceil($pages / $in_flight_limit)) = $round_trips round trips x ${latency} ms = ${floor}s"
printf '%-10s %-70s %9s %9s %8s %11s %12s\n' case command median requests in-flight time/floor spotipy/time
for name in no-cache cache spotipy warm; do
    case $name in
        no-cache) what="spotify-playlists > all.jsonl; spotify-tracks --no-cache < all.jsonl" ;;
        cache) what="the same, cache on, empty cache" ;;
        spotipy) what="spotipy $spotipy_version: current_user_playlists, playlist_items + next" ;;
        warm) what="spotify-tracks < all.jsonl, cache warm (no listing)" ;;
    esac
    t=$(median < "$work/$name.times")
    requests=$(awk '{ print $1 }' "$work/$name.counters" | median)
    most=$(awk '{ print $2 }' "$work/$name.counters" | sort -n | tail -1)
    printf '%-10s %-70s %8ss %9s %9s %10sx %11sx\n' "$name" "$what" "$t" "$requests" "$most" \
        "$(awk -v a="$t" -v b="$floor" 'BEGIN { printf "%.2f", a / b }')" \
        "$(awk -v a="$s" -v b="$t" 'BEGIN { printf "%.2f", a / b }')"
done
nc=$(median < "$work/no-cache.times"); c=$(median < "$work/cache.times")
warm_requests=$(awk '{ print $1 }' "$work/warm.counters" | median)
verdict() { if awk "BEGIN { exit !($1) }"; then echo met; else echo "NOT met"; fi; }
echo "cache on / --no-cache: $(awk -v a="$c" -v b="$nc" 'BEGIN { printf "%.2f", a / b }')x"
echo "issue 18's targets (medians):"
echo "  first run within 1.35x the floor, --no-cache: $(verdict "$nc / $floor <= 1.35"); cache on: $(verdict "$c / $floor <= 1.35")"
echo "  at least 6x a spotipy loop, --no-cache: $(verdict "$s / $nc >= 6"); cache on: $(verdict "$s / $c >= 6")"
echo "  cache on at most 1.1x --no-cache: $(verdict "$c / $nc <= 1.1")"
echo "  piped re-run: no request (no playlist here is refused): $(verdict "$warm_requests == 0")"
