#!/usr/bin/env bash
# Benchmark (not a test): how often ONE stress schedule fails a file, and what a schedule costs.
# Runs the lab of a stress fixture (tests/fixtures/stress/NAME.patch, applied to the file it
# names) or of a solution (NAME = solution-NN), RUNS times with `--stress 1` and fresh seeds, two
# processes at a time (as the grader's -j 2 runs them) unless BENCH_PAR says, with the lab's
# declared stress arguments and the environment the grader gives a stress run (the lab sets it).
# Prints how many runs failed and the mean wall and CPU seconds of one process (its build
# included). A lab's `stress_schedules` is then the fewest N with 1 - (1 - p)^N of about 0.99
# (docs/adding-a-lab.md).
# Usage: scripts/bench_stress_rate.sh NAME [RUNS=30]   (from any folder, after a build)
# BENCH_PAR=P runs P processes at a time (default 2; 1: each alone); BENCH_SET="--steps 256"
# gives an option of the lab's stress arguments another value (or adds it), "--opt V" pairs.
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:-}
runs=${2:-30}
case "$runs" in '' | *[!0-9]*) echo "usage: scripts/bench_stress_rate.sh NAME [RUNS]" >&2; exit 2 ;; esac
[ "$runs" -gt 0 ] || { echo "bench_stress_rate: give RUNS of 1 or more" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case "$name" in
  solution-[0-9][0-9])
    matches=(solutions/"${name#solution-}"_*.cl)
    base=${matches[0]}
    [ -f "$base" ] || { echo "bench_stress_rate: no solutions/${name#solution-}_*.cl" >&2; exit 2; }
    cp "$base" "$work/" ;;
  *)
    p=tests/fixtures/stress/$name.patch
    [ -f "$p" ] || { echo "bench_stress_rate: no $p: name a fixture there or solution-NN" >&2; exit 2; }
    base=$(grep -m1 '^--- ' "$p" | cut -c5-)
    cp "$base" "$work/" && patch -s "$work/$(basename "$base")" <"$p" ;;
esac
stem=$(basename "$base" .cl)
exe=build/bin/lab$stem
[ -x "$exe" ] || { echo "bench_stress_rate: build first (bash scripts/setup.sh)" >&2; exit 2; }
line=$("$exe" --describe | grep $'^stress\t' || true)
[ -n "$line" ] || { echo "bench_stress_rate: lab $stem declares no stress schedules" >&2; exit 2; }
IFS=$'\t' read -r -a fields <<<"$line"
args=("${fields[@]:2}")
par=${BENCH_PAR:-2}
[[ $par =~ ^[1-9][0-9]*$ ]] || { echo "bench_stress_rate: BENCH_PAR takes a count of 1 or more" >&2; exit 2; }
read -r -a set_args <<<"${BENCH_SET:-}"
[ $((${#set_args[@]} % 2)) = 0 ] ||
  { echo "bench_stress_rate: BENCH_SET takes option-value pairs (\"--steps 256\")" >&2; exit 2; }
for ((k = 0; k + 1 < ${#set_args[@]}; k += 2)); do
  found=0
  for i in "${!args[@]}"; do
    [ "${args[$i]}" = "${set_args[$k]}" ] && [ $((i + 1)) -lt ${#args[@]} ] && { args[i+1]=${set_args[k+1]}; found=1; }
  done
  [ $found = 1 ] || args+=("${set_args[$k]}" "${set_args[$((k + 1))]}")
done
one() {  # one seed: "exit-code wall-seconds cpu-seconds"
  local s e TIMEFORMAT='%U %S' rc=0
  s=$(date +%s.%N)
  # The caller's POCL settings left out: the lab sets the grader's own for a stress run.
  { time env -u POCL_WORK_GROUP_SPECIALIZATION -u POCL_MAX_PTHREAD_COUNT -u POCL_CPU_MAX_CU_COUNT \
      -u POCL_CPU_MIN_CU_COUNT -u POCL_PTHREAD_MIN_THREADS \
      POCL_CACHE_DIR="$work/cache$1" timeout 300 "$exe" --kernels "$work" --stress 1 \
      --seed "$1" "${args[@]}" >/dev/null 2>&1 || rc=$?; } 2>"$work/time$1"
  e=$(date +%s.%N)
  echo "$rc $(awk -v s="$s" -v e="$e" 'BEGIN { print e - s }') $(awk '{ print $1 + $2 }' "$work/time$1")"
}
first=$(( (RANDOM << 15 | RANDOM) + 1 ))
for ((i = 0; i < runs; i += par)); do
  for ((j = i; j < i + par && j < runs; j++)); do one $((first + j)) >"$work/r$j" & done
  wait
done
cat "$work"/r* | awk -v n="$name" -v a="${args[*]}" -v p="$par" '{ k++; if ($1 != 0) f++; w += $2; c += $3
    if ($1 != 0 && $1 != 1) o = o " exit " $1 }
  END { printf "%s: one schedule (%s) failed %d of %d runs, %d at a time; per process %.2f s wall, %.2f s CPU%s\n",
        n, a, f, k, p, w / k, c / k, o }'
