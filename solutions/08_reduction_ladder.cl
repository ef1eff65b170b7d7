// Lab 08 (solution): the reduction ladder. Eight kernels that all sum floats, each one step
// closer to reading memory as fast as the device can.
//
// Contract (every rung): x holds n floats; group g writes the sum of its share into y[g]. The
// host launches the same rung again over y until one value is left (a launch is the only
// barrier between work-groups; v8 alone needs one launch, and writes the total to y[groups]). scratch holds one float per work-item. The host builds this
// file with -D WG=<work-group size> (a power of two), and with -D WITH_SUBGROUPS where the
// device has sub-groups.
//
// Your task: v4 to v8, marked TODO (v1 to v3, the lecture's first three kernels, are written).
// Each has the right arguments and an empty body, so the lab reports it as not written yet.
// Run ./build/bin/lab08_reduction_ladder after each one (no rebuild needed): it checks every
// rung against the host's sum and prints how close each comes to the read bound (% read: the
// fastest checked read of the whole buffer, the read probe's or, on a CPU, a host peer's; the
// copy probe's figure beside it, % copy, counts bytes read and written).

// v1: interleaved addressing. At step s the work-items whose id is a multiple of 2s add their
// neighbour s away. The `%` is slow, and the working items are spread thinly over every
// warp, so each warp runs the add for a handful of its lanes (divergence).
__kernel void reduce_v1_interleaved(__global const float *x, __global float *y, uint n,
                                    __local float *scratch)
{
    const uint lid = get_local_id(0);
    const uint wg = get_local_size(0);
    const uint i = get_global_id(0);
    scratch[lid] = i < n ? x[i] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 1; s < wg; s *= 2) {
        if (lid % (2 * s) == 0)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        y[get_group_id(0)] = scratch[0];
}

// v2: the same pairs, but handed to the first work-items in order (index = 2*s*lid): whole
// warps are either busy or idle. The addresses a warp touches are now 2s apart, so several of
// them fall in the same local-memory bank and are served one after another (bank conflicts).
__kernel void reduce_v2_strided(__global const float *x, __global float *y, uint n,
                                __local float *scratch)
{
    const uint lid = get_local_id(0);
    const uint wg = get_local_size(0);
    const uint i = get_global_id(0);
    scratch[lid] = i < n ? x[i] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 1; s < wg; s *= 2) {
        const uint index = 2 * s * lid;
        if (index < wg)
            scratch[index] += scratch[index + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        y[get_group_id(0)] = scratch[0];
}

// v3: sequential addressing. The first half adds the second half into itself, then the first
// quarter the second quarter, ...: neighbouring work-items touch neighbouring floats, with
// no bank conflicts. But half the work-items only ever load one value.
__kernel void reduce_v3_sequential(__global const float *x, __global float *y, uint n,
                                   __local float *scratch)
{
    const uint lid = get_local_id(0);
    const uint wg = get_local_size(0);
    const uint i = get_global_id(0);
    scratch[lid] = i < n ? x[i] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = wg / 2; s > 0; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        y[get_group_id(0)] = scratch[0];
}

// v4: first add during load. A group covers 2*WG elements (from group * 2 * wg): work-item lid
// loads x[i] and x[i + wg] (each only if below n) and adds them before v3's tree, so half as
// many groups do the same job and no work-item idles at step 1.
__kernel void reduce_v4_first_add(__global const float *x, __global float *y, uint n,
                                  __local float *scratch)
{
    // ---- starter ----
    // TODO (about 14 lines): v3 with the two loads added before the first barrier.
    // ---- your code ----
    const uint lid = get_local_id(0);
    const uint wg = get_local_size(0);
    const uint i = get_group_id(0) * 2 * wg + lid;
    float p = i < n ? x[i] : 0.0f;
    if (i + wg < n)
        p += x[i + wg];
    scratch[lid] = p;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = wg / 2; s > 0; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        y[get_group_id(0)] = scratch[0];
    // ---- end of your code ----
}

// ---- starter ----
// TODO (about 35 lines): a function the next three kernels end with,
//     void finish_group(float p, __global float *y, __local float *scratch)
// every work-item holds p; the group's sum goes to y[get_group_id(0)]. Write it twice:
//   #ifdef WITH_SUBGROUPS (the host defines it where the device has sub-groups; put
//     "#pragma OPENCL EXTENSION cl_khr_subgroups : enable" inside, under #ifdef cl_khr_subgroups):
//     sub_group_reduce_add(p) gives each sub-group's sum with no barrier; the first work-item
//     of each sub-group stores it in scratch[get_sub_group_id()]; one barrier; then sub-group 0
//     adds those get_num_sub_groups() values (a loop, then sub_group_reduce_add again).
//   #else: v3's tree, but over the compile-time constant WG, so the compiler can unroll it.
//     Keep every barrier: dropping the last ones trusts warps to run in lockstep, which
//     OpenCL never promises.
// ---- your code ----
// The end of v5, v6 and v7: every work-item holds p; the group's sum goes to y[group].
#ifdef WITH_SUBGROUPS
#ifdef cl_khr_subgroups
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif
// The hardware adds within a sub-group (a warp, or a CPU's SIMD lanes) with no barrier; one
// barrier hands the sub-group sums to the first sub-group, which adds them the same way.
void finish_group(float p, __global float *y, __local float *scratch)
{
    const float mine = sub_group_reduce_add(p);
    if (get_sub_group_local_id() == 0)
        scratch[get_sub_group_id()] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_sub_group_id() == 0) {  // the same for a whole sub-group: all of it calls below
        float t = 0.0f;
        for (uint k = get_sub_group_local_id(); k < get_num_sub_groups(); k += get_sub_group_size())
            t += scratch[k];
        t = sub_group_reduce_add(t);
        if (get_sub_group_local_id() == 0)
            y[get_group_id(0)] = t;
    }
}
#else
// No sub-groups: WG is a compile-time constant, so the compiler unrolls the whole tree (no
// loop counter, no test of s). Every step keeps its barrier: without one, the last steps
// would trust warps to run in lockstep, which OpenCL does not promise.
void finish_group(float p, __global float *y, __local float *scratch)
{
    const uint lid = get_local_id(0);
    scratch[lid] = p;
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint s = WG / 2; s > 0; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        y[get_group_id(0)] = scratch[0];
}
#endif
// ---- end of your code ----

// v5: v4's load, then finish_group: the last steps unrolled (or done by sub-groups).
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void reduce_v5_unrolled(__global const float *x, __global float *y, uint n,
                        __local float *scratch)
{
    // ---- starter ----
    // TODO (about 6 lines).
    // ---- your code ----
    const uint lid = get_local_id(0);
    const uint i = get_group_id(0) * 2 * WG + lid;
    float p = i < n ? x[i] : 0.0f;
    if (i + WG < n)
        p += x[i + WG];
    finish_group(p, y, scratch);
    // ---- end of your code ----
}

// v6: a fixed number of groups (a few per compute unit); each work-item adds many elements,
// then finish_group. Work-item gid adds x[gid*spread + k*step] for k = 0, 1, ... while the index
// is below both gid*spread + span and n. The host picks the layout:
//   interleaved (GPU): spread 1, step = work-items in the launch, span n. Neighbouring
//     work-items read neighbouring floats at the same time: coalesced loads.
//   blocked (CPU): spread = span = elements per work-item, step 1. A CPU runs a group's
//     work-items one after another, so each should stream through its own contiguous block.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void reduce_v6_grid_stride(__global const float *x, __global float *y, uint n, uint spread,
                           uint step, uint span, __local float *scratch)
{
    // ---- starter ----
    // TODO (about 6 lines).
    // ---- your code ----
    const uint first = get_global_id(0) * spread;
    const uint end = min(n, first + span);
    float p = 0.0f;
    for (uint i = first; i < end; i += step)
        p += x[i];
    finish_group(p, y, scratch);
    // ---- end of your code ----
}

// v7: v6 over float4: view x as (__global const float4 *), 16-byte loads, a quarter as many load
// instructions. spread, step and span count float4s, and there are n / 4 whole ones. Two float4
// running sums keep two loads in flight per work-item; their four lanes are added at the end,
// and work-item 0 also adds the 0 to 3 floats past the last whole float4. Then finish_group. The
// loop is a function, above the kernel, since v8 runs it too:
//     float sum_float4s(__global const float *x, uint n, uint spread, uint step, uint span)
// ---- starter ----
// TODO (about 20 lines): sum_float4s.
// ---- your code ----
float sum_float4s(__global const float *x, uint n, uint spread, uint step, uint span)
{
    __global const float4 *x4 = (__global const float4 *)x;
    const uint quads = n / 4;
    const uint first = get_global_id(0) * spread;
    const uint end = min(quads, first + span);
    float4 a = (float4)(0.0f), b = (float4)(0.0f);
    uint i = first;
    for (; i + step < end; i += 2 * step) {
        a += x4[i];
        b += x4[i + step];
    }
    if (i < end)
        a += x4[i];
    a += b;
    float p = (a.x + a.y) + (a.z + a.w);
    if (get_global_id(0) == 0)
        for (uint t = 4 * quads; t < n; ++t)
            p += x[t];
    return p;
}
// ---- end of your code ----

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void reduce_v7_float4(__global const float *x, __global float *y, uint n, uint spread,
                      uint step, uint span, __local float *scratch)
{
    // ---- starter ----
    // TODO (1 line): finish_group of what sum_float4s returns.
    // ---- your code ----
    finish_group(sum_float4s(x, n, spread, step, span), y, scratch);
    // ---- end of your code ----
}

// v8: one pass. Each group sums its share as v7 does and writes it to y[group], then takes a
// ticket: atomic_inc(tickets) (0 at the launch). The group that draws the last ticket
// (groups - 1) adds all the partials y[0..groups) and writes the total to y[groups]. Between
// groups only a fence and an atomic order memory (CUDA's threadfence reduction does the same
// with __threadfence()):
//   - barrier(CLK_GLOBAL_MEM_FENCE) after finish_group, then work-item 0: mem_fence (release:
//     the partial before the ticket), atomic_inc, mem_fence again (acquire: every earlier
//     ticket's partial before what follows);
//   - work-item 0 tells the group through a __local int, behind a barrier with both fences;
//   - the last group reads the partials through a __global volatile const float * (another
//     group wrote them in this launch: a plain load may be served from a stale L1 line), and
//     ends with finish_group(p, y + groups - get_group_id(0), scratch), which writes y[groups].
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void reduce_v8_single_pass(__global const float *x, __global float *y, uint n, uint spread,
                           uint step, uint span, __local float *scratch,
                           __global uint *tickets)
{
    // ---- starter ----
    // TODO (about 17 lines).
    // ---- your code ----
    __local int last;
    const uint groups = get_num_groups(0);
    finish_group(sum_float4s(x, n, spread, step, span), y, scratch);
    barrier(CLK_GLOBAL_MEM_FENCE);  // whichever work-item wrote y[group], before the ticket
    if (get_local_id(0) == 0) {
        mem_fence(CLK_GLOBAL_MEM_FENCE);  // release: our partial before our ticket
        last = atomic_inc(tickets) == groups - 1;
        mem_fence(CLK_GLOBAL_MEM_FENCE);  // acquire: the partials of every earlier ticket
    }
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);  // `last` and the acquire, group-wide
    if (!last)
        return;
    // Written by other groups during this launch: through volatile, never a stale L1 line.
    __global volatile const float *partial = y;
    float p = 0.0f;
    for (uint g = get_local_id(0); g < groups; g += WG)
        p += partial[g];
    // finish_group writes its y[get_group_id(0)]: shifted, that is y[groups].
    finish_group(p, y + groups - get_group_id(0), scratch);
    // ---- end of your code ----
}
