#!/usr/bin/env bash
# Draws lab 10's pictures with gnuplot: from a --csv file, GB/s per block shape of each kernel
# beside the device's copy bandwidth (handouts/plots/10_laplace_shapes.gp); from a --dump file,
# a heat map of the grid (handouts/plots/10_laplace_heat.gp).
#   scripts/plot_10_laplace.sh FILE.csv [OUT.png] [DEVICE NAME]
# Make the CSV with: ./build/bin/lab10_laplace --variant shapes --shapes all --csv FILE.csv
# or the grid with:  ./build/bin/lab10_laplace --grid 96x64 --sweeps 20000 --dump FILE.csv
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/plot_common.sh
plot_check lab10_laplace "$@"
csv=$1
out=${2:-${csv%.csv}.png}
device=${3:-$(basename "${csv%.csv}")}
device=${device//\'/}
if [ "$(head -1 "$csv" | tr -d '\r')" = "i,j,u" ]; then
  I=$(awk -F, 'NR > 1 && NF == 3 && $1 + 1 > m { m = $1 + 1 } END { print m + 0 }' "$csv")
  J=$(awk -F, 'NR > 1 && NF == 3 && $2 + 1 > m { m = $2 + 1 } END { print m + 0 }' "$csv")
  gnuplot -e "csv='$csv'; out='$out'; device='$device'; I=$I; J=$J" handouts/plots/10_laplace_heat.gp
  echo "wrote $out"
  exit 0
fi
plot_columns "lab10_laplace --csv (or --dump)" variant kernel block gbps copy_gbps verified
data=$(mktemp)
trap 'rm -f "$data"' EXIT
# One row per block shape in the order run: "block naive tiled rows" (GB/s; 0 when not verified
# or not run), from the shapes variant's rows; the copy bandwidth beside.
awk -F, -v v="$(col variant)" -v k="$(col kernel)" -v b="$(col block)" -v g="$(col gbps)" \
    -v c="$(col copy_gbps)" -v ok="$(col verified)" '
  NR > 1 && $v == "shapes" {
    if (!($b in seen)) { seen[$b] = ++n; name[n] = $b }
    gb[$b, $k] = $ok == 1 ? $g : 0
    if ($c > copy) copy = $c
  }
  END {
    print "block naive tiled rows copy"
    for (i = 1; i <= n; i++)
      printf "%s %s %s %s %s\n", name[i], gb[name[i], "jacobiNaive"] + 0,
             gb[name[i], "jacobiTiled"] + 0, gb[name[i], "jacobiRows"] + 0, copy + 0
  }
' "$csv" > "$data"
if [ "$(wc -l < "$data")" -lt 2 ]; then
  echo "$csv has no rows of the shapes variant: run lab10_laplace --variant shapes --csv FILE" >&2
  exit 2
fi
gnuplot -e "data='$data'; out='$out'; device='$device'" handouts/plots/10_laplace_shapes.gp
echo "wrote $out"
