#!/usr/bin/env bash
# CPU time per request of one Benchmarks profile row, start-up subtracted:
# (task-clock of 5N requests − task-clock of N requests) / 4N, in microseconds.
#
#   swift build -c release --product Benchmarks
#   Scripts/cpu-per-request.sh .build/release/Benchmarks "session in-memory" 20000
#   Scripts/cpu-per-request.sh .build/release/Benchmarks "session in-memory chain" 20000
#
# Needs `perf` (linux-perf). Alternate builds and take medians: timings here move by ±20%.
set -euo pipefail
binary=$1
filter=$2
count=${3:-20000}
clock() {
  perf stat -x, -e task-clock "$binary" --profile "$1" --filter "$filter" 2>&1 >/dev/null | awk -F, '/task-clock/ { print $1 }'
}
small=$(clock "$count")
large=$(clock $((5 * count)))
python3 -c "print(round(($large - $small) * 1000 / (4 * $count), 2))"
