// A barrier hands a write to the work-item that publishes it. In group 0, work-item 1 writes the
// datum and work-item 0 releases it with a fence and an atomic flag; group 1 acquires the flag and
// reads the datum. `kind` 2: barrier(CLK_GLOBAL_MEM_FENCE) between the write and the
// release orders it; 1: barrier(CLK_LOCAL_MEM_FENCE) says nothing of global memory; 0: none.
#define BUDGET 200000

__kernel void handover(volatile __global int *data, volatile __global int *flag,
                       __global int *out, volatile __global int *gave_up, int kind, int release)
{
    const int l = get_local_id(0);
    if (get_group_id(0) == 0) {
        if (l == 1) data[0] = 42;
        if (kind == 2) barrier(CLK_GLOBAL_MEM_FENCE);
        else if (kind == 1) barrier(CLK_LOCAL_MEM_FENCE);
        if (l == 0) {
            if (release) mem_fence(CLK_GLOBAL_MEM_FENCE);
            atomic_xchg(flag, 1);
        }
    } else if (l == 0) {
        int spins = 0;
        while (atomic_or(flag, 0) == 0)
            if (++spins == BUDGET) { atomic_inc(gave_up); break; }
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        out[0] = data[0];
    }
}
