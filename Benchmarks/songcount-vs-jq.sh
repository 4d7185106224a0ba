#!/usr/bin/env bash
# songcount against jq on the same file, side by side in one run: medians, the ratio, and
# songcount's peak memory. Target: songcount at least 5x faster than jq, peak RSS under 50 MB.
#
#   Benchmarks/songcount-vs-jq.sh            # 1,000,000 tracks (~960 MB), 3 runs each
#   BENCH_RECORDS=100000 BENCH_RUNS=5 Benchmarks/songcount-vs-jq.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/measure.sh  # now, median

records=${BENCH_RECORDS:-1000000}
runs=${BENCH_RUNS:-3}
data_dir=${BENCH_DATA_DIR:-bench-data}
file="$data_dir/tracks-$records.jsonl"

command -v jq >/dev/null || { echo "bench: jq is needed as the peer (apt-get install jq)" >&2; exit 69; }
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is needed for peak memory (apt-get install time)" >&2; exit 69; }

swift build -c release --product songcount >/dev/null
songcount="$(swift build -c release --show-bin-path)/songcount"

mkdir -p "$data_dir"
if [ ! -s "$file" ]; then
    echo "bench: writing $records track records to $file ..." >&2
    python3 Benchmarks/make-tracks.py "$records" > "$file.tmp" && mv "$file.tmp" "$file"
fi
size_mb=$(( $(stat -c %s "$file") / 1000000 ))

# One timed run: prints "seconds peak_kb".
measure() {
    /usr/bin/time -f "%e %M" -o "$data_dir/time.out" "$@" > "$data_dir/out.txt" 2> "$data_dir/err.txt"
    cat "$data_dir/time.out"
}


: > "$data_dir/songcount.times"; : > "$data_dir/jq.times"; : > "$data_dir/songcount.rss"
cat "$file" > /dev/null  # warm the page cache once for both
for ((i = 1; i <= runs; i++)); do
    # Alternate the order so neither tool always runs on a cooler or warmer machine.
    if (( i % 2 )); then order="songcount jq"; else order="jq songcount"; fi
    for tool in $order; do
        if [ "$tool" = songcount ]; then
            read -r seconds peak < <(measure "$songcount" --target 100000h "$file")
            echo "$peak" >> "$data_dir/songcount.rss"
            songcount_out=$(cat "$data_dir/out.txt")
        else
            read -r seconds peak < <(measure jq -n '[inputs.duration_ms] | add' "$file")
            jq_out=$(cat "$data_dir/out.txt")
        fi
        echo "$seconds" >> "$data_dir/$tool.times"
        echo "run $i: $tool ${seconds}s" >&2
    done
done

# Both must agree on the total before their speed means anything.
songcount_total=$(echo "$songcount_out" | jq -r .total_duration_ms 2>/dev/null || echo "?")
[ "$songcount_total" = "$jq_out" ] || { echo "bench: totals differ: songcount $songcount_total, jq $jq_out" >&2; exit 70; }

s=$(median < "$data_dir/songcount.times")
j=$(median < "$data_dir/jq.times")
rss_kb=$(sort -n "$data_dir/songcount.rss" | tail -1)
echo "file: $file ($records records, $size_mb MB), $runs runs each, total_duration_ms $jq_out"
echo "songcount --target 100000h: median ${s}s ($(awk -v m="$size_mb" -v t="$s" 'BEGIN { printf "%.0f", m / t }') MB/s)"
echo "jq -n '[inputs.duration_ms] | add': median ${j}s ($(awk -v m="$size_mb" -v t="$j" 'BEGIN { printf "%.0f", m / t }') MB/s)"
echo "ratio (jq / songcount): $(awk -v a="$j" -v b="$s" 'BEGIN { printf "%.1f", a / b }')x   (target: >= 5x)"
echo "songcount peak RSS: $(awk -v k="$rss_kb" 'BEGIN { printf "%.1f", k / 1024 }') MB   (target: < 50 MB)"
