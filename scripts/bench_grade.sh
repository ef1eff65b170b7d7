#!/usr/bin/env bash
# Benchmark (not a test): grades a generated class of N students x every lab once for each -j
# given (default: 1 and 2), and prints the wall time of each run and the cost of one
# (student, lab). The gradebooks must agree row for row.
# Usage: scripts/bench_grade.sh [N=200] [J...]   (from any folder, after a build)
# BENCH_LABS=01,02,... grades only those labs (as an earlier measurement did); BENCH_GRADER=PATH
# times another build's grader (beside its own labs) on the same class; BENCH_DEVICE=SPEC gives
# the grader --device SPEC (e.g. nvidia: the dynamic runs on a GPU); BENCH_ARGS gives it more
# options (e.g. --no-stress, the grading before the stress schedules); BENCH_KEEP=DIR keeps the
# gradebooks there (gJ.csv for -j J).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200}
shift || true
runs=("$@")
[ ${#runs[@]} -gt 0 ] || runs=(1 2)
case "$n${runs[*]}" in *[!0-9\ ]*) echo "usage: scripts/bench_grade.sh [STUDENTS] [JOBS...]" >&2; exit 2 ;; esac
grader=${BENCH_GRADER:-build/bin/synclab-grade}
[ -x "$grader" ] || { echo "bench_grade: build first (bash scripts/setup.sh)" >&2; exit 2; }
lab_args=()
[ -z "${BENCH_LABS:-}" ] || lab_args=(--labs "$BENCH_LABS")
[ -z "${BENCH_DEVICE:-}" ] || lab_args+=(--device "$BENCH_DEVICE")
# shellcheck disable=SC2206  # words on purpose: BENCH_ARGS="--no-stress"
[ -z "${BENCH_ARGS:-}" ] || lab_args+=($BENCH_ARGS)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A class as a class looks: a third finished every lab, a third handed in the starters, a third
# a broken lab 01 (each kind of failure the fixtures hold) beside finished others.
fixtures=(tests/fixtures/submissions/*/01_workgroup_reduce.cl)
# and lab 01's fixtures kept as patches against the solution, applied (each in a folder of its own)
for p in tests/fixtures/patches/*.patch; do
  grep -q '^--- solutions/01_workgroup_reduce.cl' "$p" || continue
  f="$work/fixtures/$(basename "$p" .patch)/01_workgroup_reduce.cl"
  mkdir -p "$(dirname "$f")"
  cp solutions/01_workgroup_reduce.cl "$f" && patch -s "$f" < "$p" && fixtures+=("$f")
done
for i in $(seq 1 "$n"); do
  d="$work/class/s$(printf %03d "$i")"
  mkdir -p "$d"
  case $((i % 3)) in
    0) cp solutions/*.cl "$d/" ;;
    1) cp kernels/*.cl "$d/" ;;
    2) cp solutions/*.cl "$d/"; cp "${fixtures[$((i % ${#fixtures[@]}))]}" "$d/" ;;
  esac
done
if [ -n "${BENCH_LABS:-}" ]; then labs=$(tr ',' '\n' <<<"$BENCH_LABS" | grep -c .)
else labs=$("$grader" --list-labs | wc -l); fi
pairs=$((n * labs))
echo "class: $n students x $labs labs = $pairs (student, lab) pairs; $(nproc) cores;" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg) before"
for j in "${runs[@]}"; do
  start=$(date +%s.%N)
  rc=0
  "$grader" --class "$work/class" "${lab_args[@]}" -j "$j" --timeout 30 --csv "$work/g$j.csv" \
    --junit "$work/junit$j" >"$work/log$j" 2>&1 || rc=$?
  end=$(date +%s.%N)
  [ "$rc" -le 1 ] || { echo "bench_grade: the grader exited $rc:" >&2; tail -3 "$work/log$j" >&2; exit 1; }
  [ "$j" != "${runs[0]}" ] || grep '^note:' "$work/log$j" || true  # no sandbox, no Oclgrind
  awk -v s="$start" -v e="$end" -v p="$pairs" -v j="$j" -v l="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
    printf "-j %-3d %8.1f s in all, %6.2f s per (student, lab); load average %s after\n",
           j, e - s, (e - s) / p, l }'
done
for j in "${runs[@]}"; do
  if ! cmp -s <(cut -d, -f1-4 "$work/g${runs[0]}.csv") <(cut -d, -f1-4 "$work/g$j.csv"); then
    echo "bench_grade: -j ${runs[0]} and -j $j graded differently" >&2
    exit 1
  fi
done
[ ${#runs[@]} -lt 2 ] || echo "the gradebooks agree row for row"
# What the class was graded as, by kind: the bench is only worth its time if the grades are right.
tail -n +2 "$work/g${runs[0]}.csv" | grep -v '^[^,]*,total,' | cut -d, -f3,4 | sort | uniq -c | sort -rn
[ -z "${BENCH_KEEP:-}" ] || { mkdir -p "$BENCH_KEEP" && cp "$work"/g*.csv "$BENCH_KEEP/"; }
