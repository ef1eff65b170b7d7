// Lab 03 (solution): a scalar product of any length, reduced entirely on the device.
//
// No barrier reaches across work-groups, so the reduction is split into launches. Pass 1
// (dotPartials, lab 02's kernel) leaves one partial sum per group; every later pass
// (reducePartials) adds each group's slice of those partials into one, until one value is
// left. The end of a launch is the global synchronisation point: pass k+1 starts only after
// every group of pass k has written its sum.
//
// Contract: dotPartials(a, b, partial, scratch, n): group g writes the sum of a[i]*b[i] over its
// slice of [0, n) to partial[g]. reducePartials(in, out, scratch, n): group g writes the sum of
// its slice of in[0, n) to out[g]. Whole groups are launched, scratch holds one float per
// work-item and groupSize is a power of two. Past n the host's buffers hold NaN.
//
// Your task: reducePartials is empty, so every pass after the first leaves NaN. Fill in its two
// TODOs. Run ./build/bin/lab03_multikernel_reduce -n 1000003 --wg 64 to check (four passes, none
// of them a whole number of groups); no rebuild needed.

// The tree of lab 01 over scratch[0 .. groupSize): every work-item of the group must call it,
// since it holds barriers. The group's sum ends in scratch[0].
void treeSum(__local float *scratch)
{
    const int id = get_local_id(0);

    barrier(CLK_LOCAL_MEM_FENCE);
    for (int stride = get_local_size(0) / 2; stride > 0; stride >>= 1) {
        if (id < stride)
            scratch[id] += scratch[id + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

__kernel void dotPartials(__global const float *a, __global const float *b,
                          __global float *partial, __local float *scratch, const uint n)
{
    const int id = get_local_id(0);
    const uint i = get_global_id(0);

    scratch[id] = (i < n) ? a[i] * b[i] : 0.0f;
    treeSum(scratch);
    if (id == 0)
        partial[get_group_id(0)] = scratch[0];
}

__kernel void reducePartials(__global const float *in, __global float *out,
                             __local float *scratch, const uint n)
{
    const int id = get_local_id(0);
    const uint i = get_global_id(0);

    // ---- starter ----
    // TODO (1 line): store in[i] in scratch[id], or 0 when i >= n (the last group runs past
    // the end of in).

    // TODO (3 lines): add the group's values with treeSum (every work-item calls it), then
    // work-item 0 writes the sum to the group's slot of out.
    // ---- your code ----
    // The last group runs past the end of in: its extra work-items add nothing.
    scratch[id] = (i < n) ? in[i] : 0.0f;
    treeSum(scratch);
    if (id == 0)
        out[get_group_id(0)] = scratch[0];
    // ---- end of your code ----
}
