// Message passing between two work-groups: group 0 writes data and raises a flag with an atomic;
// group 1 polls the flag with atomic_or(flag, 0) and then reads the data. Only with the writer's
// release fence (before raising) and the reader's acquire fence (after seeing it) is it ordered.
#define BUDGET 200000

__kernel void message(volatile __global int *data, volatile __global int *flag,
                      __global int *out, volatile __global int *gave_up,
                      int release, int acquire)
{
    if (get_local_id(0) != 0) return;
    if (get_group_id(0) == 0) {
        data[0] = 42;
        if (release) mem_fence(CLK_GLOBAL_MEM_FENCE);
        atomic_xchg(flag, 1);
    } else {
        int spins = 0;
        while (atomic_or(flag, 0) == 0)
            if (++spins == BUDGET) { atomic_inc(gave_up); break; }
        if (acquire) mem_fence(CLK_GLOBAL_MEM_FENCE);
        out[0] = data[0];
    }
}
