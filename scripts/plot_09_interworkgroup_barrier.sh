#!/usr/bin/env bash
# Draws lab 09's sweeps (time per step of each method vs work-groups or vs steps) from its CSV
# with gnuplot (handouts/plots/09_interworkgroup_barrier.gp).
#   scripts/plot_09_interworkgroup_barrier.sh FILE.csv [OUT.png] [DEVICE NAME]
# Make the CSV with: ./build/bin/lab09_interworkgroup_barrier --sweep groups --csv FILE.csv
# (or --sweep steps). Only verified runs are drawn.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/plot_common.sh
plot_check lab09_interworkgroup_barrier "$@"
csv=$1
plot_columns "lab09_interworkgroup_barrier --sweep --csv" sweep method groups steps work per_sync_us verified
sweep=$(awk -F, -v c="$(col sweep)" 'NR == 2 { print $c }' "$csv")
if [ "$sweep" != groups ] && [ "$sweep" != steps ]; then
  echo "$csv holds --sweep ${sweep:-nothing}: plot a --sweep groups or --sweep steps CSV" >&2
  exit 2
fi
out=${2:-${csv%.csv}.png}
device=${3:-$(basename "${csv%.csv}")}
data=$(mktemp)
trap 'rm -f "$data"' EXIT
# One block per method (and, for groups, per busy-loop work): "title" then "x us" rows.
awk -F, -v m="$(col method)" -v x="$(col "$sweep")" -v w="$(col work)" -v u="$(col per_sync_us)" \
    -v ok="$(col verified)" -v sweep="$sweep" '
  NR > 1 && $ok == 1 {
    key = $m (sweep == "groups" ? "_work" $w : "")
    if (!(key in seen)) { seen[key] = ++n; name[n] = key }
    rows[seen[key]] = rows[seen[key]] $x " " $x " " $u "\n"
  }
  END { for (i = 1; i <= n; i++) printf "%s%s\n%s", (i > 1 ? "\n\n" : ""), name[i], rows[i] }
' "$csv" > "$data"
blocks=$(grep -c '^[a-z]' "$data" || true)
gnuplot -e "data='$data'; out='$out'; device='${device//\'/}'; xname='$sweep'; blocks=$blocks" \
  handouts/plots/09_interworkgroup_barrier.gp
echo "wrote $out"
