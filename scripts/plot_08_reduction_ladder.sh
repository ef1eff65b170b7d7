#!/usr/bin/env bash
# Draws lab 08's bars (each rung as % of the read bandwidth, of CLBlast's sum where it ran, and
# of the host peer on a CPU device) from its CSV with gnuplot (handouts/plots/08_reduction_ladder.gp).
#   scripts/plot_08_reduction_ladder.sh FILE.csv [OUT.png] [DEVICE NAME]
# Make the CSV with: ./build/bin/lab08_reduction_ladder --csv FILE.csv
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/plot_common.sh
plot_check lab08_reduction_ladder "$@"
csv=$1
plot_columns "lab08_reduction_ladder --csv" rung device pct_of_read x_clblast pct_of_host
out=${2:-${csv%.csv}.png}
# The device named in the CSV unless one is given; a second bar series where a host peer ran.
device=${3:-$(awk -F, -v c="$(col device)" 'NR == 2 { print $c }' "$csv")}
host=$(awk -F, -v c="$(col pct_of_host)" 'NR > 1 && $c != "" { found = 1 } END { print found ? 1 : 0 }' "$csv")
blas=$(awk -F, -v c="$(col x_clblast)" 'NR > 1 && $c != "" { found = 1 } END { print found ? 1 : 0 }' "$csv")
gnuplot -e "csv='$csv'; out='$out'; device='${device//\'/}'; host=$host; blas=$blas" handouts/plots/08_reduction_ladder.gp
echo "wrote $out"
