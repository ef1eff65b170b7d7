// Lab 07 (solution): atomics, voting and locks.
//
// Your task: the graded kernels below have TODOs where the atomic, the fence or the vote goes
// (each says how many lines). The host checks every result exactly; run
// ./build/bin/lab07_atomics (add --variant NAME for one part); no rebuild needed.
//
// The host builds this file with -D SPIN_BUDGET=<--spins>: every loop that waits for another
// work-item gives up after that many turns, so a lock that is never released cannot hang; and
// with -D CAS_BUDGET, CAS_CHUNK (--cas-budget): the float sums' budget, below. It builds the file
// again for the parts under #if: OpenCL C 2.0 (-cl-std=CL2.0/CL3.0) and WITH_SUBGROUPS, where
// the device has what they need.

// ---- Lost updates -----------------------------------------------------------------------------
// Contract (count kernels): every work-item adds one to its group's counter in local memory and to
// total[0] in global memory (the host zeroes it); work-item 0 writes the group's count to
// groupCount[group]. countGlobal leaves groupCount alone.

// The lecture's `count++` on a shared counter: a read, an add and a write that other work-items
// interleave with theirs, so increments are lost. Meant to be wrong.
__kernel void countPlain(volatile __global int *total, __global int *groupCount,
                         volatile __local int *count)
{
    if (get_local_id(0) == 0) *count = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    (*count)++;
    (*total)++;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) groupCount[get_group_id(0)] = *count;
}

// What a warp's lock-step does to count++ (the lecture: the work-items of a warp "will only
// update it once"): every work-item reads, then every one writes. The barrier between makes that
// order happen on every device, so the loss is certain. Meant to be wrong.
__kernel void countLockstep(volatile __global int *total, __global int *groupCount,
                            volatile __local int *count)
{
    if (get_local_id(0) == 0) *count = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const int seenCount = *count, seenTotal = *total;
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    *count = seenCount + 1;
    *total = seenTotal + 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) groupCount[get_group_id(0)] = *count;
}

__kernel void countAtomic(volatile __global int *total, __global int *groupCount,
                          volatile __local int *count)
{
    if (get_local_id(0) == 0) *count = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    // ---- starter ----
    // TODO (2 lines): add one to count and one to total so that no update is lost.
    // ---- your code ----
    atomic_inc(count);
    atomic_inc(total);
    // ---- end of your code ----
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) groupCount[get_group_id(0)] = *count;
}

// Contention: every work-item of every group on the one global counter...
__kernel void countGlobal(volatile __global int *total, __global int *groupCount,
                          volatile __local int *count)
{
    // ---- starter ----
    // TODO (1 line): add one to total, atomically.
    // ---- your code ----
    atomic_inc(total);
    // ---- end of your code ----
}

// ... against one local atomic per work-item and one global atomic per group.
__kernel void countTwoLevel(volatile __global int *total, __global int *groupCount,
                            volatile __local int *count)
{
    if (get_local_id(0) == 0) *count = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    // ---- starter ----
    // TODO (1 line): add one to the group's count, atomically.
    // ---- your code ----
    atomic_inc(count);
    // ---- end of your code ----
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        // ---- starter ----
        // TODO (1 line): add the group's count to total with one global atomic.
        // ---- your code ----
        atomic_add(total, *count);
        // ---- end of your code ----
        groupCount[get_group_id(0)] = *count;
    }
}

// ---- The atomic family ------------------------------------------------------------------------
// Contract: n = the global size; in[i] is work-item i's input (0 <= in[i] < 2^20 unless said);
// out is laid out per kernel, and the host fills it as said before each launch.

// out[0..BINS-1] (zeroed): how many inputs fall in each bin, bin = in[i] % BINS.
__kernel void histogram(__global const int *in, volatile __global int *out)
{
    // ---- starter ----
    // TODO (1 line): count in[i] in its bin.
    // ---- your code ----
    atomic_inc(&out[in[get_global_id(0)] % BINS]);
    // ---- end of your code ----
}

// out[0] (host: INT_MAX) and out[1] (host: INT_MIN): the least and the greatest of in[i] - 2^19.
__kernel void extremes(__global const int *in, volatile __global int *out)
{
    const int v = in[get_global_id(0)] - (1 << 19);
    // ---- starter ----
    // TODO (2 lines): keep the least in out[0] and the greatest in out[1].
    // ---- your code ----
    atomic_min(&out[0], v);
    atomic_max(&out[1], v);
    // ---- end of your code ----
}

// Slots out[0..SLOTS-1] (host: -1): work-item i wants slot in[i] % SLOTS and the first to ask
// gets it, writing its id there; out[SLOTS + i] = 1 if i won a slot, else 0.
__kernel void firstClaim(__global const int *in, volatile __global int *out)
{
    const int i = get_global_id(0);
    // ---- starter ----
    // TODO (1 line, in place of the placeholder below): claim the slot only if it is still -1,
    // and record whether you won.
    //| out[SLOTS + i] = 0;
    // ---- your code ----
    out[SLOTS + i] = atomic_cmpxchg(&out[in[i] % SLOTS], -1, i) == -1;
    // ---- end of your code ----
}

// Work-items with an odd input append it to a list: out[0] (zeroed) is its length, out[1..] the
// entries in any order. atomic_add's old value is the slot nobody else gets.
__kernel void append(__global const int *in, volatile __global int *out)
{
    const int v = in[get_global_id(0)];
    // ---- starter ----
    // TODO (1 line): if v is odd, take the next free entry and write v there.
    // ---- your code ----
    if (v & 1) out[1 + atomic_add(&out[0], 1)] = v;
    // ---- end of your code ----
}

// out[0] (host: n) counts down; the work-item that takes it from 1 to 0 is the last one out and
// writes its id to out[1]; out[2] (zeroed) counts how many think they were last.
__kernel void countdown(__global const int *in, volatile __global int *out)
{
    // ---- starter ----
    // TODO (1 line): count down, and find out whether you took it from 1 to 0.
    //| if (0) {
    // ---- your code ----
    if (atomic_sub(&out[0], 1) == 1) {
    // ---- end of your code ----
        out[1] = get_global_id(0);
        atomic_inc(&out[2]);
    }
}

// A list pushed without a lock: out[0] (host: -1) is the head; each work-item swaps its id in and
// links to the head it replaced, out[1 + i] = next. Every id ends up on the list exactly once.
__kernel void pushList(__global const int *in, volatile __global int *out)
{
    const int i = get_global_id(0);
    // ---- starter ----
    // TODO (1 line): make i the head and link it to the head it replaced.
    // ---- your code ----
    out[1 + i] = atomic_xchg(&out[0], i);
    // ---- end of your code ----
}

// ---- The global lock --------------------------------------------------------------------------
// Contract: work-item 0 of each group takes the lock (0 free, 1 held; the host sets it), adds
// value[group] to record[0] (the running sum), one to record[1] (the count) and logs the new sum
// at log[count - 1]: two words and a log that atomics alone cannot keep consistent. A group that
// has not got the lock after SPIN_BUDGET tries adds one to gaveUp[0] and leaves.
// The record is volatile: a GPU's per-multiprocessor cache must not serve an old copy of it.
// (Where the whole group could spin instead, see the handout: on a GPU without independent
// scheduling, the work-item holding the lock could wait forever behind its own warp's spinners.)

// The lecture's lock: no fence, released with a plain store. Its writes to the record may still
// be on their way when the next holder reads it (the lecture's own objection). Meant to be wrong.
__kernel void lockNoFence(__global const int *value, volatile __global int *lock,
                          volatile __global int *record, volatile __global int *log,
                          volatile __global int *gaveUp)
{
    if (get_local_id(0) != 0) return;
    int spins = 0;
    while (atomic_cmpxchg(lock, 0, 1) != 0)
        if (++spins == SPIN_BUDGET) {
            atomic_inc(gaveUp);
            return;
        }
    const int sum = record[0] + value[get_group_id(0)];
    const int count = record[1] + 1;
    record[0] = sum;
    record[1] = count;
    log[count - 1] = sum;
    *lock = 0;
}

// The lecture's lock with its fences: the record stays plain (volatile) memory, and only the lock
// and the fences order its accesses between groups: an acquire fence after taking the lock, a
// release fence before freeing it. `--device oclgrind` checks exactly that (hbcheck).
__kernel void lockFence(__global const int *value, volatile __global int *lock,
                        volatile __global int *record, volatile __global int *log,
                        volatile __global int *gaveUp)
{
    if (get_local_id(0) != 0) return;
    int spins = 0;
    while (atomic_cmpxchg(lock, 0, 1) != 0)
        if (++spins == SPIN_BUDGET) {
            atomic_inc(gaveUp);
            return;
        }
    // ---- starter ----
    // TODO (1 line): no access to the record may move before the lock is ours.
    // ---- your code ----
    mem_fence(CLK_GLOBAL_MEM_FENCE);  // acquire: no access to the record before the lock is ours
    // ---- end of your code ----
    const int sum = record[0] + value[get_group_id(0)];
    const int count = record[1] + 1;
    record[0] = sum;
    record[1] = count;
    log[count - 1] = sum;
    // ---- starter ----
    // TODO (2 lines): make the record's writes complete, then free the lock (atomically).
    // ---- your code ----
    mem_fence(CLK_GLOBAL_MEM_FENCE);  // release: the record is written before the lock is free
    atomic_xchg(lock, 0);
    // ---- end of your code ----
}

// The same lock in OpenCL 2.0's memory model: the file is built a second time with -cl-std=CL2.0
// (or CL3.0) where the device has acquire/release fences at device scope; elsewhere the lab says
// why it skipped it. The lock is an atomic_int taken and freed with relaxed atomics, and the
// fences do the ordering: acquire after taking it, release before freeing it. They order plain
// accesses too, so the record needs no atomics here: the previous holder's release fence and
// this holder's acquire fence make its writes visible.
#if __OPENCL_C_VERSION__ >= 200 &&                                                                 \
    (__OPENCL_C_VERSION__ < 300 ||                                                                 \
     (defined(__opencl_c_atomic_order_acq_rel) && defined(__opencl_c_atomic_scope_device)))
__kernel void lockFenceC11(__global const int *value, volatile __global atomic_int *lock,
                           __global int *record, __global int *log, volatile __global int *gaveUp)
{
    if (get_local_id(0) != 0) return;
    int spins = 0, expected = 0;
    while (!atomic_compare_exchange_strong_explicit(lock, &expected, 1, memory_order_relaxed,
                                                    memory_order_relaxed, memory_scope_device)) {
        expected = 0;  // a failed exchange wrote what it saw there
        if (++spins == SPIN_BUDGET) {
            atomic_inc(gaveUp);
            return;
        }
    }
    // ---- starter ----
    // TODO (1 line): an acquire fence at device scope (atomic_work_item_fence).
    // ---- your code ----
    atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acquire, memory_scope_device);
    // ---- end of your code ----
    const int sum = record[0] + value[get_group_id(0)];
    const int count = record[1] + 1;
    record[0] = sum;
    record[1] = count;
    log[count - 1] = sum;
    // ---- starter ----
    // TODO (2 lines): a release fence at device scope, then free the lock with a relaxed
    // atomic_store_explicit (memory_scope_device).
    // ---- your code ----
    atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release, memory_scope_device);
    atomic_store_explicit(lock, 0, memory_order_relaxed, memory_scope_device);
    // ---- end of your code ----
}
#endif

// ---- A float sum with compare-and-swap --------------------------------------------------------
// OpenCL 1.2 has atomics on 32-bit integers only. A float add is a loop: read the bits, add as
// floats, and swap the new bits in only if nobody changed the old ones meanwhile; else retry with
// what they wrote. A failed swap means that another work-item's swap succeeded, so with c
// work-items on the word one add takes at most c tries, and all of them together up to
// c(c+1)/2: where thousands of work-items fight over the word (a GPU), that square is the cost.
// So the launch has a budget, kept by the two given functions below: status[1] counts chunks of
// CAS_CHUNK tries of all work-items together; once CAS_BUDGET chunks are spent (or one
// work-item has tried SPIN_BUDGET times), each work-item gives up at its next chunk.
// status (host: zeroed): [0] work-items that gave up, [1] chunks spent, [2] tries not in a chunk.

// Given: after try t failed, whether to give up.
bool overBudget(volatile __global int *status, int t)
{
    if (t >= SPIN_BUDGET) return true;
    return t % CAS_CHUNK == 0 && atomic_inc(&status[1]) >= CAS_BUDGET - 1;
}

// Given: an add is over after t tries. Giving up spends the whole budget, so that every other
// work-item still trying gives up within CAS_CHUNK tries of its own. Returns added.
bool addDone(volatile __global int *status, int t, bool added)
{
    // A success on try t = k * CAS_CHUNK ends a chunk that overBudget (called on failures) never
    // counted.
    atomic_add(&status[2], added && t % CAS_CHUNK == 0 ? CAS_CHUNK : t % CAS_CHUNK);
    if (!added) {
        atomic_inc(&status[0]);
        atomic_max(&status[1], CAS_BUDGET);
    }
    return added;
}

// sum[0] += v, unless the budget runs out first (then false).
bool atomicAddFloat(volatile __global float *sum, float v, volatile __global int *status)
{
    volatile __global uint *bits = (volatile __global uint *)sum;
    // ---- starter ----
    // TODO (8 lines, instead of the return below): guess the old bits (0.0f will do); then for
    // t = 1 to SPIN_BUDGET: swap in as_uint(as_float(old) + v) if the bits are still old; if they
    // were, return addDone(status, t, true); else return addDone(status, t, false) if
    // overBudget(status, t), or retry with the bits atomic_cmpxchg saw. Never read *sum with a
    // plain load: other work-items swap it.
    //| return addDone(status, 0, false);
    // ---- your code ----
    uint old = as_uint(0.0f);  // a guess: a failed swap tells the value (no plain read races)
    for (int t = 1; t <= SPIN_BUDGET; ++t) {
        const uint seen = atomic_cmpxchg(bits, old, as_uint(as_float(old) + v));
        if (seen == old) return addDone(status, t, true);
        if (overBudget(status, t)) return addDone(status, t, false);
        old = seen;
    }
    return false;  // not reached: overBudget is true at SPIN_BUDGET
    // ---- end of your code ----
}

// Contract: sum[0] (zeroed) += every x[i]; scratch holds one float per work-item; status as above.
__kernel void floatSumCAS(__global const float *x, volatile __global float *sum,
                          __local float *scratch, volatile __global int *status)
{
    atomicAddFloat(sum, x[get_global_id(0)], status);
}

// Lab 01's tree in local memory, then one compare-and-swap add per group (the group size is a
// power of two).
__kernel void floatSumTree(__global const float *x, volatile __global float *sum,
                           __local float *scratch, volatile __global int *status)
{
    const int id = get_local_id(0);
    scratch[id] = x[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int stride = get_local_size(0) / 2; stride > 0; stride >>= 1) {
        if (id < stride) scratch[id] += scratch[id + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (id == 0) atomicAddFloat(sum, scratch[0], status);
}

// ---- Voting -----------------------------------------------------------------------------------
// Contract: out[i] = expensive(x[i], iters) where need[i] != 0, else x[i]; votes[2*group] = 1 if
// any work-item of the group needs it, votes[2*group + 1] = 1 if all do. flags: two ints.

// Turns of a cheap hash: the expensive branch.
uint expensive(uint v, int iters)
{
    for (int k = 0; k < iters; ++k) v = (v ^ (v >> 13)) * 1664525u + 1013904223u;
    return v;
}

// The group votes, then takes the branch only if some member needs it. Inside the branch every
// member computes and those that need it keep the result, as a SIMD unit would.
__kernel void voteSkip(__global const uint *x, __global const int *need, __global uint *out,
                       __global int *votes, int iters, volatile __local int *flags)
{
    const int i = get_global_id(0), id = get_local_id(0);
    if (id == 0) {
        flags[0] = 0;  // any
        flags[1] = 1;  // all
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // ---- starter ----
    // TODO (2 lines): vote: set flags[0] if you need the branch, clear flags[1] if you do not.
    // ---- your code ----
    if (need[i]) atomic_or(&flags[0], 1);
    else atomic_and(&flags[1], 0);
    // ---- end of your code ----
    barrier(CLK_LOCAL_MEM_FENCE);
    const int any = flags[0];
    const uint e = expensive(x[i], any ? iters : 0);
    out[i] = need[i] ? e : x[i];
    if (id == 0) {
        votes[2 * get_group_id(0)] = any;
        votes[2 * get_group_id(0) + 1] = flags[1];
    }
}

// No vote used: every group takes the branch. The same shape as voteSkip (the votes are still
// counted), so the two differ only in the skip.
__kernel void alwaysTake(__global const uint *x, __global const int *need, __global uint *out,
                         __global int *votes, int iters, volatile __local int *flags)
{
    const int i = get_global_id(0), id = get_local_id(0);
    if (id == 0) {
        flags[0] = 0;
        flags[1] = 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (need[i]) atomic_or(&flags[0], 1);
    else atomic_and(&flags[1], 0);
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint e = expensive(x[i], iters);
    out[i] = need[i] ? e : x[i];
    if (id == 0) {
        votes[2 * get_group_id(0)] = flags[0];
        votes[2 * get_group_id(0) + 1] = flags[1];
    }
}

// The same vote per sub-group in hardware, where the device has sub-groups (the second build of
// this file, with -D WITH_SUBGROUPS; elsewhere it is compiled against stand-ins and not run): a
// sub-group in which nobody needs the branch skips it. The host sets votes[2*group] = 0 and
// votes[2*group + 1] = 1; the first work-item of each sub-group folds its sub-group's votes in.
#ifdef WITH_SUBGROUPS
#ifdef cl_khr_subgroups
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif
__kernel void voteSubgroup(__global const uint *x, __global const int *need, __global uint *out,
                           volatile __global int *votes, int iters, volatile __local int *flags)
{
    const int i = get_global_id(0);
    const int mine = need[i] != 0;
    // Outside any if: the whole sub-group must reach a sub-group function.
    const int any = sub_group_any(mine), all = sub_group_all(mine);
    const uint e = expensive(x[i], any ? iters : 0);
    out[i] = mine ? e : x[i];
    if (get_sub_group_local_id() == 0) {
        atomic_or(&votes[2 * get_group_id(0)], any != 0);
        atomic_and(&votes[2 * get_group_id(0) + 1], all != 0);
    }
}

// The lecture's __ballot: sub_group_ballot(p) gives every member of the sub-group a mask with one
// bit per member whose p is true (a uint4: up to 128 members), so popcount of it counts them.
// Built only where the device has cl_khr_subgroup_ballot (-D WITH_BALLOT; with the stand-ins
// elsewhere). Contract as voteSubgroup's, but votes[2*group] (host: 0) counts the group's members
// that need the branch; votes[2*group + 1] (host: 1) is still the all-vote.
#ifdef WITH_BALLOT
#ifdef cl_khr_subgroup_ballot
#pragma OPENCL EXTENSION cl_khr_subgroup_ballot : enable
#endif
__kernel void voteBallot(__global const uint *x, __global const int *need, __global uint *out,
                         volatile __global int *votes, int iters, volatile __local int *flags)
{
    const int i = get_global_id(0);
    const int mine = need[i] != 0;
    // ---- starter ----
    // TODO (2 lines, instead of the next one): count the members of your sub-group that need the
    // branch: sub_group_ballot of mine, then popcount of each of its four words, added up.
    //| const int count = 0;
    // ---- your code ----
    const uint4 b = sub_group_ballot(mine);
    const int count = popcount(b.x) + popcount(b.y) + popcount(b.z) + popcount(b.w);
    // ---- end of your code ----
    const uint e = expensive(x[i], count > 0 ? iters : 0);
    out[i] = mine ? e : x[i];
    if (get_sub_group_local_id() == 0) {
        atomic_add(&votes[2 * get_group_id(0)], count);
        atomic_and(&votes[2 * get_group_id(0) + 1], count == (int)get_sub_group_size());
    }
}
#endif
#endif

// ---- Barrier with a reduction -----------------------------------------------------------------
// CUDA's __syncthreads_count/and/or: a barrier that also tells every work-item how many of the
// group's predicates were true, whether all were, whether any was.
// Contract: every work-item writes what it got to result[3*i] (count), [3*i+1] (all: 0/1) and
// [3*i+2] (any: 0/1), so the host sees that each one got the group's answer.
__kernel void syncCount(__global const int *pred, __global int *result, volatile __local int *count)
{
    const int i = get_global_id(0);
    if (get_local_id(0) == 0) *count = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    // ---- starter ----
    // TODO (1 line): count your predicate if it is true.
    // ---- your code ----
    if (pred[i]) atomic_inc(count);
    // ---- end of your code ----
    barrier(CLK_LOCAL_MEM_FENCE);
    const int c = *count;
    result[3 * i] = c;
    result[3 * i + 1] = c == (int)get_local_size(0);
    result[3 * i + 2] = c > 0;
}

// The same three answers from OpenCL 2.0's work-group built-ins: each is a barrier with a
// reduction (every work-item of the group must reach it). Built with -cl-std=CL2.0, or CL3.0
// where the device has __opencl_c_work_group_collective_functions; elsewhere the lab says why it
// skipped it. Contract as syncCount's (count is not used).
#if __OPENCL_C_VERSION__ >= 200 &&                                                                 \
    (__OPENCL_C_VERSION__ < 300 || defined(__opencl_c_work_group_collective_functions))
__kernel void syncCountBuiltin(__global const int *pred, __global int *result,
                               volatile __local int *count)
{
    const int i = get_global_id(0), p = pred[i] != 0;
    // ---- starter ----
    // TODO (3 lines): result[3*i] = the group's count (work_group_reduce_add), result[3*i+1] and
    // [3*i+2] = whether all and whether any are true (work_group_all, work_group_any), as 0 or 1.
    // ---- your code ----
    result[3 * i] = work_group_reduce_add(p);
    result[3 * i + 1] = work_group_all(p) != 0;
    result[3 * i + 2] = work_group_any(p) != 0;
    // ---- end of your code ----
}
#endif
