#!/usr/bin/env bash
# Benchmark (not a test): lab 08 on a CPU device, RUNS times at each size, one line a run: the
# bound (which read probe gave it, GB/s), every rung's and host peer's % of it, the best rung,
# the fastest host peer (median GB/s) and their ratio. A share above 100 % is flagged: it would
# mean the bound is wrong.
# Usage: scripts/bench_lab08_cpu.sh [--device D] [--kernels DIR=solutions] [--runs N=5]
#        [--sizes "16777216 67108864"]   (from any folder, after a build; SYNCLAB_BIN=DIR
#        takes the lab from another build's bin folder, as bench_peers.sh does)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
device=() kernels=$root/solutions runs=5 sizes="16777216 67108864"
while [ $# -gt 0 ]; do
  case $1 in
    --device) device=(--device "$2"); shift 2 ;;
    --kernels) kernels=$(cd "$2" && pwd); shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    *) echo "usage: scripts/bench_lab08_cpu.sh [--device D] [--kernels DIR] [--runs N] [--sizes \"N...\"]" >&2; exit 2 ;;
  esac
done
case $runs in ''|*[!0-9]*|0) echo "bench_lab08_cpu: --runs takes a whole number from 1" >&2; exit 2 ;; esac
exe=${SYNCLAB_BIN:-$root/build/bin}/lab08_reduction_ladder
[ -x "$exe" ] || { echo "bench_lab08_cpu: no $exe: build first (bash scripts/setup.sh), or point SYNCLAB_BIN at a bin folder" >&2; exit 2; }
above=0
printf '%-9s %3s %-13s %6s %5s %5s %5s %5s %5s %5s %5s %5s %6s %7s %-5s %6s %-13s %6s %6s\n' \
  n run bound GB/s v1 v2 v3 v4 v5 v6 v7 v8 OpenMP threads best GB/s "host peer" GB/s ratio
for n in $sizes; do
  for run in $(seq "$runs"); do
    out=$("$exe" "${device[@]}" --kernels "$kernels" -n "$n" 2>&1) ||
      { echo "bench_lab08_cpu: the lab failed at -n $n:"; echo "$out"; exit 1; } >&2
    line=$(awk -v n="$n" -v run="$run" '
      /^bound: read = / { gbps = $4; by = $7 }
      /^v[1-8] / && $NF == "verified" { pct[$1] = $7; if ($6 > best_gbps) { best_gbps = $6; best = $1 } }
      /^peer / && /verified/ { pct[$2] = $7; if ($6 > peer_gbps) { peer_gbps = $6; peer = $2 } }
      END {
        if (by == "") { print "no bound line (not a CPU device?)"; exit 1 }
        printf "%-9s %3s %-13s %6.1f", n, run, by, gbps
        split("v1 v2 v3 v4 v5 v6 v7 v8 OpenMP std::threads", cols, " ")
        for (c = 1; c <= 10; ++c) printf " %5s", (cols[c] in pct) ? pct[cols[c]] : "-"
        printf " %-5s %6.1f %-13s %6.1f %5.2fx\n", best, best_gbps, peer, peer_gbps,
               (peer_gbps > 0 ? best_gbps / peer_gbps : 0)
      }' <<<"$out")
    echo "$line"
    # Any share above 100 % of the bound.
    if awk '{ for (i = 5; i <= 14; ++i) if ($i != "-" && $i + 0 > 100) f = 1 } END { exit !f }' <<<"$line"; then
      above=1
      echo "  (above 100 % of the bound)"
    fi
  done
done
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
exit $above
