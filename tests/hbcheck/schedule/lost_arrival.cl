// A counter barrier between work-groups whose group 0 never counts its arrival (lose = 1): every
// group waits for a generation no group will bump. hbcheck's schedule (SYNCLAB_SCHEDULE) reports
// the deadlock with the line each group waits at, long before the spins' budget; its twin
// (lose = 0) counts every arrival and finishes.
#define BUDGET 1000000

__kernel void lost(volatile __global int *count, volatile __global int *generation,
                   volatile __global int *gave_up, int lose)
{
    const int g = get_group_id(0), n = get_num_groups(0);
    if (get_local_id(0) != 0) return;
    if (!(lose && g == 0) && atomic_inc(count) == n - 1) {
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        atomic_inc(generation);
    } else {
        int spins = 0;
        while (*generation == 0)
            if (++spins == BUDGET) { atomic_inc(gave_up); break; }
        mem_fence(CLK_GLOBAL_MEM_FENCE);
    }
}
