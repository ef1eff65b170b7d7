#!/usr/bin/env bash
# Draws lab 05's slowdown against k from its CSV with gnuplot (handouts/plots/05_divergence.gp).
#   scripts/plot_05_divergence.sh FILE.csv [OUT.png] [DEVICE NAME]
# Make the CSV with: ./build/bin/lab05_divergence --csv FILE.csv
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/plot_common.sh
plot_check lab05_divergence "$@"
csv=$1
out=${2:-${csv%.csv}.png}
device=${3:-this device}
gnuplot -e "csv='$csv'; out='$out'; device='$device'" handouts/plots/05_divergence.gp
echo "wrote $out"
