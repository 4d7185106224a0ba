#!/usr/bin/env bash
# Start-up cost of the binary that ships, side by side with `jq -n 1` (and `rg --version` where
# ripgrep is installed) in one run: each command is run N times, interleaved so that a noisy
# moment hits every command alike, and reported as its median wall time, median CPU time (user +
# system, the steadier figure on a shared machine) and largest peak memory (RSS; it includes the
# timer's own floor, which jq's figure shows).
# Targets: the local command at most 6 ms, `spotify-auth status` at most 15 ms, every
# tool under 30 MB.
#
#   Benchmarks/startup.sh                # what `make ship` builds (spotify-toolkit, release, static
#                                        # Swift runtime on Linux), run through a link per tool: every
#                                        # tool's --help, a run with empty input, and the two
#                                        # headline commands; 31 runs each
#   Benchmarks/startup.sh --bin DIR      # only the headline commands, run as DIR/TOOL (make dist
#                                        # passes its unpacked bin/, where each tool is a link); 21 runs
#   BENCH_RUNS=101 Benchmarks/startup.sh
#
# The headline commands: a local one, `songcount --target 15m` on 10 records, and one that
# reads the login, `spotify-auth status` (logged out: a record and exit 77, no request).
set -euo pipefail
cd "$(dirname "$0")/.."

bin= headline_only=
if [ "${1:-}" = "--bin" ]; then
    bin=$(cd "${2:?--bin needs a directory}" && pwd)
    headline_only=1
fi
runs=${BENCH_RUNS:-$([ -n "$headline_only" ] && echo 21 || echo 31)}
command -v python3 >/dev/null || { echo "bench: python3 runs the timer (apt-get install python3)" >&2; exit 69; }
# No network: a throwaway XDG home, and an API base nobody listens on (a tool that tried the
# network would show up as slow, not pass silently).
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
if [ -z "$bin" ]; then
    make -s ship >/dev/null
    shipped="$(make -s --no-print-directory ship-path)/spotify-toolkit"
    bin="$home/bin"
    mkdir "$bin"
    for tool in spotify-auth spotify-playlists spotify-tracks songcount spotify-nowplaying routine-link; do
        ln -s "$shipped" "$bin/$tool"
    done
fi

export XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" XDG_CACHE_HOME="$home/cache"
export XDG_STATE_HOME="$home/state"
export SPOTIFY_API_BASE=http://127.0.0.1:9/v1 SPOTIFY_ACCOUNTS_BASE=http://127.0.0.1:9 SPOTIFY_TOOLKIT_TOKEN_STORE=file
unset SPOTIFY_ACCESS_TOKEN
python3 Benchmarks/make-tracks.py 10 > "$home/tracks-10.jsonl"

python3 - "$runs" "$bin" "$home/tracks-10.jsonl" "$headline_only" <<'PY'
import os, shutil, statistics, subprocess, sys, time
runs, bin_dir, ten_records, headline_only = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4] == "1"

def tool(name): return os.path.join(bin_dir, name)

# (label, argv, stdin file or None, is a tool of ours)
cases = []
peers = [("jq -n 1", ["jq", "-n", "1"])]
if shutil.which("rg"):
    peers.append(("rg --version", ["rg", "--version"]))
for label, argv in peers:
    if shutil.which(argv[0]):
        cases.append((label, argv, None, False))
    else:
        print(f"bench: {argv[0]} is not installed; no peer figure for it", file=sys.stderr)
cases_local = "songcount --target 15m (10 records)"
cases_status = "spotify-auth status (logged out)"
cases.append((cases_local, [tool("songcount"), "--target", "15m"], ten_records, True))
cases.append((cases_status, [tool("spotify-auth"), "status"], None, True))
if not headline_only:
    # The empty-input run of each tool: the cheapest real invocation that reads its (empty)
    # input or local state and exits.
    empty_runs = {
        "spotify-playlists": ["get"],   # no playlists on stdin
        "spotify-tracks": [],           # no playlists on stdin
        "songcount": [],                # count mode, empty stdin (exit 1: nothing heard)
        "spotify-nowplaying": [],       # logged out: exit 77 before any request
        "routine-link": ["list"],       # no routines yet
    }
    for name in ["spotify-auth", "spotify-playlists", "spotify-tracks", "songcount", "spotify-nowplaying", "routine-link"]:
        cases.append((f"{name} --help", [tool(name), "--help"], None, True))
        if name in empty_runs:
            label = f"{name} (empty input: {' '.join(empty_runs[name]) or 'stdin'})"
            cases.append((label, [tool(name)] + empty_runs[name], None, True))
for label, argv, _, ours in cases:
    if ours and not os.access(argv[0], os.X_OK):
        sys.exit(f"bench: {argv[0]} is not built")

def once(argv, stdin_path):
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = (time.perf_counter() - start) * 1000
    if stdin_path: stdin.close()
    # ru_maxrss is KiB on Linux, bytes on macOS.
    peak = usage.ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)
    return wall, (usage.ru_utime + usage.ru_stime) * 1000, peak

for label, argv, stdin_path, _ in cases:  # one warm-up run each: page cache, not start-up
    once(argv, stdin_path)
results = {label: ([], [], []) for label, *_ in cases}
for _ in range(runs):
    for label, argv, stdin_path, _ in cases:
        for series, value in zip(results[label], once(argv, stdin_path)):
            series.append(value)

print(f"start-up, {runs} runs each, interleaved: median wall and CPU (user+sys) ms, largest peak RSS")
print(f"  {'command':52} {'wall ms':>8} {'cpu ms':>7} {'peak MB':>8}")
worst_mb = 0
medians = {}
for label, _, _, ours in cases:
    wall, cpu, rss = results[label]
    ms, cpu_ms, mb = statistics.median(wall), statistics.median(cpu), max(rss)
    medians[label] = ms
    if ours:
        worst_mb = max(worst_mb, mb)
    print(f"  {label:52} {ms:8.1f} {cpu_ms:7.1f} {mb:8.1f}")
local, status = medians[cases_local], medians[cases_status]
print(f"  songcount --target 15m {local:.1f} ms (target at most 6 ms); spotify-auth status {status:.1f} ms"
      f" (at most 15 ms); largest peak of a tool {worst_mb:.1f} MB (under 30 MB)")
PY
