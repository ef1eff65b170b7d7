#!/usr/bin/env bash
# Where lab 09's barrier time goes: the generation barrier taken apart. Each part is a copy of the
# solution file whose generation_barrier (and, for "barrier", the step) is replaced by one of the
# forms below; the lab runs each as its `generation` variant, so the workload, the launch and
# the timing are the lab's own. Forms that leave something out are wrong on purpose (the lab
# says so); only their time is read. A measuring script, never a test: nothing here is asserted.
#
#   scripts/bench_lab09_parts.sh [--device nvidia] [--groups "132 256 1024"] [--steps 1000]
#                                [--trials 20] [--parts "step full nofence red red-nofence barrier"]
#
# Parts: step (the step and the group's own barriers, no wait between groups), full (the
# solution's generation barrier), nofence (without its two fences), red (the arrival's result
# unused: the flip each group waits for is its step's parity, so the add need not come back),
# red-nofence, barrier (the full barrier with no step work between barriers), bitmask (below).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${SYNCLAB_BIN:-$top/build/bin}
device=nvidia groups="132 256 1024" steps=1000 trials=20
parts="step full nofence red red-nofence barrier bitmask"
while [ $# -gt 0 ]; do
    case $1 in
    --device | --groups | --steps | --trials | --parts)
        [ $# -ge 2 ] || { echo "$1 needs a value" >&2; exit 2; }
        v=${1#--}; printf -v "$v" '%s' "$2"; shift 2 ;;
    *) echo "unknown option '$1': see the top of $0" >&2; exit 2 ;;
    esac
done
lab=$bin/lab09_interworkgroup_barrier
[ -x "$lab" ] || { echo "no $lab: build first (cmake --build build)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=$top/solutions/09_interworkgroup_barrier.cl

# The body of each part's generation_barrier(ctl, me, groups, budget, go, s).
body() {
    local fence='mem_fence(CLK_GLOBAL_MEM_FENCE);'
    case $1 in step) echo 'barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE); return 1;'; return ;;
    bitmask) bitmask; return ;;
    nofence | red-nofence) fence= ;;
    esac
    local arrive='const uint old = atomic_add(&ctl[COUNT], me == 0 ? FLIP - (groups - 1) : 1u);'
    case $1 in red | red-nofence)
        arrive='atomic_add(&ctl[COUNT], me == 0 ? FLIP - (groups - 1) : 1u); const uint old = (s & 1) ? FLIP : 0u;' ;;
    esac
    cat <<EOF
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        $fence
        $arrive
        uint spins = 0;
        int ok = 1;
        while (!((old ^ ctl[COUNT]) & FLIP))
            if ((++spins & 63) == 0 && !(ok = keep_waiting(ctl, &spins, budget))) break;
        *go = ok;
        $fence
    }
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    return *go;
EOF
}

# A flag bit a group, 32 to a word, in two sets used by turns: a group flips its bit with an
# atomic whose result it never reads; the group's work-items each watch words of the set until
# every bit is what that use leaves (set after the set's even uses, clear after its odd ones).
bitmask() {
    cat <<'EOF'
    const uint words = (groups + 31) / 32, stride = (words + 31) & ~31u, use = s >> 1;
    __global volatile uint *set = flags + (s & 1) * stride;
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        atomic_xor(&set[me / 32], 1u << (me % 32));
    }
    for (uint w = get_local_id(0); w < words; w += get_local_size(0)) {
        const uint bits = min(32u, groups - w * 32);
        const uint want = (use & 1) ? 0u : bits == 32 ? 0xffffffffu : (1u << bits) - 1;
        uint spins = 0;
        while (set[w] != want)
            if ((++spins & 63) == 0 && !keep_waiting(ctl, &spins, budget)) { *go = 0; break; }
    }
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    return *go;
EOF
}

make_part() {  # make_part PART DIR: the solution with that part's generation barrier
    mkdir -p "$2"
    BODY=$(body "${1/barrier/full}") PART=$1 perl -0pe '
        s/(int generation_barrier\([^)]*__local volatile int \*go)\)\s*\{.*?\n\}\n/$1, uint s, __global volatile uint *flags) {\n$ENV{BODY}\n}\n/s;
        s/generation_barrier\(ctl, me, parts, budget, &go\)/generation_barrier(ctl, me, parts, budget, &go, s, flags)/;
        s/\n(\s*)do_step_shared\(/\n$1if (0) do_step_shared(/ if $ENV{PART} eq "barrier";
    ' "$src" >"$2/09_interworkgroup_barrier.cl"
    grep -q 'int \*go, uint s, __global' "$2/09_interworkgroup_barrier.cl" ||
        { echo "bench_lab09_parts: could not make part $1 (has the solution changed?)" >&2; exit 2; }
}

printf '%-7s' groups
for p in $parts; do printf ' %12s' "$p"; done
echo "   (us per step, median of $trials, $steps steps, groups of 64; * wrong answer)"
for p in $parts; do make_part "$p" "$work/$p"; done
for g in $groups; do
    printf '%-7s' "$g"
    for p in $parts; do
        o=$("$lab" --device "$device" --kernels "$work/$p" --groups "$g" --wg 64 --steps "$steps" \
            --skew 0 --trials "$trials" --variant generation --csv "$work/$p-$g.csv" 2>&1)
        us=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
                      $c["method"] == "generation" { printf "%.3f%s", $c["per_sync_us"], $c["verified"] == 1 ? "" : "*"; exit }' \
            "$work/$p-$g.csv" 2>/dev/null)
        printf ' %12s' "${us:--}"
        [ -n "$us" ] || echo "$o" | tail -n 2 >&2
    done
    echo
done
