// Lab 01 (solution): the scalar product of a and b, reduced in local memory.
//
// Each work-item stores one product a[i]*b[i] in scratch, then the group adds pairs in a
// binary tree: at every level work-item id adds scratch[id + stride] into scratch[id],
// with stride = groupSize/2, groupSize/4, ..., 1. Work-item 0 writes the group's result.
//
// Contract (both kernels): element index = global id; group g writes dot[g].
// The host sizes scratch to one float per work-item; groupSize must be a power of two.
//
// Your task: reduceWithSync gives wrong answers, like reduceNoSync. Fill in the two TODOs
// (one line each). Run ./build/bin/lab01_workgroup_reduce to check; no rebuild needed.

// The lecture's first attempt: no barriers. A work-item may read scratch[id + stride]
// before its owner has written it, so the answer depends on timing.
__kernel void reduceNoSync(__global const float *a, __global const float *b,
                           __global float *dot, __local float *scratch)
{
    const int id = get_local_id(0);
    const int groupSize = get_local_size(0);
    const int i = get_global_id(0);

    scratch[id] = a[i] * b[i];

    for (int stride = groupSize / 2; stride > 0; stride >>= 1)
        if (id < stride)
            scratch[id] += scratch[id + stride];

    if (id == 0)
        dot[get_group_id(0)] = scratch[0];
}

__kernel void reduceWithSync(__global const float *a, __global const float *b,
                             __global float *dot, __local float *scratch)
{
    const int id = get_local_id(0);
    const int groupSize = get_local_size(0);
    const int i = get_global_id(0);

    scratch[id] = a[i] * b[i];
    // ---- starter ----
    // TODO (1 line): make every product visible before any work-item reads a neighbour's.
    // ---- your code ----
    // Every product must be stored before any work-item reads a neighbour's.
    barrier(CLK_LOCAL_MEM_FENCE);
    // ---- end of your code ----

    for (int stride = groupSize / 2; stride > 0; stride >>= 1) {
        if (id < stride)
            scratch[id] += scratch[id + stride];
        // ---- starter ----
        // TODO (1 line): finish this level of the tree before the next one reads it.
        // Mind where you put it: every work-item of the group must reach it.
        // ---- your code ----
        // Outside the if: every work-item of the group must reach the same barriers.
        barrier(CLK_LOCAL_MEM_FENCE);
        // ---- end of your code ----
    }

    if (id == 0)
        dot[get_group_id(0)] = scratch[0];
}
