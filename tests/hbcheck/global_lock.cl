// The lecture's global lock: atomic_cmpxchg takes it, atomic_xchg frees it (a plain store there
// hands nothing over). One work-item of each group updates a plain (volatile) record inside. The
// lock orders it only with an acquire fence after taking it and a release fence before freeing it.
#define BUDGET 200000

__kernel void locked(volatile __global int *lock, volatile __global int *record,
                     volatile __global int *gave_up, int acquire, int release, int atomic_free)
{
    if (get_local_id(0) != 0) return;
    int spins = 0;
    while (atomic_cmpxchg(lock, 0, 1) != 0)
        if (++spins == BUDGET) { atomic_inc(gave_up); return; }
    if (acquire) mem_fence(CLK_GLOBAL_MEM_FENCE);
    const int count = record[0];
    record[0] = count + 1;
    record[1 + get_group_id(0)] = count;
    for (volatile int hold = 0; hold < 5000; ++hold) {}  // others find the lock taken
    if (release) mem_fence(CLK_GLOBAL_MEM_FENCE);
    if (atomic_free) atomic_xchg(lock, 0); else *lock = 0;
}
