// Lab 09 (solution): barriers between work-groups. Every kernel runs the same workload: `steps`
// steps of a 1D computation on unsigned integers, in ping-pong buffers a and b, where each
// element's new value reads elements owned by other work-groups in the previous step. So every
// step needs every group's previous step finished: a barrier between work-groups.
//
// OpenCL has no such barrier. barrier() waits for the work-items of ONE group. Groups that are not
// resident (not yet started, waiting for a free compute unit) cannot be waited for: a group that
// spins for them holds the compute unit they need. Every spin here therefore has a budget; a group
// that runs out of it raises ctl[GAVE_UP], which every other spin also watches, and all stop.

// The control words (one buffer, zeroed by the host before each launch).
#define GAVE_UP 0  // set by the first group whose wait runs out of budget
#define COUNT 1    // centralized: groups arrived at the current barrier
#define GEN 2      // centralized: barriers completed (the generation the waiters watch)
#define POLL 3     // discovery: groups registered, with CLOSED once the poll is closed
#define CLOSED 0x80000000u

// One step of the workload for the groups `me`, me + parts, ... of `parts` taking part: element i
// reads its two neighbours and the element half the array away, so every group reads others'.
uint mix(uint x, uint work) {
    for (uint k = 0; k < work; ++k) x = x * 1664525u + 1013904223u;  // the busy loop
    return x;
}
// Inside one launch a group reads what other groups wrote in it: on NVIDIA a plain load may come
// from a stale L1 line (an H100's did, fences and all), a volatile one (ld.volatile) never does, so
// barrier kernels read through volatile; the fences still order. Between launches plain is enough.
#define DO_STEP(name, qual)                                                                        \
    void name(const __global qual uint *src, __global uint *dst, uint n, uint step, uint work,    \
              uint me, uint parts) {                                                               \
        const uint wg = get_local_size(0), chunks = (n + wg - 1) / wg;                             \
        for (uint c = me; c < chunks; c += parts) {                                                \
            const uint i = c * wg + get_local_id(0);                                               \
            if (i >= n) continue;                                                                  \
            const uint l = src[i == 0 ? n - 1 : i - 1], r = src[i + 1 == n ? 0 : i + 1];           \
            dst[i] = mix(3u * src[i] + (l ^ r) + src[(i + n / 2) % n] + step, work);              \
        }                                                                                          \
    }
DO_STEP(do_step, )
DO_STEP(do_step_shared, volatile)

// Holds one group back `skew` polls before every other step, group (s / 2) % parts, so that
// groups are out of step (each in turn the last to arrive) and a group that went on without
// waiting reads values not yet written: the host's check fails. Volatile loads: kept.
void hold_back(__global volatile uint *ctl, uint me, uint parts, uint skew, uint s) {
    if (parts < 2 || (s & 1) || me != (s / 2) % parts) return;
    for (uint k = 0; k < skew; ++k)
        if (ctl[GAVE_UP]) return;
}

// One poll of a bounded wait: 1 to keep waiting; 0 when some group gave up or this wait has used
// its budget (then it raises GAVE_UP for every other group to see).
int keep_waiting(__global volatile uint *ctl, uint *spins, uint budget) {
    if (ctl[GAVE_UP]) return 0;
    if (++*spins < budget) return 1;
    atomic_xchg(&ctl[GAVE_UP], 1u);
    return 0;
}

void fence_if(int fenced) {
    if (fenced) mem_fence(CLK_GLOBAL_MEM_FENCE);
}

// The centralized barrier: the master work-item of each group counts its group in on ctl[COUNT];
// the last to arrive resets the count and advances ctl[GEN], which the others spin on. Nothing
// for the host to reset between barriers. Returns 1 when all `groups` arrived, 0 when it gave up.
// `fenced` 0 leaves out the memory fences (the nofence demonstration).
int centralized_barrier(__global volatile uint *ctl, uint groups, uint budget,
                        __local volatile int *go, int fenced) {
    // ---- starter ----
    // TODO (about 20 lines): first a barrier for the whole group (CLK_GLOBAL_MEM_FENCE |
    // CLK_LOCAL_MEM_FENCE): every work-item's part of this step is written before its master
    // arrives. Then the master work-item (local id 0) only: read ctl[GEN] before arriving;
    // fence; atomic_inc(&ctl[COUNT]); the last to arrive (it got groups - 1) resets COUNT with
    // atomic_xchg, fences and atomic_inc's GEN; the others poll ctl[GEN] until it moves, with
    // keep_waiting() bounding every poll. Tell the group through *go (1: all arrived, 0: gave
    // up); fence; then a barrier for the whole group, and return *go. fence_if(fenced) for
    // every fence, so the nofence demonstration can leave them out.
    //| barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    //| return 1;  // for now: every group goes on without waiting
    // ---- your code ----
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);  // our part written, *go read
    if (get_local_id(0) == 0) {
        const uint gen = ctl[GEN];  // read before arriving: it cannot move until we have
        fence_if(fenced);           // our group's writes before our arrival
        if (atomic_inc(&ctl[COUNT]) == groups - 1) {
            atomic_xchg(&ctl[COUNT], 0u);  // ready for the next barrier before anyone leaves
            fence_if(fenced);
            atomic_inc(&ctl[GEN]);
            *go = 1;
        } else {
            uint spins = 0;
            int ok = 1;
            while (ctl[GEN] == gen && (ok = keep_waiting(ctl, &spins, budget))) {}
            *go = ok;
        }
        fence_if(fenced);  // the others' writes before our reads
    }
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    return *go;
    // ---- end of your code ----
}

// The decentralized barrier (Xiao and Feng): group `me` sets its arrival flag in[me] to `goal`;
// group 0's work-items each watch some of the flags, then set every group's release flag
// out[g] = goal; each group's master waits for its own. No read-modify-write on shared words;
// goals increase step by step, so no flag is ever reset. flags holds in[groups] then out[groups].
// A flag another group polls is written with an atomic: under OpenCL's memory model a plain store
// there races with the polls, fences or not (the polls may stay volatile loads).
int decentralized_barrier(__global volatile uint *flags, __global volatile uint *ctl, uint me,
                          uint groups, uint goal, uint budget, __local volatile int *go,
                          int fenced) {
    // ---- starter ----
    // TODO (about 35 lines): the master sets *go = 1 and, after a fence, in[me] = goal with
    // atomic_xchg (a flag another group polls is written with an atomic, or it races with the
    // polls). Group 0's work-items each poll some of the in[] flags (g = local id, + local size,
    // ...) until they equal goal, bounded by keep_waiting(); one that gives up clears *go with
    // atomic_xchg; each fences after its polls. When all arrived, group 0 fences and sets
    // out[g] = goal (atomic_xchg) for every g. Each master polls out[me] until it equals goal
    // (bounded), then fences. Barriers for the whole group between these stages (every work-item
    // reaches each one; the one after the polls with CLK_GLOBAL_MEM_FENCE too: the work-item
    // that releases a group is not the one that saw it arrive), and return *go. Keep each
    // barrier() outside `if (me == 0)`: legal there, but POCL 3.1 crashed on it (a double free).
    //| barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    //| return 1;  // for now: every group goes on without waiting
    // ---- your code ----
    __global volatile uint *in = flags, *out = flags + groups;
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        *go = 1;
        fence_if(fenced);
        atomic_xchg(&in[me], goal);  // arrived: an atomic, since another group polls it
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (me == 0) {  // group 0's work-items watch the flags, each its own
        for (uint g = get_local_id(0); g < groups; g += get_local_size(0)) {
            uint spins = 0;
            while (in[g] != goal)
                if (!keep_waiting(ctl, &spins, budget)) {
                    atomic_xchg(go, 0);
                    break;
                }
        }
        fence_if(fenced);  // acquire what the groups it watched wrote
    }
    // The work-item that releases group g is not the one that saw each arrival: a barrier with
    // CLK_GLOBAL_MEM_FENCE hands what each watcher acquired to all of group 0.
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    const int all_in = *go;
    if (me == 0 && all_in) {  // every group arrived: release them all
        fence_if(fenced);
        for (uint g = get_local_id(0); g < groups; g += get_local_size(0))
            atomic_xchg(&out[g], goal);
    }
    barrier(CLK_LOCAL_MEM_FENCE);  // all have read *go before the master may clear it
    if (get_local_id(0) == 0 && all_in) {
        uint spins = 0;
        while (out[me] != goal)
            if (!keep_waiting(ctl, &spins, budget)) {
                *go = 0;
                break;
            }
        fence_if(fenced);
    }
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    return *go;
    // ---- end of your code ----
}

// Occupancy discovery (after Sorensen et al., OOPSLA 2016), run by each group's master: while the
// poll is open, a group takes the next id; group 0 closes it once `grace` polls in a row saw no
// newcomer. A group that finds it closed was not running while it was open: it takes no part (-1).
// The registered groups all ran while it was open, so they are resident together. One atomic_inc
// registers a group (a compare-and-swap loop fails once per newcomer: 15 to 20 ms for 4224 groups
// on an H100). The others wait for group 0's count in ctl[PARTS]; group 0 runs a bounded loop, so
// their budget counts one poll in 64 (a waiter that left on a busy host would still be counted).
#define PARTS 4  // discovery: how many registered, once the poll is closed
int discover(__global volatile uint *ctl, uint grace, uint budget, uint *parts) {
    const uint id = atomic_inc(&ctl[POLL]);
    if (id & CLOSED) return -1;  // closed: the count below CLOSED is no longer read
    uint spins = 0, polls = 0;
    if (id == 0) {
        uint seen = 1, quiet = 0;
        while (quiet < grace && ++spins < budget) {
            const uint now = ctl[POLL];  // volatile: a poll that no delay of an atomic slows
            quiet = now == seen ? quiet + 1 : 0;
            seen = now;
        }
        *parts = atomic_or(&ctl[POLL], CLOSED);  // the groups registered before it closed
        atomic_xchg(&ctl[PARTS], *parts);
    } else {
        while (!(*parts = ctl[PARTS]))
            if ((++polls & 63) == 0 && !keep_waiting(ctl, &spins, budget)) return -1;
    }
    return (int)id;
}

// The kernels with a barrier inside: all take the same arguments. seen[g]: the steps group g has
// finished (the host counts who arrived when a barrier gave up).
#define STEP_ARGS                                                                                  \
    __global uint *a, __global uint *b, uint n, uint steps, uint work, uint skew, uint budget,     \
        uint grace, __global volatile uint *ctl, __global volatile uint *flags,                   \
        __global uint *seen

// Each step: compute from one buffer into the other, then wait for every group; a barrier that
// gave up ends the loop for the whole group. (No return inside: POCL compiles this far faster.)
#define STEP_LOOP(go, me, parts, wait)                                                             \
    for (uint s = 0, ok = go; s < steps && ok; ++s) {                                              \
        hold_back(ctl, me, parts, skew, s);                                                        \
        do_step_shared(s & 1 ? b : a, s & 1 ? a : b, n, s, work, me, parts);                       \
        if (get_local_id(0) == 0) seen[me] = s + 1;                                                \
        ok = (wait);                                                                               \
    }

// A group takes part only when no group has given up (one that starts after that stops at once).
#define START(go)                                                                                  \
    if (get_local_id(0) == 0) go = !ctl[GAVE_UP];                                                  \
    barrier(CLK_LOCAL_MEM_FENCE);

__kernel void stepRelaunch(const __global uint *src, __global uint *dst, uint n, uint step,
                           uint work) {
    do_step(src, dst, n, step, work, get_group_id(0), get_num_groups(0));
}

__kernel void barrierCentralized(STEP_ARGS) {
    __local volatile int go;
    const uint me = get_group_id(0), parts = get_num_groups(0);
    START(go)
    STEP_LOOP(go, me, parts, centralized_barrier(ctl, parts, budget, &go, 1))
}

__kernel void barrierCentralizedNoFence(STEP_ARGS) {
    __local volatile int go;
    const uint me = get_group_id(0), parts = get_num_groups(0);
    START(go)
    STEP_LOOP(go, me, parts, centralized_barrier(ctl, parts, budget, &go, 0))
}

__kernel void barrierDecentralized(STEP_ARGS) {
    __local volatile int go;
    const uint me = get_group_id(0), parts = get_num_groups(0);
    START(go)
    STEP_LOOP(go, me, parts, decentralized_barrier(flags, ctl, me, parts, s + 1, budget, &go, 1))
}

// Discovery first; the groups found share out all n elements, whatever number was launched.
__kernel void barrierDiscovered(STEP_ARGS) {
    __local volatile int go;
    __local uint me, parts;
    if (get_local_id(0) == 0) {
        uint p = 0;
        const int id = discover(ctl, grace, budget, &p);
        go = id >= 0;
        me = id < 0 ? 0 : (uint)id;
        parts = p;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint my = me, all = parts;
    STEP_LOOP(go, my, all, decentralized_barrier(flags, ctl, my, all, s + 1, budget, &go, 1))
}

// The discovery step alone: how many groups of this size run at the same time here. The whole
// group stays until the poll closes, as in the barrier kernels: on a GPU, work-items that leave
// early free their place for more groups (on an H100, without this barrier, discovery counted
// 4224 groups of 256 resident, and a barrier over them saw 1056 arrive).
__kernel void discoverOccupancy(__global volatile uint *ctl, uint grace, uint budget) {
    if (get_local_id(0) == 0) {
        uint p = 0;
        discover(ctl, grace, budget, &p);
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
}

// The centralized barrier with OpenCL 2.0/3.0 atomics: acquire/release at device scope say in the
// atomics themselves what the fences said. Built only where the device offers them.
#if __OPENCL_C_VERSION__ >= 200 &&                                                                 \
    (__OPENCL_C_VERSION__ < 300 || defined(__opencl_c_atomic_scope_device))
int centralized_barrier_c11(__global volatile uint *ctl, uint groups, uint budget,
                            __local volatile int *go) {
    // ---- starter ----
    // TODO (optional, 25 lines, after centralized_barrier): the same barrier with C11 atomics:
    // atomic_fetch_add_explicit(count, 1u, memory_order_acq_rel, memory_scope_device), a
    // release increment of gen, acquire loads while polling it; no mem_fence needed.
    //| barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    //| return 1;  // for now: every group goes on without waiting
    // ---- your code ----
    __global atomic_uint *count = (__global atomic_uint *)&ctl[COUNT];
    __global atomic_uint *gen = (__global atomic_uint *)&ctl[GEN];
    __global atomic_uint *gave_up = (__global atomic_uint *)&ctl[GAVE_UP];
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        const uint g = atomic_load_explicit(gen, memory_order_relaxed, memory_scope_device);
        if (atomic_fetch_add_explicit(count, 1u, memory_order_acq_rel, memory_scope_device) ==
            groups - 1) {
            atomic_store_explicit(count, 0u, memory_order_relaxed, memory_scope_device);
            atomic_fetch_add_explicit(gen, 1u, memory_order_release, memory_scope_device);
            *go = 1;
        } else {
            uint spins = 0;
            int ok = 1;
            while (atomic_load_explicit(gen, memory_order_acquire, memory_scope_device) == g) {
                if (atomic_load_explicit(gave_up, memory_order_relaxed, memory_scope_device) ||
                    ++spins >= budget) {
                    atomic_store_explicit(gave_up, 1u, memory_order_relaxed, memory_scope_device);
                    ok = 0;
                    break;
                }
            }
            *go = ok;
        }
    }
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    return *go;
    // ---- end of your code ----
}

__kernel void barrierCentralizedC11(STEP_ARGS) {
    __local volatile int go;
    const uint me = get_group_id(0), parts = get_num_groups(0);
    START(go)
    STEP_LOOP(go, me, parts, centralized_barrier_c11(ctl, parts, budget, &go))
}
#endif

// The generation barrier, as CUDA's cooperative groups build grid.sync(): one atomic per group
// and no reset. Group 0 adds FLIP - (groups - 1) to ctl[COUNT], every other group adds 1: once all
// have arrived the low bits are back where they were and the top bit has flipped. Each master
// polls the word with plain volatile loads until the top bit differs from what its own add saw.
#define FLIP 0x80000000u
int generation_barrier(__global volatile uint *ctl, uint me, uint groups, uint budget,
                       __local volatile int *go) {
    // ---- starter ----
    // TODO (about 15 lines): a barrier for the whole group; then the master only: a fence
    // (release), old = atomic_add(&ctl[COUNT], ...) as above, and poll while
    // !((old ^ ctl[COUNT]) & FLIP), a plain volatile load, calling keep_waiting() only every 64th
    // poll (the gave-up flag shares the line: reading it at every poll slows every poll); *go = 1
    // or 0 (gave up); a fence (acquire). Then a barrier with both fences, and return *go. Why is
    // it cheaper than centralized_barrier? Count the atomics on ctl's line per barrier, and what
    // each poll is.
    //| barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    //| return 1;  // for now: every group goes on without waiting
    // ---- your code ----
    // The centralized barrier costs the last arrival three atomics on one L2 line while every
    // master polls it; here each group pays one, and a poll is a load, not a read-modify-write.
    // The gave-up flag is read every 64th poll only: it shares the line, and is rarely set.
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);  // our part written, *go read
    if (get_local_id(0) == 0) {
        mem_fence(CLK_GLOBAL_MEM_FENCE);  // release: our group's writes before our arrival
        const uint old = atomic_add(&ctl[COUNT], me == 0 ? FLIP - (groups - 1) : 1u);
        uint spins = 0;
        int ok = 1;
        while (!((old ^ ctl[COUNT]) & FLIP))
            if ((++spins & 63) == 0 && !(ok = keep_waiting(ctl, &spins, budget)))
                break;
        *go = ok;
        mem_fence(CLK_GLOBAL_MEM_FENCE);  // acquire: every group's writes before our reads
    }
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    return *go;
    // ---- end of your code ----
}

__kernel void barrierGeneration(STEP_ARGS) {
    __local volatile int go;
    const uint me = get_group_id(0), parts = get_num_groups(0);
    START(go)
    STEP_LOOP(go, me, parts, generation_barrier(ctl, me, parts, budget, &go))
}

// The hierarchical barrier: the generation barrier's counter for every `per` groups (about the
// square root of all of them), each counter on a 128-byte line of its own, and one counter above
// them. A group arrives at its own counter; the last of its counter (the one whose add flips the
// top bit) arrives at the top counter for all of them, waits for that flip, and releases them
// through a release word on another line of their own (a goal, as the decentralized barrier's
// flags). No word takes every group's atomic or every master's polls any more: at 4224 groups
// each line sees 65 arrivals and 65 pollers, not 4224.
#define LINE 32  // uints in a 128-byte line
uint per_counter(uint groups) {
    uint per = 1;
    while (per * per < groups) ++per;
    return per;
}

// Polls *word until its top bit differs from old's, bounded; 1 once it has, 0 when it gave up.
int wait_flip(__global volatile uint *word, uint old, __global volatile uint *ctl, uint budget) {
    uint spins = 0;
    while (!((old ^ *word) & FLIP))
        if ((++spins & 63) == 0 && !keep_waiting(ctl, &spins, budget)) return 0;
    return 1;
}

int hierarchical_barrier(__global volatile uint *flags, __global volatile uint *ctl, uint me,
                         uint groups, uint per, uint goal, uint budget, __local volatile int *go) {
    // ---- starter ----
    // TODO (about 25 lines): generation_barrier's frame (barriers with both fences, the master
    // alone, a release fence before arriving, an acquire fence at the end). Counter c = me / per
    // of counters = (groups + per - 1) / per is flags[c * LINE], its release word
    // flags[(counters + c) * LINE]; the first group of a counter adds FLIP - (mine - 1) (mine:
    // the groups on counter c), the others 1. The one whose add flips the top bit
    // ((old ^ (old + add)) & FLIP) is the last on its counter: a fence (what the others released
    // must pass on), arrive at ctl[COUNT] the same way for its counter (counter 0 adds
    // FLIP - (counters - 1)), wait_flip() there, a fence, and atomic_xchg the release word to
    // goal. The others poll their release word until it equals goal, keep_waiting() every 64th
    // poll. *go = 1, or 0 when a wait gave up.
    //| barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    //| return 1;  // for now: every group goes on without waiting
    // ---- your code ----
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);  // our part written, *go read
    if (get_local_id(0) == 0) {
        const uint c = me / per, counters = (groups + per - 1) / per;
        const uint mine = min(per, groups - c * per);  // groups on counter c
        __global volatile uint *count = flags + c * LINE, *release = flags + (counters + c) * LINE;
        const uint add = me % per == 0 ? FLIP - (mine - 1) : 1u;
        int ok = 1;
        mem_fence(CLK_GLOBAL_MEM_FENCE);  // release: our group's writes before our arrival
        const uint old = atomic_add(count, add);
        if ((old ^ (old + add)) & FLIP) {  // the last on counter c: arrive at the top for all
            mem_fence(CLK_GLOBAL_MEM_FENCE);  // acquire what they released, pass it on
            const uint top = atomic_add(&ctl[COUNT], c == 0 ? FLIP - (counters - 1) : 1u);
            ok = wait_flip(&ctl[COUNT], top, ctl, budget);
            mem_fence(CLK_GLOBAL_MEM_FENCE);  // acquire every counter's, release to counter c's
            if (ok) atomic_xchg(release, goal);
        } else {
            uint spins = 0;
            while (*release != goal)
                if ((++spins & 63) == 0 && !(ok = keep_waiting(ctl, &spins, budget)))
                    break;
        }
        *go = ok;
        mem_fence(CLK_GLOBAL_MEM_FENCE);  // acquire: every group's writes before our reads
    }
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    return *go;
    // ---- end of your code ----
}

__kernel void barrierHierarchical(STEP_ARGS) {
    __local volatile int go;
    const uint me = get_group_id(0), parts = get_num_groups(0), per = per_counter(parts);
    START(go)
    STEP_LOOP(go, me, parts, hierarchical_barrier(flags, ctl, me, parts, per, s + 1, budget, &go))
}
