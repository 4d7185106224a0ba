#!/usr/bin/env bash
# spotify-nowplaying --watch against fixed 5-second polling, on the same accelerated listening
# session in fake-spotify: 15 minutes of a morning playlist (songs of 2:31 to 3:58) starting
# 0:30 into the first song, paused at about 4:00 for 45 s, a skip at about 10:30. Reports API calls, the
# changes seen (of how many happened) and the average and worst lag between a change and the
# poll that saw it, in unaccelerated time. Targets: at most half the calls of 5-second polling,
# every change seen, average lag <= 2 s.
#
#   Benchmarks/nowplaying-watch.sh                 # 60x: each run takes 15 s
#   BENCH_SPEED=30 Benchmarks/nowplaying-watch.sh  # slower, less timing noise
#   BENCH_RUNS=10 Benchmarks/nowplaying-watch.sh   # more sessions (default 5)
#
# A user's pause or skip can fall at any moment of a poll cycle, so each run moves the pause and
# the skip by its own offset (0 to 10 s, the same for both pollers in that run, from a fixed
# seed): the averages are over where the events fall, not one lucky or unlucky phase. (Events on
# whole multiples of 5 s would also line up with fixed 5-second polling started at 0:00.)
#
# The tool's clock runs at the same speed through SPOTIFY_TOOLKIT_TIME_SCALE (a developer setting: README.md),
# so its real scheduling code paces the accelerated session.
set -euo pipefail
cd "$(dirname "$0")/.."

speed=${BENCH_SPEED:-60}
runs=${BENCH_RUNS:-5}
config=${BENCH_CONFIG:-release}
command -v python3 >/dev/null || { echo "bench: python3 is needed for the figures" >&2; exit 69; }
command -v curl >/dev/null || { echo "bench: curl is needed" >&2; exit 69; }

swift build -c "$config" --product spotify-nowplaying >/dev/null
swift build -c "$config" --product fake-spotify >/dev/null
bin="$(swift build -c "$config" --show-bin-path)"

work=$(mktemp -d)
# What the tools keep (version history, journals, logs) stays in here, never in the user's own.
export XDG_DATA_HOME="$work/data" XDG_STATE_HOME="$work/state"
trap 'kill "$fake_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
"$bin/fake-spotify" --port-file "$work/port" --exit-after 600s >/dev/null 2>&1 &
fake_pid=$!
for _ in $(seq 200); do [ -s "$work/port" ] && break; sleep 0.05; done
base="http://127.0.0.1:$(cat "$work/port")"
token=$(curl -s -d "scope=user-read-currently-playing user-read-playback-state" "$base/_fake/tokens" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')
export SPOTIFY_API_BASE="$base/v1" SPOTIFY_ACCOUNTS_BASE="$base" SPOTIFY_ACCESS_TOKEN="$token"
export XDG_CONFIG_HOME="$work/config" SPOTIFY_TOOLKIT_TIME_SCALE="$speed"

# Sleeps until `virtual` seconds into the session (real time = virtual / speed).
at() { python3 -c "import time,sys; t=$start+($1)/$speed-time.time(); time.sleep(max(0,t))"; }

run() {  # name, offset of the pause and skip in seconds, extra watch options...
    local name=$1 offset=$2; shift 2
    curl -s -X POST "$base/_fake/reset-counters" >/dev/null
    curl -s -d "durations=198,174,221,151,238,189,205,167,212,183,229,196&position_ms=30000&speed=$speed" "$base/_fake/playback" >/dev/null
    start=$(python3 -c 'import time; print(time.time())')
    "$bin/spotify-nowplaying" --watch --for 15m "$@" > "$work/$name.jsonl" &
    local watch_pid=$!
    at "240 + $offset"; curl -s -X POST "$base/_fake/playback/pause" >/dev/null
    at "285 + $offset"; curl -s -X POST "$base/_fake/playback/resume" >/dev/null
    at "630 - $offset"; curl -s -X POST "$base/_fake/playback/next" >/dev/null
    wait "$watch_pid"
    curl -s "$base/_fake/playback" > "$work/$name.session.json"
    curl -s "$base/_fake/counters" > "$work/$name.counters.json"
}

# An idle hour (nothing playing; a fresh fake plays nothing), at 120x: what a watch left running
# costs of the app's daily quota. "before" is the schedule before the quota work: an idle player
# polled every 30 s, which --fixed-interval --interval 30s reproduces while nothing plays.
idle() {  # name, extra watch options...
    local name=$1; shift
    curl -s -X POST "$base/_fake/reset-counters" >/dev/null
    SPOTIFY_TOOLKIT_TIME_SCALE=120 "$bin/spotify-nowplaying" --watch --for 60m "$@" >/dev/null
    curl -s "$base/_fake/counters" > "$work/$name.counters.json"
}
echo "bench: 2 accelerated idle hours at 120x (30 s each) ..." >&2
idle idle-after
idle idle-before --fixed-interval --interval 30s

echo "bench: $((2 * runs)) accelerated 15-minute sessions at ${speed}x (about $((900 / speed)) s each) ..." >&2
for ((i = 1; i <= runs; i++)); do
    offset=$(python3 -c "import random; random.seed($i); print(round(random.uniform(0, 10), 2))")
    run "adaptive$i" "$offset"
    run "fixed$i" "$offset" --fixed-interval --interval 5s
done

python3 - "$work" "$runs" <<'PY'
import json, sys
work, runs = sys.argv[1], int(sys.argv[2])

def figures(name):
    session = json.load(open(f"{work}/{name}.session.json"))
    calls = json.load(open(f"{work}/{name}.counters.json"))["requests"].get("GET /v1/me/player/currently-playing", 0)
    records = [json.loads(line) for line in open(f"{work}/{name}.jsonl") if line.strip()]
    observed = [(r.get("id"), r.get("is_playing")) for r in records if not r.get("final")]
    polls = session["polls"]
    # Every change that happened, with the state it led to; "start" is where watching began.
    changes, state = [], None
    for event in session["events"]:
        kind, track = event["kind"], event["track_id"]
        if kind == "start":
            state = (track, True)
            continue
        if kind in ("track", "skip", "resume"):
            state = (track, True)
        elif kind == "pause":
            state = (track, False)
        else:
            continue
        changes.append((event["at_ms"], kind, state))
    # Seen: the watch printed a record with the new state, in order (a subsequence of its records).
    seen, lags, position = 0, [], 1
    for at_ms, kind, wanted in changes:
        while position < len(observed) and observed[position] != wanted:
            position += 1
        if position < len(observed):
            seen += 1
            position += 1
            first_poll = next((p for p in polls if p >= at_ms), None)
            if first_poll is not None:
                lags.append((kind, (first_poll - at_ms) / 1000))
    return calls, seen, len(changes), lags, [c[1] for c in changes]

def mean(xs): return sum(xs) / len(xs) if xs else float("nan")

def pooled(name):
    results = [figures(f"{name}{i}") for i in range(1, runs + 1)]
    pairs = [pair for r in results for pair in r[3]]
    lags = [lag for _, lag in pairs]
    by_kind = {kind: mean([lag for k, lag in pairs if k == kind]) for kind in ("track", "pause", "resume", "skip")}
    return (sum(r[0] for r in results) / runs, sum(r[1] for r in results), sum(r[2] for r in results),
            mean(lags), max(lags) if lags else float("nan"), results[0][4],
            [mean([lag for _, lag in r[3]]) for r in results], by_kind)

adaptive = pooled("adaptive")
fixed = pooled("fixed")
print(f"session: 15:00 at the fake's clock, {runs} runs each; changes per run:", ", ".join(adaptive[5]))
print(f"{'':28} {'API calls':>9} {'changes seen':>13} {'avg lag':>8} {'worst lag':>9}  avg lag per run")
for label, (calls, seen, total, average, worst, _, per_run, _) in (("spotify-nowplaying --watch", adaptive), ("fixed 5-second polling", fixed)):
    print(f"{label:28} {calls:>9.1f} {seen:>6} of {total:<3} {average:>7.2f}s {worst:>8.2f}s  " + " ".join(f"{x:.2f}s" for x in per_run))
print("average lag by kind of change (song end / pause / resume / skip):")
for label, result in (("spotify-nowplaying --watch", adaptive), ("fixed 5-second polling", fixed)):
    print(f"  {label:26} " + " / ".join(f"{result[7][k]:.2f}s" for k in ("track", "pause", "resume", "skip")))
def idle_calls(name):
    return json.load(open(f"{work}/{name}.counters.json"))["requests"].get("GET /v1/me/player/currently-playing", 0)
after, before = idle_calls("idle-after"), idle_calls("idle-before")
print(f"requests per 15-minute session: {adaptive[0]:.1f} (the schedule while music plays is unchanged by the idle back-off)")
print(f"requests per idle hour: {after} now, {before} before (every 30 s); ratio {after / max(before, 1):.2f}")
calls, seen, total, average, worst, _, _, _ = adaptive
ok = calls * 2 <= fixed[0] and seen == total and average <= 2 and after <= 60
print(f"targets (calls <= {fixed[0] / 2:g} per run, every change seen, average lag <= 2 s, an idle hour <= 60): {'met' if ok else 'NOT met'}")
PY
