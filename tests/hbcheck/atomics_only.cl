// Work-groups that share only atomic words: a histogram by atomic_inc, a ticket counter whose
// tickets pick distinct output slots, and reads of the shared words by another group, with
// atomic_or(p, 0) and with volatile loads. Nothing here needs a fence: no finding. With `peek`,
// work-item 0 also reads what the next group wrote plainly, which nothing orders.

__kernel void histogram(__global const int *in, volatile __global int *bins,
                        volatile __global int *tickets, __global int *slots, __global int *seen,
                        int peek)
{
    const int i = get_global_id(0), g = get_group_id(0), n = get_num_groups(0);
    atomic_inc(&bins[in[i] % 4]);
    slots[atomic_inc(tickets)] = i;
    if (get_local_id(0) == 0) {
        const int other = (g + 1) % n;
        seen[2 * g] = atomic_or(&bins[other % 4], 0);
        seen[2 * g + 1] = bins[(other + 1) % 4] + *tickets + (peek ? seen[2 * other] : 0);
    }
}
