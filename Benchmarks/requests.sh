#!/usr/bin/env bash
# What each command costs, in requests: Spotify's 2026 quota for a
# Development Mode app (about 1,100 to 2,500 requests a day) makes the count of requests what a
# user spends, not the time. Every common command runs against fake-spotify's real-shaped library
# (--library-shape real: 150 playlists, 20,531 items; BENCH_LIKED liked songs, default 2,000),
# logged in with `spotify-auth login --scope edit,history` as a user would be, twice:
#
#   cold  the snapshot cache empty (SPOTIFY_TOOLKIT_CACHE_SIZE=256M, a fresh XDG_CACHE_HOME);
#   warm  the same command again with the cache filled: for a read, by the cold run; for a write,
#         on a fresh copy of the playlist that spotify-tracks has just read (not counted; for
#         create, after spotify-tracks read the playlist its items come from).
#
# Writes run on copies: 100-item playlists made with `spotify-playlists create` from
# gen0000000000000000100's items before each measured run (not counted); every write's
# --dry-run is measured too. Each count is every request fake-spotify counted for the command
# (GET /_fake/counters, reset before it: the Web API and the accounts service; token refreshes,
# if any, are named in the notes, with the cold run's requests by route, GET unnamed), and each
# command must exit 0 or the run fails. Prints a markdown table (command | cold requests | warm
# requests | before | notes; "before" is Benchmarks/requests-before.tsv, the figures measured the
# same way before the quota work), and writes it to $BENCH_OUT too when that is set; the
# requests by route of both runs go to standard error.
#
#   Benchmarks/requests.sh                      # release build
#   BENCH_CONFIG=debug Benchmarks/requests.sh   # reuse the debug build (.build/debug)
#   BENCH_OUT=costs.md Benchmarks/requests.sh
#
# fake-spotify listens on 127.0.0.1 only, adds no latency, and exits by itself after 30 minutes
# at most; nothing talks to Spotify, and nothing outside a temporary home is read or written.
set -euo pipefail
out=${BENCH_OUT:-}
case $out in ''|/*) ;; *) out="$PWD/$out" ;; esac  # a relative BENCH_OUT is from where it was run
cd "$(dirname "$0")/.."

config=${BENCH_CONFIG:-release}
liked=${BENCH_LIKED:-2000}
command -v jq >/dev/null || { echo "bench: jq is needed (apt-get install jq)" >&2; exit 69; }
command -v curl >/dev/null || { echo "bench: curl is needed (apt-get install curl)" >&2; exit 69; }

echo "bench: building ($config) ..." >&2
for product in spotify-auth spotify-playlists spotify-tracks spotify-nowplaying fake-spotify; do
    swift build -c "$config" --product "$product" >/dev/null
done
bin=$(swift build -c "$config" --show-bin-path)

work=$(mktemp -d "${TMPDIR:-/tmp}/requests.XXXXXX")
# What the tools keep (version history, journals, logs) stays in here, never in the user's own.
export XDG_DATA_HOME="$work/data" XDG_STATE_HOME="$work/state"
fake_pid=
cleanup() {
    if [ -n "$fake_pid" ]; then kill "$fake_pid" 2>/dev/null || true; wait "$fake_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

"$bin/fake-spotify" --port-file "$work/port" --exit-after 30m --library-shape real --saved-tracks "$liked" \
    > /dev/null 2> "$work/fake.err" &
fake_pid=$!
for _ in $(seq 250); do [ -s "$work/port" ] && break; sleep 0.02; done
[ -s "$work/port" ] || { echo "bench: fake-spotify did not start: $(cat "$work/fake.err")" >&2; exit 69; }
base="http://127.0.0.1:$(cat "$work/port")"

# Only this run's environment: none of the user's login, cache, ledger or watch.
unset SPOTIFY_ACCESS_TOKEN SPOTIFY_TOOLKIT_FORCE_TTY SPOTIFY_TOOLKIT_TIME_SCALE
export XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" XDG_STATE_HOME="$work/state"
export XDG_RUNTIME_DIR="$work/runtime" XDG_CACHE_HOME="$work/cache"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
export SPOTIFY_TOOLKIT_TOKEN_STORE=file SPOTIFY_TOOLKIT_CACHE_SIZE=256M
export SPOTIFY_ACCOUNTS_BASE="$base" SPOTIFY_API_BASE="$base/v1"
export SPOTIFY_CLIENT_ID=bench-client SPOTIFY_REDIRECT_URI=http://127.0.0.1/callback

# The login, as a user makes it: fake-spotify consents at once and curl follows its redirect back
# to spotify-auth's loopback listener, as a browser would.
cat > "$work/browser" <<'SH'
#!/bin/sh
back=$(curl -s --max-time 10 -o /dev/null -w '%{redirect_url}' "$1")
exec curl -s --max-time 10 -o /dev/null "$back"
SH
chmod +x "$work/browser"
BROWSER="$work/browser" "$bin/spotify-auth" login --scope edit,history < /dev/null > /dev/null 2> "$work/login.err" ||
    { echo "bench: the login failed: $(cat "$work/login.err")" >&2; exit 70; }

P="$bin/spotify-playlists" T="$bin/spotify-tracks" N="$bin/spotify-nowplaying"
reset() { curl -s -X POST "$base/_fake/reset-counters" > /dev/null; }
fresh_cache() { rm -rf "$XDG_CACHE_HOME"; }
fail() { echo "bench: $*" >&2; exit 70; }

# The library as it is before any write (uncounted): how big it is, and the inputs the rows need.
"$P" > "$work/library.jsonl"
playlists=$(wc -l < "$work/library.jsonl")
items=$(jq -s 'map(.items_total) | add' "$work/library.jsonl")
# A name to look up: the library's largest playlist under 1,000 items.
named=$(jq -rs 'map(select(.items_total < 1000)) | max_by(.items_total) | "\(.name)\t\(.items_total)"' "$work/library.jsonl")
name=${named%%$'\t'*} name_items=${named#*$'\t'}
pl100=gen0000000000000000100 pl1000=gen0000000000000001000
"$T" --no-cache "$pl100" > "$work/items100.jsonl"
"$T" --no-cache "$pl1000" > "$work/items1000.jsonl"
[ "$(wc -l < "$work/items100.jsonl")" -eq 100 ] || fail "$pl100 did not give 100 items"
jq -r 'select(.position == 0) | .uri' "$work/items1000.jsonl" > "$work/add.uri"  # added to a copy
jq -r 'select(.position == 50) | .uri' "$work/items100.jsonl" > "$work/remove.uri"  # removed from one
# Something plays (12 songs of 2:31 to 3:58, 30 s into the first) and 50 plays are in the history.
curl -s -d "durations=198,174,221,151,238,189,205,167,212,183,229,196&position_ms=30000" "$base/_fake/playback" > /dev/null
curl -s -d "count=50" "$base/_fake/playback/history" > /dev/null
echo "bench: library: $playlists playlists, $items items, $liked liked songs; '$name' holds $name_items items" >&2

copies=0
copy() {  # copy N: a fresh 100-item copy of gen...100 (uncounted); prints its id
    "$P" create "Bench copy $1" < "$work/items100.jsonl" 2> "$work/copy.err" | jq -r .id ||
        fail "could not make a copy: $(cat "$work/copy.err")"
}

# Runs the command line $1 (through bash -c, with $P, $T, $N, $PL, $work exported) and prints
# "total|by route|refreshes" from fake-spotify's counters (the requests by route go to
# $work/routes); fails unless it exits 0.
export P T N work
measure() {
    local line=$1 status=0
    reset
    bash -c "set -o pipefail; $line" < /dev/null > "$work/out" 2> "$work/err" || status=$?
    [ "$status" -eq 0 ] || fail "'$line' exited $status: $(head -c 600 "$work/err")"
    [ -z "$lines" ] || [ "$(wc -l < "$work/out")" -eq "$lines" ] ||
        fail "'$line' printed $(wc -l < "$work/out") lines, not $lines"
    curl -s "$base/_fake/counters" > "$work/counters.json"
    jq -r '.requests | to_entries | map("\(.key) \(.value)") | join(", ")' "$work/counters.json" > "$work/routes"
    # The routes, short: "me/playlists 3, playlists/{id} 7, DELETE playlists/{id}/items 1" (GET unnamed).
    jq -r '
        .requests as $r
        | ([$r[]] | add // 0) as $total
        | ($r | to_entries
           | map((.key | split(" ")) as [$method, $path]
                 | "\(if $method == "GET" then "" else $method + " " end)\($path | ltrimstr("/v1/") | ltrimstr("/")) \(.value)")
           | join(", ") | if . == "" then "no request" else . end) as $by
        | "\($total)|\($by)|\(.refreshes)"' "$work/counters.json"
}
# 20531 as 20,531.
thousands() { echo "$1" | sed -E ':a; s/([0-9])([0-9]{3})($|[^0-9])/\1,\2\3/; ta'; }

rows=()
# row COMMAND-AS-SHOWN NOTE KIND LINE [LINES]: KIND read runs LINE cold then again warm; write
# runs it cold on a fresh copy and warm on another fresh copy spotify-tracks has read ($PL is the
# copy); create runs it cold, then warm with the cache the earlier rows left. Each run must print
# LINES lines when given (the records a read prints; a write prints its playlist record).
row() {
    local shown=$1 note=$2 kind=$3 line=$4 lines=${5:-} cold warm cold_routes detail refresh
    case $kind in
        read)
            fresh_cache; cold=$(measure "$line"); cold_routes=$(cat "$work/routes")
            warm=$(measure "$line")
            ;;
        write)
            copies=$((copies + 2))
            PL=$(copy $((copies - 1))); export PL; fresh_cache; cold=$(measure "$line"); cold_routes=$(cat "$work/routes")
            PL=$(copy $copies); export PL; "$T" "$PL" > /dev/null; warm=$(measure "$line")
            ;;
        create)
            fresh_cache; cold=$(measure "$line"); cold_routes=$(cat "$work/routes")
            "$T" "$pl100" > /dev/null; warm=$(measure "$line")
            ;;
    esac
    detail="cold: ${cold#*|}"; detail=${detail%|*}
    refresh=$(( ${cold##*|} + ${warm##*|} ))
    [ "$refresh" -eq 0 ] || detail="$detail; token refreshes (counted): ${cold##*|} cold, ${warm##*|} warm"
    [ -z "$note" ] || detail="$note; $detail"
    # The figures before the quota work, from Benchmarks/requests-before.tsv.
    local before
    before=$(awk -F'\t' -v c="$shown" '$1 == c { print $2 " / " $3 }' Benchmarks/requests-before.tsv)
    rows+=("| \`${shown//|/\\|}\` | $(thousands "${cold%%|*}") | $(thousands "${warm%%|*}") | ${before:-n/a} | $detail |")
    echo "bench: $shown: cold ${cold%%|*}, warm ${warm%%|*}; warm: $(cat "$work/routes")" >&2
    echo "       cold: $cold_routes" >&2
}

row "spotify-playlists" "$playlists playlists" read '"$P"' "$playlists"
row "spotify-playlists --owned" "" read '"$P" --owned' "$playlists"
row "spotify-playlists --duration" "reads every item" read '"$P" --duration' "$playlists"
row "spotify-playlists get NAME" "$name_items items, by name" read "\"\$P\" get '$name'" 1
row "spotify-playlists --owned | spotify-tracks" "the whole library, $(thousands "$items") items" read '"$P" --owned | "$T"' "$items"
row "spotify-tracks PLAYLIST (100 items)" "by id" read '"$T" '"$pl100" 100
row "spotify-tracks PLAYLIST (1,000 items)" "by id" read '"$T" '"$pl1000" 1000
row "spotify-tracks --liked" "$(thousands "$liked") liked songs (no snapshot to cache by)" read '"$T" --liked' "$liked"
row "spotify-nowplaying" "one shot, a song playing" read '"$N" --json' 1
row "spotify-nowplaying recent" "50 plays" read '"$N" recent --json' 50
for dry in "--dry-run " ""; do
    row "spotify-playlists add ${dry}PLAYLIST (1 item, 100-item playlist)" "" write '"$P" add '"$dry"'"$PL" < "$work/add.uri"' 1
done
for dry in "--dry-run " ""; do
    row "spotify-playlists remove ${dry}PLAYLIST (1 item, 100-item playlist)" "" write '"$P" remove '"$dry"'"$PL" < "$work/remove.uri"' 1
done
for dry in "--dry-run " ""; do
    row "spotify-playlists create ${dry}NAME (100 items)" "" create '"$P" create '"$dry"'"Bench new $RANDOM" < "$work/items100.jsonl"' "$([ -n "$dry" ] && echo 2 || echo 1)"
done
for dry in "--dry-run " ""; do
    row "spotify-playlists edit ${dry}--name NEW PLAYLIST" "" write '"$P" edit '"$dry"'--name "Renamed $RANDOM" "$PL"' 1
done
for dry in "--dry-run " ""; do
    row "spotify-playlists delete ${dry}PLAYLIST" "100 items" write '"$P" delete '"$dry"'--yes "$PL"' 1
done
for dry in "--dry-run " ""; do
    row "spotify-playlists sort ${dry}--by duration PLAYLIST" "100 items, dates kept" write '"$P" sort '"$dry"'--by duration "$PL"' "$([ -n "$dry" ] || echo 1)"
done
row "spotify-playlists sort --by duration --reset-dates PLAYLIST" "100 items, every date now" write '"$P" sort --by duration --reset-dates "$PL"' 1

{
    echo "| command | cold requests | warm requests | before (cold / warm) | notes |"
    echo "|---|---:|---:|---:|---|"
    printf '%s\n' "${rows[@]}"
} > "$work/table.md"
echo "Requests per command on fake-spotify --library-shape real ($playlists playlists, $(thousands "$items") items, $(thousands "$liked") liked songs), $(date -u +%Y-%m-%d), $config build:"
cat "$work/table.md"
[ -z "$out" ] || cp "$work/table.md" "$out"
