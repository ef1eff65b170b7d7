#!/usr/bin/env bash
# Benchmark (not a test): times each lab's race check on Oclgrind as the grader runs it (its
# graded variants, its declared race-check arguments, OCLGRIND_NUM_THREADS from its
# `oclgrind-groups` record, else 1) on the solutions, RUNS times after one untimed run, and prints
# the median and slowest wall time per lab.
# Usage: scripts/bench_racecheck.sh [--bin DIR=build/bin] [--kernels DIR=solutions] [--runs N=5]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/build/bin kernels=$root/solutions runs=5
while [ $# -gt 0 ]; do
  case $1 in
    --bin) bin=$(cd "$2" && pwd); shift 2 ;;
    --kernels) kernels=$(cd "$2" && pwd); shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    *) echo "usage: scripts/bench_racecheck.sh [--bin DIR] [--kernels DIR] [--runs N]" >&2; exit 2 ;;
  esac
done
case $runs in ''|*[!0-9]*|0) echo "bench_racecheck: --runs takes a whole number from 1" >&2; exit 2 ;; esac
command -v oclgrind >/dev/null || { echo "bench_racecheck: install oclgrind first" >&2; exit 2; }
now() { date +%s.%N; }
printf '%-28s %7s %5s %9s %9s\n' lab threads exit median_s max_s
for exe in "$bin"/lab[0-9][0-9]_*; do
  [ -x "$exe" ] || continue
  desc=$("$exe" --describe) || continue
  race=$(printf '%s\n' "$desc" | awk -F'\t' '$1 == "race" { $1 = ""; print substr($0, 2) }')
  [ -n "$race" ] || continue
  variants=$(printf '%s\n' "$desc" |
    awk -F'\t' '$1 == "variant" && $4 !~ /demonstration|ungraded/ { v = v (v ? "," : "") $2 } END { print v }')
  threads=$(printf '%s\n' "$desc" | awk -F'\t' '$1 == "oclgrind-groups" { print $2 }')
  threads=${threads:-1}
  # shellcheck disable=SC2086
  cmd=(env OCLGRIND_NUM_THREADS="$threads" "$exe" --kernels "$kernels" --device oclgrind
       --variant "$variants" $race)
  "${cmd[@]}" >/dev/null 2>&1 || true
  times=() rc=0
  for _ in $(seq "$runs"); do
    t0=$(now)
    "${cmd[@]}" >/dev/null 2>&1 || rc=$?
    times+=("$(awk -v a="$(now)" -v b="$t0" 'BEGIN { print a - b }')")
  done
  sorted=$(printf '%s\n' "${times[@]}" | sort -g)
  median=$(printf '%s\n' "$sorted" | sed -n "$(( (runs + 1) / 2 ))p")
  max=$(printf '%s\n' "$sorted" | tail -1)
  printf '%-28s %7s %5s %9.2f %9.2f\n' "$(basename "$exe")" "$threads" "$rc" "$median" "$max"
done
