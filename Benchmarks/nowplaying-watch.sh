#!/usr/bin/env bash
# spotify-nowplaying --watch against fixed 5-second polling, on the same accelerated listening
# session in fake-spotify: 15 minutes of a morning playlist (songs of 2:31 to 3:58) starting
# 0:30 into the first song, paused at 4:00 for 45 s, a skip at 10:30. Reports API calls, the
# changes seen (of how many happened) and the average and worst lag between a change and the
# poll that saw it, in unaccelerated time. Targets: at most half the calls of 5-second polling,
# every change seen, average lag <= 2 s.
#
#   Benchmarks/nowplaying-watch.sh                 # 60x: each run takes 15 s
#   BENCH_SPEED=30 Benchmarks/nowplaying-watch.sh  # slower, less timing noise
#   BENCH_RUNS=5 Benchmarks/nowplaying-watch.sh    # more sessions (default 3): the events fall at
#                                                  # slightly different moments of the poll cycle each time
#
# The tool's clock runs at the same speed through SPOTIFY_TOOLKIT_TIME_SCALE (a developer hook),
# so its real scheduling code paces the accelerated session.
set -euo pipefail
cd "$(dirname "$0")/.."

speed=${BENCH_SPEED:-60}
runs=${BENCH_RUNS:-3}
config=${BENCH_CONFIG:-release}
command -v python3 >/dev/null || { echo "bench: python3 is needed for the figures" >&2; exit 69; }
command -v curl >/dev/null || { echo "bench: curl is needed" >&2; exit 69; }

swift build -c "$config" --product spotify-nowplaying >/dev/null
swift build -c "$config" --product fake-spotify >/dev/null
bin="$(swift build -c "$config" --show-bin-path)"

work=$(mktemp -d)
trap 'kill "$fake_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
"$bin/fake-spotify" --port-file "$work/port" --exit-after 600 >/dev/null 2>&1 &
fake_pid=$!
for _ in $(seq 200); do [ -s "$work/port" ] && break; sleep 0.05; done
base="http://127.0.0.1:$(cat "$work/port")"
token=$(curl -s -d "scope=user-read-currently-playing user-read-playback-state" "$base/_fake/tokens" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')
export SPOTIFY_API_BASE="$base/v1" SPOTIFY_ACCOUNTS_BASE="$base" SPOTIFY_ACCESS_TOKEN="$token"
export XDG_CONFIG_HOME="$work/config" SPOTIFY_TOOLKIT_TIME_SCALE="$speed"

# Sleeps until `virtual` seconds into the session (real time = virtual / speed).
at() { python3 -c "import time,sys; t=$start+$1/$speed-time.time(); time.sleep(max(0,t))"; }

run() {  # name, extra watch options...
    local name=$1; shift
    curl -s -X POST "$base/_fake/reset-counters" >/dev/null
    curl -s -d "durations=198,174,221,151,238,189,205,167,212,183,229,196&position_ms=30000&speed=$speed" "$base/_fake/playback" >/dev/null
    start=$(python3 -c 'import time; print(time.time())')
    "$bin/spotify-nowplaying" --watch --for 15m "$@" > "$work/$name.jsonl" &
    local watch_pid=$!
    at 240; curl -s -X POST "$base/_fake/playback/pause" >/dev/null
    at 285; curl -s -X POST "$base/_fake/playback/resume" >/dev/null
    at 630; curl -s -X POST "$base/_fake/playback/next" >/dev/null
    wait "$watch_pid"
    curl -s "$base/_fake/playback" > "$work/$name.session.json"
    curl -s "$base/_fake/counters" > "$work/$name.counters.json"
}

echo "bench: $((2 * runs)) accelerated 15-minute sessions at ${speed}x (about $((900 / speed)) s each) ..." >&2
for ((i = 1; i <= runs; i++)); do
    run "adaptive$i"
    run "fixed$i" --fixed-interval --interval 5
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
                lags.append((first_poll - at_ms) / 1000)
    return calls, seen, len(changes), lags, [c[1] for c in changes]

def pooled(name):
    results = [figures(f"{name}{i}") for i in range(1, runs + 1)]
    lags = [lag for r in results for lag in r[3]]
    return (sum(r[0] for r in results) / runs, sum(r[1] for r in results), sum(r[2] for r in results),
            sum(lags) / len(lags) if lags else float("nan"), max(lags) if lags else float("nan"), results[0][4],
            [sum(r[3]) / len(r[3]) if r[3] else float("nan") for r in results])

adaptive = pooled("adaptive")
fixed = pooled("fixed")
print(f"session: 15:00 at the fake's clock, {runs} runs each; changes per run:", ", ".join(adaptive[5]))
print(f"{'':28} {'API calls':>9} {'changes seen':>13} {'avg lag':>8} {'worst lag':>9}  avg lag per run")
for label, (calls, seen, total, average, worst, _, per_run) in (("spotify-nowplaying --watch", adaptive), ("fixed 5-second polling", fixed)):
    print(f"{label:28} {calls:>9.1f} {seen:>6} of {total:<3} {average:>7.2f}s {worst:>8.2f}s  " + " ".join(f"{x:.2f}s" for x in per_run))
calls, seen, total, average, worst, _, _ = adaptive
ok = calls * 2 <= fixed[0] and seen == total and average <= 2
print(f"targets (calls <= {fixed[0] / 2:g} per run, every change seen, average lag <= 2 s): {'met' if ok else 'NOT met'}")
PY
