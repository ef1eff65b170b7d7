// Lab 02 (solution): a scalar product far larger than one work-group.
//
// Every group reduces its own slice of a.b in local memory, exactly as in lab 01, and writes
// one partial sum. No barrier reaches across groups, so the groups cannot add their partials
// together here: the host reads the array of partials and adds them itself.
//
// Contract: element index = global id; group g writes partial[g]; n is the vector length.
// The host launches whole groups (a multiple of groupSize >= n work-items) and sizes scratch
// to one float per work-item; groupSize must be a power of two.
//
// Your task: fill in the three TODOs. Run ./build/bin/lab02_host_final_sum -n 1000 to check
// (1000 is not a multiple of the group size); no rebuild needed.

__kernel void dotPartials(__global const float *a, __global const float *b,
                          __global float *partial, __local float *scratch, const uint n)
{
    const int id = get_local_id(0);
    const int groupSize = get_local_size(0);
    const uint i = get_global_id(0);

    // ---- starter ----
    // TODO (1 line): store this work-item's product in scratch[id]. The last group runs past
    // the end of a and b (i >= n): there, store 0 so the extra work-items add nothing.
    // ---- your code ----
    // The last group runs past the end: its extra work-items add nothing.
    scratch[id] = (i < n) ? a[i] * b[i] : 0.0f;
    // ---- end of your code ----
    barrier(CLK_LOCAL_MEM_FENCE);

    // ---- starter ----
    // TODO (about 5 lines): the binary tree of lab 01's reduceWithSync, barriers included.
    // ---- your code ----
    for (int stride = groupSize / 2; stride > 0; stride >>= 1) {
        if (id < stride)
            scratch[id] += scratch[id + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    // ---- end of your code ----

    // ---- starter ----
    // TODO (2 lines): work-item 0 writes the group's sum to its slot of partial.
    // ---- your code ----
    if (id == 0)
        partial[get_group_id(0)] = scratch[0];
    // ---- end of your code ----
}
