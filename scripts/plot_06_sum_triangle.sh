#!/usr/bin/env bash
# Draws lab 06's wrong-answer rate against N (no barrier, a local fence, a global fence) from its
# --sweep CSV with gnuplot (handouts/plots/06_sum_triangle.gp).
#   scripts/plot_06_sum_triangle.sh FILE.csv [OUT.png] [DEVICE NAME]
# Make the CSV with: ./build/bin/lab06_sum_triangle --sweep --csv FILE.csv
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/plot_common.sh
plot_check lab06_sum_triangle "$@"
csv=$1
plot_columns "lab06_sum_triangle --csv" sweep variant n trials wrong_rate
if ! awk -F, -v c="$(col sweep)" 'NR > 1 && $c == 1 { found = 1 } END { exit !found }' "$csv"; then
  echo "$csv has no sweep rows: make it with lab06_sum_triangle --sweep --csv $csv" >&2
  exit 2
fi
out=${2:-${csv%.csv}.png}
device=${3:-this device}
trials=$(awk -F, -v c="$(col sweep)" -v t="$(col trials)" 'NR > 1 && $c == 1 { print $t; exit }' "$csv")
gnuplot -e "csv='$csv'; out='$out'; device='${device//\'/}'; trials=$trials" handouts/plots/06_sum_triangle.gp
echo "wrote $out"
