#!/usr/bin/env bash
# Least-change edits of a 3,000-item playlist on fake-spotify with 50 ms added to every
# request: what `dedupe`, `sort --by duration` and a 10% scattered filter through `replace` send,
# how long they take, against the same change written afresh with --reset-dates, and against the
# floor of their own plan. Three scenarios:
#   dedupe  the playlist with 100 of its own songs added again at scattered positions (3,100
#           items): `spotify-playlists dedupe`, and `dedupe --reset-dates`
#           with a first-occurrence filter, as dedupe itself has no --reset-dates;
#   sort    `spotify-playlists sort --by duration --max-moves 10000` (the generated durations are
#           in no order, so nearly every item moves);
#   filter  `spotify-tracks ID | jq -c 'select(.position % 10 != 3)' | spotify-playlists replace ID`.
# Every run starts a fresh fake-spotify, so runs are independent; the set-up (the duplicates, the
# reads the checks need, the --dry-run that gives the plan) runs at 0 ms and is not counted: the
# counters are reset, and the latency set back, just before the timed command.
#
# Per scenario and mode it prints the plan (the --dry-run's change records), the write requests
# sent (DELETE/PUT/POST on /v1/playlists/{id}/items, by method) and the reads (GETs) fake-spotify
# counted, the median time, the floor of the run's own plan and time/floor: the plan's requests
# one after another plus the reads as round trips (each read of the playlist: its snapshot,
# its object with the first 100 entries, pages of 50 at most 8 in flight, its snapshot again; the
# read-back that proves the result; the record printed at the end; for filter, spotify-tracks'
# read too), each round trip the latency. It checks every run: the playlist holds what the
# command meant, the requests sent are the plan's, the dates added kept are the ones the summary
# line promised, and the range moves are no more than n minus the longest increasing subsequence
# of the wanted order's ranks in the current order (what moving items one by one sent before the
# block moves) and no fewer than the lower bound of any block-move plan ((n + 1 - odd cycles of
# the cycle graph) / 2); a move count outside exits 1 at once, any other failed check exits 1
# after the figures.
#
# Then the moves at scale: `sort --by duration` of generated playlists of 500, 3,000 and 10,000
# (durations in no order: a shuffle) and a reversal of each (`rewrite -- tac`), planned with
# --dry-run at 0 ms: range moves, against n - LIS (one by one, before) and the lower bound, and the
# CPU time of the plan; and the 10,000-item sort carried out, with its CPU time (the tool's, user +
# system), checked item by item and date by date.
#
#   Benchmarks/playlist-edits.sh                 # 3 runs of each
#   BENCH_RUNS=5 BENCH_LATENCY_MS=100 Benchmarks/playlist-edits.sh
#   BENCH_SCALE_ONLY=1 Benchmarks/playlist-edits.sh   # only the moves at scale
#
# fake-spotify listens on 127.0.0.1 only and exits by itself after an hour at most.
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/measure.sh  # now, median

runs=${BENCH_RUNS:-3}
latency=${BENCH_LATENCY_MS:-50}
items=3000
id=gen0000000000000003000  # fake-spotify's generated playlist of 3,000 tracks
in_flight=8                # pages read at once (the tools' default), for the floor
max_moves=10000
[[ "$runs" =~ ^[1-9][0-9]?$ ]] || { echo "bench: BENCH_RUNS must be 1 to 99, not '$runs'" >&2; exit 64; }
for tool in curl jq python3; do
    command -v "$tool" >/dev/null || { echo "bench: $tool is needed" >&2; exit 69; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/playlist-edits.XXXXXX")
# What the tools keep (version history, journals, logs) stays in here, never in the user's own.
export XDG_DATA_HOME="$work/data" XDG_STATE_HOME="$work/state"
fake_pid=
stop_fake() {
    if [ -n "$fake_pid" ]; then
        kill "$fake_pid" 2>/dev/null || true
        wait "$fake_pid" 2>/dev/null || true
        fake_pid=
    fi
}
cleanup() { stop_fake; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "bench: building release binaries ..." >&2
for product in spotify-playlists spotify-tracks fake-spotify; do swift build -c release --product "$product" >/dev/null; done
bin=$(swift build -c release --show-bin-path)

# A fresh fake-spotify, token and home for one run (in $run).
start_fake() {
    run="$work/run"
    rm -rf "$run"
    mkdir -p "$run"
    "$bin/fake-spotify" --port-file "$run/port" --exit-after 1h --latency-ms "$latency" > /dev/null 2> "$run/fake.err" &
    fake_pid=$!
    for _ in $(seq 100); do [ -s "$run/port" ] && break; sleep 0.05; done
    [ -s "$run/port" ] || { echo "bench: fake-spotify did not start: $(cat "$run/fake.err")" >&2; exit 69; }
    base="http://127.0.0.1:$(cat "$run/port")"
    local scope="playlist-read-private playlist-modify-private playlist-modify-public user-library-read"
    token=$(curl -sf -X POST --data-urlencode "scope=$scope" -d expires_in=36000 "$base/_fake/tokens" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')
}
tools() {
    SPOTIFY_API_BASE="$base/v1" SPOTIFY_ACCESS_TOKEN="$token" XDG_CONFIG_HOME="$run/config" \
        XDG_CACHE_HOME="$run/cache" XDG_STATE_HOME="$run/state" "$@"
}
set_latency() {
    local now
    now=$(curl -sf -X POST -d "latency_ms=$1" "$base/_fake/library" | python3 -c 'import json, sys; print(json.load(sys.stdin)["latency_ms"])')
    [ "$now" = "$1" ] || { echo "bench: fake-spotify's latency is $now ms, not $1" >&2; exit 70; }
}
read_playlist() { tools "$bin/spotify-tracks" --no-cache "$id" > "$1"; }

# The set-up of a scenario, at 0 ms: dedupe gets 100 of the playlist's own songs again, song
# 30k+7 after song 30((37k) mod 100)+22 (k = 0..99): scattered, some before their first occurrence.
setup() {
    [ "$1" = dedupe ] || return 0
    read_playlist "$run/original.jsonl"
    python3 - "$run/original.jsonl" > "$run/duplicated.uris" << 'EOF'
import json, sys
uris = [json.loads(line)["uri"] for line in open(sys.argv[1])]
after = {30 * ((37 * k) % 100) + 22: uris[30 * k + 7] for k in range(100)}
for index, uri in enumerate(uris):
    print(uri)
    if index in after:
        print(after[index])
EOF
    tools "$bin/spotify-playlists" replace "$id" < "$run/duplicated.uris" > /dev/null 2> "$run/setup.err" ||
        { echo "bench: the set-up failed: $(cat "$run/setup.err")" >&2; exit 70; }
}

# The command of scenario $1 in mode $2 (least: dates kept; reset: --reset-dates), with any further
# arguments (--dry-run).
edit() {
    local scenario=$1 mode=$2
    shift 2
    local reset=()
    [ "$mode" = reset ] && reset=(--reset-dates)
    case $scenario in
    dedupe)
        tools "$bin/spotify-playlists" dedupe "$id" ${reset[@]+"${reset[@]}"} "$@"
        ;;
    sort) tools "$bin/spotify-playlists" sort "$id" --by duration --max-moves "$max_moves" ${reset[@]+"${reset[@]}"} "$@" ;;
    filter)
        tools "$bin/spotify-tracks" --no-cache "$id" | jq -c 'select(.position % 10 != 3)' |
            tools "$bin/spotify-playlists" replace "$id" --max-moves "$max_moves" ${reset[@]+"${reset[@]}"} "$@"
        ;;
    esac
}

# Moves figures, shared by the checks: python3 moves.py RANKS_JSON prints n, n - LIS (the moves
# one by one) and the lower bound of block moves, for the current order's ranks in the wanted one.
cat > "$work/moves.py" << 'EOF'
import json, sys
from bisect import bisect_left

def lis(ranks):
    tails = []
    for rank in ranks:
        at = bisect_left(tails, rank)
        tails[at:at + 1] = [rank]
    return len(tails)

def lower_bound(ranks):
    # The cycle graph over the n + 1 gaps: gap g goes to the gap after the item ranked one below
    # the item after g; sorting needs at least (n + 1 - odd cycles) / 2 block moves.
    n = len(ranks)
    position = [0] * n
    for index, rank in enumerate(ranks):
        position[rank] = index
    def step(gap):
        rank = ranks[gap] if gap < n else n
        return 0 if rank == 0 else position[rank - 1] + 1
    seen = [False] * (n + 1)
    odd = 0
    for start in range(n + 1):
        length = 0
        gap = start
        while not seen[gap]:
            seen[gap] = True
            gap = step(gap)
            length += 1
        if length % 2 == 1:
            odd += 1
    return (n + 1 - odd) // 2

if __name__ == "__main__":
    ranks = json.load(open(sys.argv[1]))
    print(json.dumps({"n": len(ranks), "single": len(ranks) - lis(ranks), "bound": lower_bound(ranks)}))
EOF

# Checks one run and prints its figures as JSON: argv scenario, mode, before, after, plan, counters,
# the run's stderr. Exit 3: the items moved are not n - LIS; exit 2: another check failed.
cat > "$work/check.py" << 'EOF'
import json, math, re, sys
from bisect import bisect_left
from collections import Counter
sys.path.insert(0, sys.argv[9])
from moves import lower_bound

scenario, mode, before_file, after_file, plan_file, counters_file, err_file = sys.argv[1:8]
in_flight = int(sys.argv[8])
before = [json.loads(line) for line in open(before_file)]
after = [json.loads(line) for line in open(after_file)]
plan = [json.loads(line) for line in open(plan_file)]
requests = json.load(open(counters_file))["requests"]
err = open(err_file).read()
current = [r["uri"] for r in before]
failures = []

if scenario == "dedupe":
    seen = set()
    wanted = [u for u in current if not (u in seen or seen.add(u))]
elif scenario == "sort":
    wanted = [r["uri"] for r in sorted(before, key=lambda r: r["duration_ms"])]  # stable
else:
    wanted = [r["uri"] for r in before if r["position"] % 10 != 3]
got = [r["uri"] for r in after]
if got != wanted:
    failures.append(f"the playlist holds {len(got)} items, not the {len(wanted)} wanted in order")

# The items that stay (the planner's rule: a URI wanted fewer times than the playlist has it is
# removed whole), the rank of each in the current order taken in the wanted order, and one longest
# strictly increasing subsequence of those ranks: what stays put; the rest must move.
have, want = Counter(current), Counter(wanted)
occurrences = {}
for index, uri in enumerate(current):
    if want[uri] >= have[uri]:
        occurrences.setdefault(uri, []).append(index)
used, ranks = Counter(), []
for uri in wanted:
    if used[uri] < len(occurrences.get(uri, [])):
        ranks.append(occurrences[uri][used[uri]])
        used[uri] += 1
tails = []
for rank in ranks:
    at = bisect_left(tails, rank)
    tails[at:at + 1] = [rank]
lis = len(tails)
moves = [c for c in plan if c["action"] == "move"]
moved = sum(c["range_length"] for c in moves)
# The current order's ranks among what stays, for the lower bound of block moves.
order = sorted(range(len(ranks)), key=lambda k: ranks[k])
current_ranks = [0] * len(ranks)
for current_rank, k in enumerate(order):
    current_ranks[current_rank] = k
bound = lower_bound(current_ranks)
if mode == "least" and not (bound <= len(moves) <= len(ranks) - lis):
    print(f"bench: {scenario}: the plan has {len(moves)} range moves; lower bound {bound}, "
          f"n - LIS = {len(ranks)} - {lis} = {len(ranks) - lis}", file=sys.stderr)
    sys.exit(3)

writes = {k.split()[0]: n for k, n in requests.items() if k.startswith(("DELETE ", "PUT ", "POST ")) and " /v1/" in k}
other = {k: n for k, n in requests.items() if " /v1/" in k and not k.startswith("GET ")
         and k.split()[1] != "/v1/playlists/{id}/items"}
if other:
    failures.append(f"other writes: {other}")
write_count = sum(n for k, n in requests.items() if k.split()[1] == "/v1/playlists/{id}/items" and not k.startswith("GET "))
singles = requests.get("GET /v1/playlists/{id}", 0)
pages = requests.get("GET /v1/playlists/{id}/items", 0)
reads = sum(n for k, n in requests.items() if k.startswith("GET /v1/"))
if write_count != len(plan):
    failures.append(f"{write_count} write requests sent; the plan has {len(plan)}")

# The floor: a read of m entries is its snapshot, its object (the first 100), ceil((m - 100) / 50)
# pages at most in_flight at a time, its snapshot again; the edit reads before and after, and
# prints the playlist's record; the filter's spotify-tracks reads the object and the pages.
def page_count(m): return math.ceil(max(0, m - 100) / 50)
def rounds(m): return math.ceil(page_count(m) / in_flight)
m0, m1 = len(before), len(wanted)
trips = 3 + rounds(m0) + 3 + rounds(m1) + 1
model_singles, model_pages = 3 + 3 + 1, page_count(m0) + page_count(m1)
if scenario == "filter":
    trips += 1 + rounds(m0)
    model_singles += 1
    model_pages += page_count(m0)
read_trips = trips
trips += len(plan)
model = "ok" if (singles, pages) == (model_singles, model_pages) else \
    f"counted {singles} playlist reads and {pages} pages, the floor's model {model_singles} and {model_pages}"

# Dates added kept: entries whose added_at is that of the URI's first entry before.
first_date = {}
for r in before:
    first_date.setdefault(r["uri"], r["added_at"])
kept = sum(1 for r in after if first_date.get(r["uri"]) == r["added_at"])
promised = 0
match = re.search(r"dates kept for ([\d,]+)", err)
if mode == "least":
    promised = int(match.group(1).replace(",", "")) if match else -1
if kept != promised:
    failures.append(f"{kept} items kept their date added; the summary said {promised}")
summary = next((line.split(": ", 2)[-1] for line in err.splitlines() if line.startswith("spotify-playlists: playlist ")), "")

print(json.dumps({
    "plan": len(plan), "plan_actions": dict(Counter(c["action"] for c in plan)), "writes": write_count,
    "by_method": writes, "reads": reads, "singles": singles, "pages": pages, "read_trips": read_trips,
    "trips": trips, "moved": moved, "move_records": len(moves), "n": len(ranks), "lis": lis, "bound": bound,
    "dates_kept": kept, "items_after": len(after), "model": model, "summary": summary, "failures": failures,
}))
sys.exit(2 if failures else 0)
EOF

if [ "${BENCH_SCALE_ONLY:-0}" != 1 ]; then
scenarios=(dedupe sort filter)
modes=(least reset)
failed=0
for scenario in "${scenarios[@]}"; do
    for mode in "${modes[@]}"; do
        : > "$work/$scenario.$mode.times"
        for ((i = 1; i <= runs; i++)); do
            start_fake
            set_latency 0
            setup "$scenario"
            read_playlist "$run/before.jsonl"
            edit "$scenario" "$mode" --dry-run > "$run/plan.jsonl" 2> "$run/plan.err" ||
                { echo "bench: $scenario --dry-run failed: $(cat "$run/plan.err")" >&2; exit 70; }
            set_latency "$latency"
            curl -sf -X POST "$base/_fake/reset-counters" > /dev/null
            start=$(now)
            edit "$scenario" "$mode" > "$run/out.json" 2> "$run/edit.err" ||
                { echo "bench: $scenario ($mode) failed: $(cat "$run/edit.err")" >&2; exit 70; }
            seconds=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }')
            curl -sf "$base/_fake/counters" > "$run/counters.json"
            set_latency 0
            read_playlist "$run/after.jsonl"
            stop_fake
            status=0
            python3 "$work/check.py" "$scenario" "$mode" "$run/before.jsonl" "$run/after.jsonl" "$run/plan.jsonl" \
                "$run/counters.json" "$run/edit.err" "$in_flight" "$work" > "$run/figures.json" || status=$?
            [ "$status" -eq 3 ] && { echo "bench: FAILED: the range moves are outside their bounds" >&2; exit 1; }
            [ "$status" -ne 0 ] && [ ! -s "$run/figures.json" ] && { echo "bench: the check did not run" >&2; exit 70; }
            if [ "$status" -ne 0 ]; then
                failed=1
                echo "bench: FAILED $scenario ($mode) run $i: $(jq -r '.failures | join("; ")' "$run/figures.json")" >&2
            fi
            model=$(jq -r .model "$run/figures.json")
            [ "$model" = ok ] || echo "bench: note: $scenario ($mode): $model" >&2
            echo "$seconds" >> "$work/$scenario.$mode.times"
            cp "$run/figures.json" "$work/$scenario.$mode.run$i.json"
            echo "$scenario ($mode) run $i: ${seconds}s; $(jq -r '"writes \(.writes) (\(.by_method | to_entries | map("\(.key) \(.value)") | join(", "))), reads \(.reads)"' "$run/figures.json")" >&2
        done
    done
done

# The figures of a scenario and mode: the last run's counts (the same every run, else flagged).
figure() { jq -r "$2" "$work/$1.run$runs.json"; }
for scenario in "${scenarios[@]}"; do
    for mode in "${modes[@]}"; do
        counts=$(for ((i = 1; i <= runs; i++)); do jq -c '[.plan, .writes, .reads, .moved, .dates_kept]' "$work/$scenario.$mode.run$i.json"; done | sort -u | wc -l)
        [ "$counts" -eq 1 ] || { echo "bench: FAILED $scenario ($mode): the counts differ between runs" >&2; failed=1; }
    done
done

label() { case $1 in least) echo "dates kept" ;; reset) echo "--reset-dates" ;; esac; }
echo "spotify-playlists edits of a ${items}-item playlist ($id), ${latency} ms per request, median of $runs runs each, a fresh fake-spotify per run"
printf '%-8s %-14s %5s %-22s %6s %9s %8s %10s %11s\n' scenario mode plan "writes sent" reads "median s" "floor s" time/floor "dates kept"
for scenario in "${scenarios[@]}"; do
    for mode in "${modes[@]}"; do
        m=$(median < "$work/$scenario.$mode.times")
        echo "$m" > "$work/$scenario.$mode.median"
        floor=$(awk -v t="$(figure "$scenario.$mode" .trips)" -v l="$latency" 'BEGIN { printf "%.2f", t * l / 1000 }')
        printf '%-8s %-14s %5s %-22s %6s %9s %8s %10s %11s\n' "$scenario" "$(label "$mode")" \
            "$(figure "$scenario.$mode" .plan)" \
            "$(figure "$scenario.$mode" '"\(.writes) (\(.by_method | to_entries | map("\(.key) \(.value)") | join(" ")))"')" \
            "$(figure "$scenario.$mode" .reads)" "$m" "$floor" \
            "$(awk -v a="$m" -v b="$floor" 'BEGIN { printf "%.2fx", a / b }')" \
            "$(figure "$scenario.$mode" '"\(.dates_kept) of \(.items_after)"')"
    done
done
echo "floor: (the plan's requests + the reads' round trips: $(figure dedupe.least .read_trips) for dedupe, $(figure sort.least .read_trips) for sort, $(figure filter.least .read_trips) for filter; pages of 50 at most $in_flight in flight) x ${latency} ms"
for scenario in "${scenarios[@]}"; do
    echo "$scenario: $(figure "$scenario.least" .summary)"
    echo "  dates kept / --reset-dates: time $(awk -v a="$(cat "$work/$scenario.least.median")" -v b="$(cat "$work/$scenario.reset.median")" 'BEGIN { printf "%.2fx", a / b }'), write requests $(awk -v a="$(figure "$scenario.least" .writes)" -v b="$(figure "$scenario.reset" .writes)" 'BEGIN { printf "%.2fx", a / b }')"
done
echo "sort: $(figure sort.least .move_records) range moves (carrying $(figure sort.least .moved) items); one by one (before): n - LIS = $(figure sort.least .n) - $(figure sort.least .lis) = $(($(figure sort.least .n) - $(figure sort.least .lis))); lower bound $(figure sort.least .bound)"
[ "$failed" -eq 0 ] || { echo "bench: some checks FAILED (above)" >&2; exit 1; }
fi

# The moves at scale, at 0 ms per request: --dry-run plans of a shuffle (sort --by duration) and a
# reversal (rewrite -- tac) of generated playlists, each plan carried out on a copy of the
# playlist as Spotify carries out range moves and checked against the order wanted; then the
# 10,000-item sort carried out against fake-spotify, with the tool's CPU time.
cat > "$work/scale.py" << 'EOF'
import json, sys
sys.path.insert(0, sys.argv[4])
from moves import lis, lower_bound
before = [json.loads(line) for line in open(sys.argv[1])]
plan = [json.loads(line) for line in open(sys.argv[2])]
edit = sys.argv[3]
current = [r["uri"] for r in before]
if edit == "sort":
    wanted = [r["uri"] for r in sorted(before, key=lambda r: r["duration_ms"])]
else:
    wanted = current[::-1]
assert len(set(current)) == len(current), "the generated playlist repeats a song"
playlist = list(current)
for change in plan:
    assert change["action"] == "move", change
    start, before_, length = change["range_start"], change["insert_before"], change["range_length"]
    run = playlist[start:start + length]
    del playlist[start:start + length]
    at = before_ - length if before_ > start else before_
    playlist[at:at] = run
rank = {uri: k for k, uri in enumerate(wanted)}
ranks = [rank[uri] for uri in current]
print(json.dumps({"ok": playlist == wanted, "moves": len(plan), "single": len(ranks) - lis(ranks),
                  "bound": lower_bound(ranks)}))
EOF
scale_sizes=${BENCH_SCALE_SIZES:-"500 3000 10000"}
echo
echo "range moves at scale (planned with --dry-run at 0 ms; one by one: n - LIS, what was sent before the block moves)"
printf '%-7s %-24s %11s %11s %12s %7s %11s\n' items edit "range moves" "one by one" "lower bound" ratio "dry-run CPU"
for size in $scale_sizes; do
    pid=$(printf 'gen%019d' "$size")
    start_fake
    tools "$bin/spotify-tracks" --no-cache "$pid" > "$run/before.jsonl"
    for edit in sort reverse; do
        if [ "$edit" = sort ]; then
            command=(sort "$pid" --by duration --max-moves 10000 --dry-run)
            what="sort --by duration"
        else
            command=(rewrite "$pid" --max-moves 10000 --dry-run -- tac)
            what="reversal (rewrite -- tac)"
        fi
        tools /usr/bin/time -f '%U %S' -o "$run/cpu" "$bin/spotify-playlists" "${command[@]}" \
            > "$run/plan.jsonl" 2> "$run/plan.err" ||
            { echo "bench: $what of $size failed: $(cat "$run/plan.err")" >&2; exit 70; }
        figures=$(python3 "$work/scale.py" "$run/before.jsonl" "$run/plan.jsonl" "$edit" "$work")
        [ "$(jq -r .ok <<< "$figures")" = true ] ||
            { echo "bench: FAILED: the $what plan of $size does not give the order wanted" >&2; exit 1; }
        moves=$(jq -r .moves <<< "$figures")
        single=$(jq -r .single <<< "$figures")
        printf '%-7s %-24s %11s %11s %12s %7s %10ss\n' "$size" "$what" "$moves" "$single" "$(jq -r .bound <<< "$figures")" \
            "$(awk -v a="$moves" -v b="$single" 'BEGIN { printf "%.2f", a / b }')" \
            "$(awk '{ printf "%.2f", $1 + $2 }' "$run/cpu")"
        grep -q -- "--dry-run: would send" "$run/plan.err" ||
            { echo "bench: FAILED: the $what --dry-run does not say what it would send" >&2; exit 1; }
    done
    echo "  $(grep -- "--dry-run: would send" "$run/plan.err" | sed 's/^spotify-playlists: //') (the reversal)"
    if [ "$size" = "${scale_sizes##* }" ]; then
        # The last size's sort carried out: every item in order, every date kept, and its CPU time.
        tools /usr/bin/time -f '%U %S %e' -o "$run/cpu" "$bin/spotify-playlists" sort "$pid" --by duration \
            --max-moves 10000 > /dev/null 2> "$run/sort.err" ||
            { echo "bench: the sort of $size failed: $(cat "$run/sort.err")" >&2; exit 70; }
        tools "$bin/spotify-tracks" --no-cache "$pid" > "$run/after.jsonl"
        python3 - "$run/before.jsonl" "$run/after.jsonl" << 'EOF' ||
import json, sys
before = [json.loads(line) for line in open(sys.argv[1])]
after = [json.loads(line) for line in open(sys.argv[2])]
wanted = sorted(before, key=lambda r: r["duration_ms"])
sys.exit(0 if [(r["uri"], r["added_at"]) for r in after] == [(r["uri"], r["added_at"]) for r in wanted] else 1)
EOF
            { echo "bench: FAILED: the sorted playlist of $size is not the order wanted with every date" >&2; exit 1; }
        echo "  sort --by duration of $size carried out: $(awk '{ printf "%.2f s CPU (user + system), %.1f s wall", $1 + $2, $3 }' "$run/cpu"); every item in order, every date kept"
    fi
    stop_fake
done
