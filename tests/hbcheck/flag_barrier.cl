// A barrier between work-groups by flags: each group but 0 raises its arrival flag; group 0, the
// master, waits for every arrival flag and then raises each group's release flag. Each group
// publishes a datum before and reads the next group's after. `atomics` (1: arrival, 2: release
// flags) sets flags with atomic_xchg and polls with atomic_or(flag, 0), else by plain volatile
// stores and loads, which race even fenced. `fenced` (1, 2, 4: the fences in order) orders data.
#define BUDGET 200000

void raise_flag(volatile __global int *flag, int atomics)
{
    if (atomics) atomic_xchg(flag, 1);
    else *flag = 1;
}

void wait_flag(volatile __global int *flag, int atomics, volatile __global int *gave_up)
{
    int spins = 0;
    while ((atomics ? atomic_or(flag, 0) : *flag) == 0)
        if (++spins == BUDGET) { atomic_inc(gave_up); return; }
}

__kernel void flags(volatile __global int *arrived, volatile __global int *go,
                    volatile __global int *data, __global int *out,
                    volatile __global int *gave_up, int fenced, int atomics)
{
    const int g = get_group_id(0), n = get_num_groups(0);
    if (get_local_id(0) != 0) return;
    data[g] = 10 * (g + 1);
    if (fenced & 1) mem_fence(CLK_GLOBAL_MEM_FENCE);  // our datum before our flag
    if (g == 0) {
        for (int i = 1; i < n; ++i) wait_flag(&arrived[i], atomics & 1, gave_up);
        if (fenced & 2) mem_fence(CLK_GLOBAL_MEM_FENCE);  // the arrivals before the release flags
        for (int i = 1; i < n; ++i) raise_flag(&go[i], atomics & 2);
    } else {
        raise_flag(&arrived[g], atomics & 1);
        wait_flag(&go[g], atomics & 2, gave_up);
    }
    if (fenced & 4) mem_fence(CLK_GLOBAL_MEM_FENCE);  // the flag before the others' data
    out[g] = data[(g + 1) % n];
}
