// A total that every group adds to with atomic_add, one work-item each. `mode` 1: group 0 adds
// with a plain += instead, which races with the others' atomics (a lost update on a GPU). Modes
// 0 and 2: the last group waits for every add with volatile loads (OpenCL 1.2's atomic load:
// clean), then reads the total once more, volatile (0, clean) or through a plain pointer (2: a
// plain load racing with the atomics it reads, ordered by nothing).
#define BUDGET 200000

__kernel void total(volatile __global int *total, __global int *seen,
                    volatile __global int *gave_up, int mode)
{
    const int g = get_group_id(0), n = get_num_groups(0);
    if (get_local_id(0) != 0) return;
    if (mode == 1 && g == 0)
        *total += 1;
    else
        atomic_add(total, 1);
    if (mode == 1 || g != n - 1) return;
    int spins = 0;
    while (*total != n)
        if (++spins == BUDGET) { atomic_inc(gave_up); break; }
    seen[0] = mode == 2 ? *(__global int *)total : *total;
}
