// A reduction inside each work-group, in global memory, ordered by barrier(CLK_GLOBAL_MEM_FENCE):
// each group sums its own slice and its work-item 0 writes the partial sum to partial[group].
// With `shared_output` every group writes partial[0] instead, and nothing orders those writes.

__kernel void reduce(__global int *values, __global int *partial, int shared_output)
{
    const int l = get_local_id(0), size = get_local_size(0);
    __global int *mine = values + get_group_id(0) * size;
    for (int stride = size / 2; stride > 0; stride /= 2) {
        if (l < stride) mine[l] += mine[l + stride];
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
    if (l == 0) partial[shared_output ? 0 : get_group_id(0)] = mine[0];
}
