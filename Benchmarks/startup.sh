#!/usr/bin/env bash
# Start-up cost of every shipped tool, side by side with `jq -n 1` in one run: each tool's
# `--help` and a run with empty input, median wall time and peak memory (RSS).
# Target: under 25 ms and 30 MB each.
#
#   Benchmarks/startup.sh                # 31 runs of each command
#   BENCH_RUNS=101 Benchmarks/startup.sh
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${BENCH_RUNS:-31}
command -v jq >/dev/null || { echo "bench: jq is needed as the peer (apt-get install jq)" >&2; exit 69; }
swift build -c release >/dev/null
bin="$(swift build -c release --show-bin-path)"

# Empty input, no network: a throwaway XDG home, and an API base nobody listens on (a tool that
# tried the network would show up as slow, not pass silently).
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
export XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" XDG_CACHE_HOME="$home/cache"
export SPOTIFY_API_BASE=http://127.0.0.1:9/v1 SPOTIFY_ACCOUNTS_BASE=http://127.0.0.1:9 SPOTIFY_TOOLKIT_TOKEN_STORE=file

python3 - "$runs" "$bin" <<'PY'
import os, subprocess, sys, time, statistics
runs, bin_dir = int(sys.argv[1]), sys.argv[2]

def tool(name): return os.path.join(bin_dir, name)

# (label, argv, stdin): the empty-input run of each tool is the cheapest real invocation that
# reads its (empty) input or local state and exits.
cases = [("jq -n 1", ["jq", "-n", "1"])]
empty_runs = {
    "spotify-auth": ["spotify-auth", "status"],         # logged out: a record, exit 77
    "spotify-playlists": ["spotify-playlists", "get"],  # no playlists on stdin
    "spotify-tracks": ["spotify-tracks"],               # no playlists on stdin
    "songcount": ["songcount"],                         # count mode, empty stdin (exit 1: nothing heard)
    "spotify-nowplaying": ["spotify-nowplaying"],       # logged out: exit 77 before any request
    "routine-link": ["routine-link", "list"],           # no routines yet
}
for name, argv in empty_runs.items():
    if not os.path.exists(tool(name)):
        print(f"bench: {name} is not built; skipped", file=sys.stderr)
        continue
    cases.append((f"{name} --help", [tool(name), "--help"]))
    cases.append((f"{name} (empty input: {' '.join(argv[1:]) or 'stdin'})", [tool(argv[0])] + argv[1:]))

def once(argv):
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    return (time.perf_counter() - start) * 1000, usage.ru_maxrss / 1024  # ms, MB (ru_maxrss is KiB on Linux)

results = {label: ([], []) for label, _ in cases}
for _ in range(runs):
    for label, argv in cases:  # interleaved, so a noisy moment hits every command alike
        ms, mb = once(argv)
        results[label][0].append(ms)
        results[label][1].append(mb)

jq_ms = statistics.median(results["jq -n 1"][0])
print(f"{runs} runs each, interleaved; median wall time and peak RSS")
print(f"{'command':58} {'median ms':>9} {'vs jq':>6} {'peak MB':>8}")
worst_ms = worst_mb = 0
for label, _ in cases:
    times, rss = results[label]
    ms, mb = statistics.median(times), max(rss)
    if label != "jq -n 1":
        worst_ms, worst_mb = max(worst_ms, ms), max(worst_mb, mb)
    print(f"{label:58} {ms:9.1f} {ms / jq_ms:5.1f}x {mb:8.1f}")
print(f"slowest tool median {worst_ms:.1f} ms (target < 25 ms); largest peak {worst_mb:.1f} MB (target < 30 MB)")
PY
