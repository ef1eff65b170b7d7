// A barrier between work-groups by a counter: each group's work-item 0 publishes its datum, counts
// its arrival with atomic_inc, and the last to arrive bumps the generation word; the others poll
// it with volatile loads. After it, each group reads the next group's datum. The last arrival's
// fence acquires the arrivals and releases them with the generation; the groups' own fences, the
// release before arriving and the acquire after leaving, are what the twins leave out.
#define BUDGET 200000

__kernel void counter(volatile __global int *count, volatile __global int *generation,
                      volatile __global int *data, __global int *out,
                      volatile __global int *gave_up, int release, int acquire)
{
    const int g = get_group_id(0), n = get_num_groups(0);
    if (get_local_id(0) != 0) return;
    data[g] = 10 * (g + 1);
    if (release) mem_fence(CLK_GLOBAL_MEM_FENCE);
    if (atomic_inc(count) == n - 1) {
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        atomic_inc(generation);
    } else {
        int spins = 0;
        while (*generation == 0)
            if (++spins == BUDGET) { atomic_inc(gave_up); break; }
    }
    if (acquire) mem_fence(CLK_GLOBAL_MEM_FENCE);
    out[g] = data[(g + 1) % n];
}
