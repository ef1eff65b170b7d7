// Lab 06 (solution): sumTriangle. M is an N x N matrix (row-major); work-item j adds column j
// over the rows above the diagonal (i < j) into V[j]; then the total of V[0..N-1] goes to V[N].
// V has N + 1 elements and lives in GLOBAL memory: the barrier between the two phases must
// order global writes, so its fence is CLK_GLOBAL_MEM_FENCE.
//
// Contract (single-group kernels): one work-group of get_local_size(0) >= N work-items; items
// j >= N have no column but still reach every barrier. The host fills V with NaN first.
// sumTriangleGroups + sumPartials: N columns over as many groups as it takes (see below).

// Your task: sumTriangle, sumTriangleOdd, sumTriangleTree and sumTriangleGroups give wrong
// answers. Fill in their TODOs. Run ./build/bin/lab06_sum_triangle to check (no rebuild needed),
// and with --device oclgrind: a missing or wrong barrier can give right numbers and still race.

// The lecture's kernel without its barrier: the last work-item may add V[i] before work-item i
// has stored it. Kept as a demonstration.
__kernel void sumTriangleNoBarrier(__global const float *M, __global float *V, int N)
{
    const int j = get_local_id(0);
    if (j < N) {
        float sum = 0.0f;
        for (int i = 0; i < j; i++)
            sum += M[i * N + j];
        V[j] = sum;
    }
    if (j == N - 1) {
        float sum = 0.0f;
        for (int i = 0; i < N; i++)
            sum += V[i];
        V[N] = sum;
    }
}

// A barrier whose fence covers local memory only: every work-item waits, but nothing says the
// global writes before it are seen by the others after it. Kept as a demonstration.
__kernel void sumTriangleLocalFence(__global const float *M, __global float *V, int N)
{
    const int j = get_local_id(0);
    if (j < N) {
        float sum = 0.0f;
        for (int i = 0; i < j; i++)
            sum += M[i * N + j];
        V[j] = sum;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (j == N - 1) {
        float sum = 0.0f;
        for (int i = 0; i < N; i++)
            sum += V[i];
        V[N] = sum;
    }
}

// The lecture's kernel. Its slides leave out the barrier and make two slips in the last block:
// which work-item is the last one, and where the total goes.
__kernel void sumTriangle(__global const float *M, __global float *V, int N)
{
    const int j = get_local_id(0);
    if (j < N) {
        float sum = 0.0f;
        for (int i = 0; i < j; i++)
            sum += M[i * N + j];
        V[j] = sum;
    }
    // ---- starter ----
    // TODO (1 line): a barrier whose fence makes every V[j] above seen by the last work-item.
    // TODO (2 fixes): which work-item is the last one, and where does the total go (V has N + 1
    // elements)?
    //| if (j == N) {
        //| float sum = 0.0f;
        //| for (int i = 0; i < N; i++)
            //| sum += V[i];
        //| V[N + 1] = sum;
    //| }
    // ---- your code ----
    barrier(CLK_GLOBAL_MEM_FENCE);
    // The slides' slips: the last work-item is N - 1 (not N), the total goes to V[N] (not
    // V[N + 1], past the end).
    if (j == N - 1) {
        float sum = 0.0f;
        for (int i = 0; i < N; i++)
            sum += V[i];
        V[N] = sum;
    }
    // ---- end of your code ----
}

// Variant I: only the odd rows (i % 2 == 1) of each column are added. The total is added as in
// sumTriangle.
__kernel void sumTriangleOdd(__global const float *M, __global float *V, int N)
{
    // ---- starter ----
    //| const int j = get_group_id(0);  // TODO (1 fix): the slide's blockIdx.x; which index is meant?
    // ---- your code ----
    const int j = get_local_id(0);  // the slide's blockIdx.x: the thread index was meant
    // ---- end of your code ----
    if (j < N) {
        float sum = 0.0f;
        for (int i = 0; i < j; i++)
            // ---- starter ----
            // TODO (1 line): skip the even rows.
            //| sum += M[i * N + j];
            // ---- your code ----
            if (i % 2)
                sum += M[i * N + j];
            // ---- end of your code ----
        V[j] = sum;
    }
    // ---- starter ----
    // TODO (7 lines): the barrier, then the last work-item adds V[0..N-1] into V[N].
    // ---- your code ----
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (j == N - 1) {
        float sum = 0.0f;
        for (int i = 0; i < N; i++)
            sum += V[i];
        V[N] = sum;
    }
    // ---- end of your code ----
}

// Variant II: every work-item takes part in the total, with the lecture's tree on V in place:
// at stride s = 1, 2, 4, ... (s < N), work-item j with j % (2s) == 0 and j + s < N adds V[j + s]
// into V[j]. The tree leaves the total in V[0] (and partial sums in the other even V[j]: the
// host checks those too), and work-item 0 copies it to V[N].
__kernel void sumTriangleTree(__global const float *M, __global float *V, int N)
{
    const int j = get_local_id(0);
    if (j < N) {
        float sum = 0.0f;
        for (int i = 0; i < j; i++)
            sum += M[i * N + j];
        V[j] = sum;
    }
    // ---- starter ----
    // TODO (1 line): the barrier before the tree reads V.
    // TODO (5 lines): the tree. Mind where its barrier goes: every work-item of the group,
    // j >= N included, must reach it at every level.
    // ---- your code ----
    barrier(CLK_GLOBAL_MEM_FENCE);
    // A barrier ends every level, reached by every work-item (none is inside the if).
    for (int s = 1; s < N; s *= 2) {
        if (j % (2 * s) == 0 && j + s < N)
            V[j] += V[j + s];
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
    // ---- end of your code ----
    if (j == 0)
        V[N] = V[0];
}

// Past one work-group (labs 02 and 03): no barrier reaches across groups, so each group leaves
// the partial sum of its own columns in partial[group], and a second launch adds the partials.
// Column j = global id; the group's last column sums the group's slice of V after the barrier.
__kernel void sumTriangleGroups(__global const float *M, __global float *V,
                                __global float *partial, int N)
{
    const int j = get_global_id(0);
    const int first = get_group_id(0) * get_local_size(0);
    if (j < N) {
        float sum = 0.0f;
        for (int i = 0; i < j; i++)
            sum += M[i * N + j];
        V[j] = sum;
    }
    // ---- starter ----
    // TODO (1 line): the barrier.
    // TODO (7 lines): the group's last column (the last group may have fewer than
    // get_local_size(0)) adds V[first..that column] into partial[get_group_id(0)].
    // ---- your code ----
    barrier(CLK_GLOBAL_MEM_FENCE);
    const int last = min(N, first + (int)get_local_size(0)) - 1;
    if (j == last) {
        float sum = 0.0f;
        for (int i = first; i <= last; i++)
            sum += V[i];
        partial[get_group_id(0)] = sum;
    }
    // ---- end of your code ----
}

// The final pass, one work-group: each work-item adds every get_local_size(0)-th partial, then
// the lecture's tree (any group size) adds those in local memory; work-item 0 writes V[N].
__kernel void sumPartials(__global const float *partial, __global float *V, int N, int groups,
                          __local float *scratch)
{
    const int j = get_local_id(0);
    const int size = get_local_size(0);
    float sum = 0.0f;
    for (int g = j; g < groups; g += size)
        sum += partial[g];
    scratch[j] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 1; s < size; s *= 2) {
        if (j % (2 * s) == 0 && j + s < size)
            scratch[j] += scratch[j + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (j == 0)
        V[N] = scratch[0];
}
