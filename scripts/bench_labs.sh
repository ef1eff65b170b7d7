#!/usr/bin/env bash
# Benchmark (not a test): times every lab's default run (no -n, no --trials) on one device, as a
# student reruns it after each edit, and prints a table. Each lab runs once untimed (the
# device's kernel cache fills), then RUNS times; the table shows the median and the slowest
# wall time, and flags a lab whose slowest run is 2 s or more.
# Usage: scripts/bench_labs.sh [--device D] [--kernels DIR=solutions] [--runs N=3]
#   (from any folder, after a build; labs are the labs/NN_topic folders with an executable)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SYNCLAB_BIN:-$root/build/bin}  # another build's labs, as bench_peers.sh takes them
device=() kernels=$root/solutions runs=3
while [ $# -gt 0 ]; do
  case $1 in
    --device) device=(--device "$2"); shift 2 ;;
    --kernels) kernels=$(cd "$2" && pwd); shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    *) echo "usage: scripts/bench_labs.sh [--device D] [--kernels DIR] [--runs N]" >&2; exit 2 ;;
  esac
done
case $runs in ''|*[!0-9]*|0) echo "bench_labs: --runs takes a whole number from 1" >&2; exit 2 ;; esac
[ -d "$bin" ] || { echo "bench_labs: no $bin: build first (bash scripts/setup.sh), or point SYNCLAB_BIN at a bin folder" >&2; exit 2; }
now() { date +%s.%N; }
printf '%-26s %6s %9s %9s  %s\n' lab exit median_s max_s "default size (from the lab's first line)"
slow=0
for dir in "$root"/labs/[0-9][0-9]_*/; do
  id=$(basename "$dir")
  exe=$bin/lab$id
  if [ ! -x "$exe" ]; then printf '%-26s %6s\n' "lab$id" "not built"; continue; fi
  "$exe" "${device[@]}" --kernels "$kernels" >/dev/null 2>&1 || true
  times=() rc=0 first=
  for _ in $(seq "$runs"); do
    t0=$(now)
    out=$("$exe" "${device[@]}" --kernels "$kernels" 2>&1) && rc=0 || rc=$?
    t1=$(now)
    times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')")
    first=${out%%$'\n'*}
  done
  sorted=($(printf '%s\n' "${times[@]}" | sort -g))
  median=${sorted[$(( (runs - 1) / 2 ))]} max=${sorted[$((runs - 1))]}
  flag=
  if awk -v m="$max" 'BEGIN { exit !(m >= 2) }'; then flag="  (2 s or more)"; slow=1; fi
  # The banner: "labNN on PLATFORM / DEVICE: <what>, seed N": keep <what>.
  what=${first#*: }
  what=${what%, seed *}
  printf '%-26s %6s %9.2f %9.2f  %s%s\n' "lab$id" "$rc" "$median" "$max" "${what:0:70}" "$flag"
done
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
exit $slow
