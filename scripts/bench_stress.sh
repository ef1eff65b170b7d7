#!/usr/bin/env bash
# Benchmark (not a test): how often the grader's stress schedules fail each protocol bug of
# tests/fixtures/stress, and never the solutions. Grades a class of those fixtures (one a
# student) and the solutions of labs 07, 09 and 10, RUNS times with fresh seeds (race check off:
# the fixtures pass it), then runs each failure's repeat command once. Prints, per (student, lab),
# how many runs failed it under a schedule and how many repeats failed again, and each run's time.
# Usage: scripts/bench_stress.sh [RUNS=20] [JOBS=2]   (from any folder, after a build)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
jobs=${2:-2}
case "$runs$jobs" in *[!0-9]*) echo "usage: scripts/bench_stress.sh [RUNS] [JOBS]" >&2; exit 2 ;; esac
grader=build/bin/synclab-grade
[ -x "$grader" ] || { echo "bench_stress: build first (bash scripts/setup.sh)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for p in tests/fixtures/stress/*.patch; do
  base=$(grep -m1 '^--- ' "$p" | cut -c5-)
  d="$work/class/$(basename "$p" .patch)"
  mkdir -p "$d"
  cp "$base" "$d/" && patch -s "$d/$(basename "$base")" < "$p"
done
mkdir -p "$work/class/solutions"
cp solutions/07_atomics.cl solutions/09_interworkgroup_barrier.cl solutions/10_laplace.cl "$work/class/solutions/"
echo "stress: $runs grader runs, -j $jobs, $(ls "$work/class" | wc -l) students; $(nproc) cores;" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg) before"
for i in $(seq 1 "$runs"); do
  start=$(date +%s.%N)
  "$grader" --class "$work/class" --labs 07,09,10 --no-oclgrind -j "$jobs" --timeout 60 \
    --csv "$work/g$i.csv" --junit "$work/junit" >"$work/log$i" 2>&1 || true
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" -v i="$i" 'BEGIN { printf "run %2d: %6.1f s\n", i, e - s }'
  # Each schedule that failed: its repeat command, once, from the class folder.
  grep -o 'repeat it: [^"]*' "$work/g$i.csv" | cut -c12- | while read -r cmd; do
    set +e
    (cd build/bin && eval "./$cmd" >/dev/null 2>&1)
    echo "$? $cmd" >>"$work/repeats"
    set -e
  done
done
echo
echo "student,lab,runs,failed under a schedule,other failures,passed"
cat "$work"/g*.csv | awk -F, 'NR > 1 && $1 != "student" && $4 != "missing" {
    k = $1 "," $2; n[k]++
    if ($4 == "stress") s[k]++; else if ($3 == "pass") p[k]++; else o[k]++ }
  END { for (k in n) printf "%s,%d,%d,%d,%d\n", k, n[k], s[k], o[k], p[k] }' | sort
echo
if [ -f "$work/repeats" ]; then
  echo "repeat commands: $(wc -l <"$work/repeats") run once each, $(grep -c '^1 ' "$work/repeats") failed again"
fi
