#!/usr/bin/env bash
# Labs 08, 09 and 10 beside their CUDA peers (peers/cuda), in one session on one GPU, and the
# ratio tables: lab 09's barriers against cooperative groups' grid.sync() and CUDA's relaunches,
# lab 08's best rungs against CUB's sum, lab 10's best sweep against its copy probe. The peers
# are built here with nvcc where it exists; without it the labs run alone. A measuring script,
# never a test: nothing here is asserted.
#
#   scripts/bench_peers.sh [--device nvidia] [--kernels DIR] [--trials 20] [--steps 1000]
#                          [--groups "132 256 1024 2048 4224"] [--sizes "20 24 26 28"]
#                          [--grid 8192x8192] [--out DIR]
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${SYNCLAB_BIN:-$top/build/bin}
device=nvidia kernels=$top/solutions trials=20 steps=1000 grid=8192x8192 out=
groups="132 256 1024 2048 4224" sizes="20 24 26 28"
while [ $# -gt 0 ]; do
    case $1 in
    --device | --kernels | --trials | --steps | --groups | --sizes | --grid | --out)
        [ $# -ge 2 ] || { echo "$1 needs a value" >&2; exit 2; }
        v=${1#--}; printf -v "$v" '%s' "$2"; shift 2 ;;
    *) echo "unknown option '$1': see the top of $0" >&2; exit 2 ;;
    esac
done
out=${out:-$(mktemp -d /tmp/synclab-peers-XXXXXX)}
mkdir -p "$out"
for lab in lab08_reduction_ladder lab09_interworkgroup_barrier lab10_laplace; do
    [ -x "$bin/$lab" ] || { echo "no $bin/$lab: build first (cmake --build build)" >&2; exit 2; }
done

peer=
if command -v nvcc >/dev/null; then
    if make -s -C "$top/peers/cuda" >"$out/peers_build.txt" 2>&1; then peer=$top/peers/cuda/bin
    else echo "the CUDA peers did not build (see $out/peers_build.txt): labs alone"; fi
else
    echo "no nvcc: the CUDA peers are skipped, the labs run alone"
fi

# csv FILE KEYCOL KEY COL: COL of the first row whose KEYCOL is KEY ("-" when none).
csv() {
    awk -F, -v kc="$2" -v k="$3" -v c="$4" '
        NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
        $col[kc] == k && !done { print $col[c]; done = 1 }
        END { if (!done) print "-" }' "$1" 2>/dev/null || echo -
}
# peer FILE NAME FIELD: the value after FIELD on the peer's line NAME ("-" when none).
peerval() {
    awk -v n="$2" -v f="$3" '$1 == "peer" && $2 == n { for (i = 3; i < NF; ++i) if ($i == f) { print $(i + 1); exit } }' \
        "$1" 2>/dev/null | grep . || echo -
}
num() { awk -v a="$1" 'BEGIN { if (a == "-" || a == "") print "-"; else printf "%.2f", a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.3f", a / b }'; }

echo "== lab 09 (groups of 64, $steps steps, n 4096, median of $trials)"
for g in $groups; do
    "$bin/lab09_interworkgroup_barrier" --device "$device" --kernels "$kernels" --groups "$g" \
        --wg 64 --steps "$steps" --skew 0 --trials "$trials" \
        --variant relaunch,centralized,decentralized,generation,hierarchical --csv "$out/lab09_$g.csv" \
        >"$out/lab09_$g.txt" 2>&1 || echo "lab 09 at $g groups: exit $? (see $out/lab09_$g.txt)"
    if [ -n "$peer" ]; then
        "$peer/grid_sync" "$g" 64 "$steps" "$trials" >"$out/peer09_$g.txt" 2>&1
        "$peer/relaunch" "$g" 64 "$steps" "$trials" >>"$out/peer09_$g.txt" 2>&1
    fi
done
echo "== lab 08 (median of $trials; CUB median of 50)"
for e in $sizes; do
    n=$((1 << e))
    "$bin/lab08_reduction_ladder" --device "$device" --kernels "$kernels" -n "$n" \
        --trials "$trials" --variant v7,v8 --csv "$out/lab08_$e.csv" >"$out/lab08_$e.txt" 2>&1 ||
        echo "lab 08 at 2^$e: exit $? (see $out/lab08_$e.txt)"
    [ -n "$peer" ] && "$peer/cub_sum" "$n" 50 >"$out/peer08_$e.txt" 2>&1
done
echo "== lab 10 ($grid, 100 sweeps, 2 rows a work-item)"
"$bin/lab10_laplace" --device "$device" --kernels "$kernels" --grid "$grid" --sweeps 100 \
    --variant rows4,shapes --shapes 128x1,256x1,512x1 --rows 2 --csv "$out/lab10.csv" >"$out/lab10.txt" 2>&1 ||
    echo "lab 10: exit $? (see $out/lab10.txt)"

echo
echo "## lab 09: us per step, groups of 64 (best: the cheapest barrier inside one launch)"
echo "| groups | grid.sync | hierarchical | generation | centralized | decentralized | best / grid.sync | OpenCL relaunch wait / best | CUDA wait / queue / graph | OpenCL relaunch wait / queue |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for g in $groups; do
    f=$out/lab09_$g.csv p=$out/peer09_$g.txt
    gs=$(peerval "$p" grid_sync us_per_step)
    ge=$(num "$(csv "$f" method generation per_sync_us)") ce=$(num "$(csv "$f" method centralized per_sync_us)")
    de=$(num "$(csv "$f" method decentralized per_sync_us)")
    hi=$(num "$(csv "$f" method hierarchical per_sync_us)")
    best=$(printf '%s\n' "$ge" "$ce" "$de" "$hi" | grep -v '^-$' | sort -g | head -1)
    rw=$(num "$(csv "$f" method relaunch_wait per_sync_us)") rq=$(num "$(csv "$f" method relaunch_queue per_sync_us)")
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s / %s / %s | %s / %s |\n' "$g" "$gs" "$hi" "$ge" \
        "$ce" "$de" "$(ratio "${best:--}" "$gs")" "$(ratio "$rw" "${best:--}")" "$(peerval "$p" relaunch_wait us_per_step)" \
        "$(peerval "$p" relaunch_queue us_per_step)" "$(peerval "$p" relaunch_graph us_per_step)" "$rw" "$rq"
done
echo
echo "## lab 08: GB/s"
echo "| n | CUB | v7 | v8 | best / CUB |"
echo "| --- | --- | --- | --- | --- |"
for e in $sizes; do
    f=$out/lab08_$e.csv
    cub=$(peerval "$out/peer08_$e.txt" cub_sum gbps)
    v7=$(num "$(csv "$f" rung v7 gbps)") v8=$(num "$(csv "$f" rung v8 gbps)")
    best=$(awk -v a="$v7" -v b="$v8" 'BEGIN { if (a == "-") print b; else if (b == "-" || a + 0 > b + 0) print a; else print b }')
    printf '| 2^%s | %s | %s | %s | %s |\n' "$e" "$cub" "$v7" "$v8" "$(ratio "$best" "$cub")"
done
echo
echo "## lab 10 ($grid): $(grep -h '^device copy' "$out/lab10.txt" 2>/dev/null || echo 'no result')"
echo
echo "raw results: $out"
