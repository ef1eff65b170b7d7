#!/usr/bin/env bash
# Benchmark (not a test): grades a generated class of N students x every lab, once with -j 1 and
# once with -j J, and prints the wall time of each and the cost of one (student, lab).
# Usage: scripts/bench_grade.sh [N=200] [J=2]   (from the top of the source tree, after a build)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200}
jobs=${2:-2}
case "$n$jobs" in *[!0-9]*) echo "usage: scripts/bench_grade.sh [STUDENTS] [JOBS]" >&2; exit 2 ;; esac
grader=build/bin/synclab-grade
[ -x "$grader" ] || { echo "bench_grade: build first (bash scripts/setup.sh)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A class as a class looks: a third finished every lab, a third handed in the starters, a third
# a broken lab 01 (each kind of failure the fixtures hold) beside finished others.
fixtures=(tests/fixtures/submissions/*/01_workgroup_reduce.cl)
for i in $(seq 1 "$n"); do
  d="$work/class/s$(printf %03d "$i")"
  mkdir -p "$d"
  case $((i % 3)) in
    0) cp solutions/*.cl "$d/" ;;
    1) cp kernels/*.cl "$d/" ;;
    2) cp solutions/*.cl "$d/"; cp "${fixtures[$((i % ${#fixtures[@]}))]}" "$d/" ;;
  esac
done
labs=$("$grader" --list-labs | wc -l)
pairs=$((n * labs))
echo "class: $n students x $labs labs = $pairs (student, lab) pairs; $(nproc) cores"
for j in 1 "$jobs"; do
  start=$(date +%s.%N)
  rc=0
  "$grader" --class "$work/class" -j "$j" --timeout 30 --csv "$work/g$j.csv" \
    --junit "$work/junit$j" >"$work/log$j" 2>&1 || rc=$?
  end=$(date +%s.%N)
  [ "$rc" -le 1 ] || { echo "bench_grade: the grader exited $rc:" >&2; tail -3 "$work/log$j" >&2; exit 1; }
  awk -v s="$start" -v e="$end" -v p="$pairs" -v j="$j" 'BEGIN {
    printf "-j %-3d %8.1f s in all, %6.2f s per (student, lab)\n", j, e - s, (e - s) / p }'
done
if ! cmp -s <(cut -d, -f1-4 "$work/g1.csv") <(cut -d, -f1-4 "$work/g$jobs.csv"); then
  echo "bench_grade: -j 1 and -j $jobs graded differently" >&2
  exit 1
fi
echo "the two gradebooks agree row for row"
