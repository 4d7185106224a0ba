# Sourced by the benchmarks (after their cd to the repository root): the clock and the median
# every script reports.

# Now, in seconds with nanoseconds.
now() { date +%s.%N; }
# The median of the numbers on stdin, one per line.
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
