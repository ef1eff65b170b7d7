#!/usr/bin/env bash
# Draws lab 08's bars (each rung as % of the copy bandwidth, and of the host peer on a CPU
# device) from its CSV with gnuplot (handouts/plots/08_reduction_ladder.gp).
#   scripts/plot_08_reduction_ladder.sh FILE.csv [OUT.png] [DEVICE NAME]
# Make the CSV with: ./build/bin/lab08_reduction_ladder --csv FILE.csv
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/plot_common.sh
plot_check lab08_reduction_ladder "$@"
csv=$1
if ! head -1 "$csv" | grep -q '^rung,kernel,device,.*pct_of_copy,host_gbps,pct_of_host'; then
  echo "$csv is not a lab08_reduction_ladder --csv file (its first line should start rung,kernel,device)" >&2
  exit 2
fi
out=${2:-${csv%.csv}.png}
# The device named in the CSV unless one is given; a second bar series where a host peer ran.
device=${3:-$(awk -F, 'NR == 2 { print $3 }' "$csv")}
host=$(awk -F, 'NR > 1 && $15 != "" { found = 1 } END { print found ? 1 : 0 }' "$csv")
gnuplot -e "csv='$csv'; out='$out'; device='${device//\'/}'; host=$host" handouts/plots/08_reduction_ladder.gp
echo "wrote $out"
