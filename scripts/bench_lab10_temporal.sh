#!/usr/bin/env bash
# Lab 10's temporally blocked sweep against its best one-sweep kernel (rows4) and the copy probe,
# over work-group widths, sweeps a pass (--fuse) and band heights (--band), each in one process
# with rows4 beside it: the ratio is of one run. Every row is verified bit for bit against the
# host's sweeps by the lab itself. A measuring script, never a test: nothing here is asserted.
#
#   scripts/bench_lab10_temporal.sh [--device nvidia] [--kernels DIR] [--grid 8192x8192]
#       [--sweeps 96] [--blocks "256x1 1024x1"] [--fuses "4 8 16"] [--bands "256 1024"]
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${SYNCLAB_BIN:-$top/build/bin}
device=nvidia kernels=$top/solutions grid=8192x8192 sweeps=96
blocks="256x1 1024x1" fuses="4 8 16" bands="256 1024"
while [ $# -gt 0 ]; do
    case $1 in
    --device | --kernels | --grid | --sweeps | --blocks | --fuses | --bands)
        [ $# -ge 2 ] || { echo "$1 needs a value" >&2; exit 2; }
        v=${1#--}; printf -v "$v" '%s' "$2"; shift 2 ;;
    *) echo "unknown option '$1': see the top of $0" >&2; exit 2 ;;
    esac
done
lab=$bin/lab10_laplace
[ -x "$lab" ] || { echo "no $lab: build first (cmake --build build)" >&2; exit 2; }

printf '%-8s %5s %6s %12s %12s %8s  %s\n' block fuse band "sweeps/s" "rows4/s" ratio result
for b in $blocks; do
    for f in $fuses; do
        for h in $bands; do
            o=$("$lab" --device "$device" --kernels "$kernels" --grid "$grid" --sweeps "$sweeps" \
                --variant rows4,temporal --block "$b" --fuse "$f" --band "$h" 2>&1)
            # "temporal: R sweeps/s, ...; jacobiRows4 (rows4) S sweeps/s: X.XXx"
            line=$(grep -E '^temporal: [0-9.]+ sweeps/s' <<<"$o")
            result=$(grep -E '^jacobiTemporal' <<<"$o" | awk '{print $NF}')
            if [ -z "$line" ]; then
                printf '%-8s %5s %6s  %s\n' "$b" "$f" "$h" "$(tail -n 1 <<<"$o")"
                continue
            fi
            read -r t r x < <(sed -E 's/^temporal: ([0-9.]+) sweeps.*\(rows4\) ([0-9.]+) sweeps\/s: ([0-9.]+)x.*/\1 \2 \3/' <<<"$line")
            printf '%-8s %5s %6s %12s %12s %8s  %s\n' "$b" "$f" "$h" "$t" "$r" "$x" "${result:-?}"
        done
    done
done
