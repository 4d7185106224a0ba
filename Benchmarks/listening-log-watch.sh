#!/usr/bin/env bash
# The CPU the watch spends adding each song played to its end to a long listening log: with a
# log of 100,000 plays, an add that reads the whole log (what every add did before, and what
# `history sync`/`history import` still do once a run) against the watch's adds, which read the
# log once and then only what was appended since. Prints medians per add and their ratio.
#
#   Benchmarks/listening-log-watch.sh                       # 100,000 lines, 100 adds, debug build
#   BENCH_LINES=200000 Benchmarks/listening-log-watch.sh    # a longer log
#   BENCH_WHOLE_ADDS=20 Benchmarks/listening-log-watch.sh   # more whole-log adds (default 5: each
#                                                           # costs what the watch's 100 do, or more)
#   BENCH_WHOLE_ADDS=0 Benchmarks/listening-log-watch.sh    # the watch alone: the memory its index
#                                                           # of the log keeps, unhidden
#
# It runs one in-process harness (ListeningLogTailBenchmark, skipped unless BENCH_LISTENING_LOG
# is set) so the figures are the log code's own, without a poll or a fake server around it.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_LISTENING_LOG=1 swift test --explicit-target-dependency-import-check error \
    --filter ListeningLogTailBenchmark 2>&1 | sed -n '/^listening log of/,/^ *ratio/{p;/^ *ratio/q}'
