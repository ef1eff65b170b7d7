// Lab 04 (solution): finishing the local-memory reduction inside one sub-group.
//
// The scalar product of a and b as in lab 01: each work-item stores a[i]*b[i] in scratch, and
// the group adds pairs in a binary tree (stride = groupSize/2, ..., 1). The lecture splits the
// tree in two: barriers while stride > SUBGROUP_SIZE, then the last levels, where only the
// first SUBGROUP_SIZE work-items still add, finished by one sub-group. The three kernels
// differ only in how that finish is made safe, or not.
//
// Contract (every kernel): element index = global id; group g writes dot[g]; the host sizes
// scratch to one float per work-item; groupSize is a power of two. The host passes
// -D SUBGROUP_SIZE=W (the lab's --simd, a power of two; default 32, NVIDIA's warp).
//
// Your task: reduceLockstep is the lecture's kernel, left as it is (it is the demonstration).
// reduceBarrier and reduceSubgroup give wrong answers. Fill in their TODOs (1 line, then 3 + 1
// lines). Run ./build/bin/lab04_subgroup_finish to check; no rebuild needed. reduceSubgroup
// runs only on a device with sub-groups (the lab says whether yours has them).

#ifndef SUBGROUP_SIZE
#define SUBGROUP_SIZE 32
#endif

// The lecture's optimisation: no barriers once stride <= SUBGROUP_SIZE, trusting that the
// first SUBGROUP_SIZE work-items run each line together (lockstep). OpenCL promises no such
// thing: a CPU device may run one work-item's whole loop before the next one starts.
__kernel void reduceLockstep(__global const float *a, __global const float *b,
                             __global float *dot, __local float *scratch)
{
    const int id = get_local_id(0);
    const int groupSize = get_local_size(0);
    const int i = get_global_id(0);

    scratch[id] = a[i] * b[i];
    barrier(CLK_LOCAL_MEM_FENCE);

    int stride = groupSize / 2;
    for (; stride > SUBGROUP_SIZE; stride >>= 1) {
        if (id < stride)
            scratch[id] += scratch[id + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    // volatile: every access goes to local memory, so a work-item would see its neighbours'
    // sums from the previous level, if they had already added them.
    volatile __local float *lanes = scratch;
    for (; stride > 0; stride >>= 1)
        if (id < stride)
            lanes[id] += lanes[id + stride];

    if (id == 0)
        dot[get_group_id(0)] = lanes[0];
}

// The same split, with the barriers put back: right on every device.
__kernel void reduceBarrier(__global const float *a, __global const float *b,
                            __global float *dot, __local float *scratch)
{
    const int id = get_local_id(0);
    const int groupSize = get_local_size(0);
    const int i = get_global_id(0);

    scratch[id] = a[i] * b[i];
    barrier(CLK_LOCAL_MEM_FENCE);

    int stride = groupSize / 2;
    for (; stride > SUBGROUP_SIZE; stride >>= 1) {
        if (id < stride)
            scratch[id] += scratch[id + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    for (; stride > 0; stride >>= 1) {
        if (id < stride)
            scratch[id] += scratch[id + stride];
        // ---- starter ----
        // TODO (1 line): the synchronisation the lecture removed. Without it this is
        // reduceLockstep, right only where the hardware happens to run in lockstep.
        // ---- your code ----
        // The barrier the lecture removed: without it this is reduceLockstep.
        barrier(CLK_LOCAL_MEM_FENCE);
        // ---- end of your code ----
    }

    if (id == 0)
        dot[get_group_id(0)] = scratch[0];
}

// The finish done by a sub-group built-in, whose result OpenCL does promise. Only the lab's
// second build of this file has -D WITH_SUBGROUPS, made just for a device that offers
// sub-groups (cl_khr_subgroups, or OpenCL C 3.0's __opencl_c_subgroups); elsewhere the lab
// says why it skips this kernel.
#ifdef WITH_SUBGROUPS
#ifdef cl_khr_subgroups
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif
__kernel void reduceSubgroup(__global const float *a, __global const float *b,
                             __global float *dot, __local float *scratch)
{
    const int id = get_local_id(0);
    const int groupSize = get_local_size(0);
    const int i = get_global_id(0);

    scratch[id] = a[i] * b[i];
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int stride = groupSize / 2; stride > SUBGROUP_SIZE; stride >>= 1) {
        if (id < stride)
            scratch[id] += scratch[id + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    // Not needed by OpenCL: a barrier already ends the loop, or comes before it when it takes no
    // step. POCL 5.0 needs it: without it, sub_group_reduce_add got garbage whenever the loop
    // took no step (--wg at most 2 * SUBGROUP_SIZE).
    barrier(CLK_LOCAL_MEM_FENCE);

    // scratch[0 .. left-1] still to add. Sub-group 0 takes them, each of its work-items every
    // get_sub_group_size()-th value: right for whatever width the device really has.
    const uint left = min(groupSize, 2 * SUBGROUP_SIZE);
    float mine = 0.0f;
    // ---- starter ----
    // TODO (3 lines): in sub-group 0 only (get_sub_group_id()), add into mine the values
    // scratch[k] for k = get_sub_group_local_id(), then every get_sub_group_size()-th after it,
    // while k < left.

    // TODO (1 line): total is the sum of mine over the sub-group: call sub_group_reduce_add.
    // Call it outside any if: a sub-group function must be reached by the whole sub-group (on
    // POCL the sub-group is the whole work-group). The other sub-groups add zeros.
    //| const float total = 0.0f;
    // ---- your code ----
    if (get_sub_group_id() == 0)
        for (uint k = get_sub_group_local_id(); k < left; k += get_sub_group_size())
            mine += scratch[k];
    // Outside any if: a sub-group function must be reached by the whole sub-group (on POCL
    // the sub-group is the whole work-group). The other sub-groups add zeros.
    const float total = sub_group_reduce_add(mine);
    // ---- end of your code ----

    if (get_sub_group_id() == 0 && get_sub_group_local_id() == 0)
        dot[get_group_id(0)] = total;
}
#endif
