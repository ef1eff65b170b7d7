// Lab 10 (starter): Jacobi sweeps of the 5-point Laplace stencil on an I x J grid (point (i, j)
// at u[i + j*I], i along a row). Boundary points keep their values (Dirichlet); each interior
// point becomes the average of its four neighbours from the previous sweep. Two buffers, swapped
// every sweep by the host: the end of a launch is the barrier between sweeps.
//
// A 2D NDRange, one work-item per point, one work-group per block of the grid. The NDRange is
// rounded up to whole blocks, so I and J need not be multiples of the block: a work-item outside
// the grid writes nothing. (The lecture tests for the boundary before it tests for the grid, so a
// work-item past the right edge of row 0 writes into row 1: here the grid test comes first.)

// The new value of an interior point, added in this order so that the host's reference, adding
// in the same order, gives the same float bit for bit: ((west + east) + south) + north.
float jacobi_point(float west, float east, float south, float north) {
    // ---- your code ----
    // TODO (1 line): return a quarter of the four neighbours' sum, added in exactly this order:
    // ((west + east) + south) + north (the host's reference adds them so; 0.25f, not 0.25).
    return 0.0f;
    // ---- end of your code ----
}

// The lecture's kernel, reading the neighbours from global memory.
__kernel void jacobiNaive(uint I, uint J, const __global float *u1, __global float *u2) {
    const uint i = get_global_id(0), j = get_global_id(1);
    if (i >= I || j >= J) return;  // outside the grid: nothing to do
    const uint id = i + j * I;
    if (i == 0 || i == I - 1 || j == 0 || j == J - 1)
        u2[id] = u1[id];  // Dirichlet: the boundary is copied
    else
        u2[id] = jacobi_point(u1[id - 1], u1[id + 1], u1[id - I], u1[id + I]);
}

// Each work-item walks down `rows` points of one column (the lecture's 3D solver gives each
// thread a whole line in z): the point above is the next point's centre and the centre the next
// point's south, so each point is loaded from global memory once by its own column.
__kernel void jacobiRows(uint I, uint J, const __global float *u1, __global float *u2, uint rows) {
    const uint i = get_global_id(0), j0 = get_global_id(1) * rows;
    if (i >= I || j0 >= J) return;
    const uint j1 = min(J, j0 + rows);
    uint id = i + j0 * I;
    if (i == 0 || i == I - 1) {  // a boundary column: copied
        for (uint j = j0; j < j1; ++j, id += I) u2[id] = u1[id];
        return;
    }
    float south = j0 > 0 ? u1[id - I] : 0.0f, here = u1[id];
    for (uint j = j0; j < j1; ++j, id += I) {
        const float north = j + 1 < J ? u1[id + I] : 0.0f;
        u2[id] = j == 0 || j == J - 1 ? here : jacobi_point(u1[id - 1], u1[id + 1], south, north);
        south = here;
        here = north;
    }
}

// The same sweep from local memory: the group loads its block and a one-point halo around it
// (tile of (bx + 2) x (by + 2) floats, corners unused), waits, then computes from the tile. A
// work-item outside the grid still reaches the barrier: every work-item of a group must.
__kernel void jacobiTiled(uint I, uint J, const __global float *u1, __global float *u2,
                          __local float *tile) {
    const uint i = get_global_id(0), j = get_global_id(1);
    const uint x = get_local_id(0) + 1, y = get_local_id(1) + 1;  // place in the tile
    const uint bx = get_local_size(0), by = get_local_size(1), w = bx + 2;
    const int inside = i < I && j < J;
    const uint id = i + j * I;
    if (inside) {
        tile[x + y * w] = u1[id];
        // ---- your code ----
        // TODO (4 lines): the halo. A work-item on the block's west, east, south or north
        // edge also loads its neighbour just outside the block into the tile's border, but
        // only where the grid has that point: past the grid's edge there is nothing to read.
        // ---- end of your code ----
    }
    // ---- your code ----
    // TODO (1 line): the barrier: no work-item may read a neighbour's tile entry before every
    // work-item of the group has written its own.
    // ---- end of your code ----
    if (!inside) return;
    if (i == 0 || i == I - 1 || j == 0 || j == J - 1)
        u2[id] = tile[x + y * w];
    else
        u2[id] = jacobi_point(tile[x - 1 + y * w], tile[x + 1 + y * w], tile[x + (y - 1) * w],
                              tile[x + (y + 1) * w]);
}

// ---- All sweeps in one launch: lab 09's barrier between work-groups, given complete. ----------
// Occupancy discovery (after Sorensen et al.) keeps only the groups that were running at the same
// time; they share out the grid's blocks and wait for one another after every sweep with the
// decentralized barrier (Xiao and Feng). Every wait has a budget: a group that runs out of it
// raises ctl[GAVE_UP] and every group stops; the host says how many groups arrived.
#define GAVE_UP 0
#define EXPECT 1  // set by the host: the poll closes once that many came (0: when quiet)
#define POLL 3
#define CLOSED 0x80000000u

uint flat_id(void) { return get_local_id(0) + get_local_id(1) * get_local_size(0); }
uint flat_size(void) { return get_local_size(0) * get_local_size(1); }

int keep_waiting(__global volatile uint *ctl, uint *spins, uint budget) {
    if (ctl[GAVE_UP]) return 0;
    if (++*spins < budget) return 1;
    atomic_xchg(&ctl[GAVE_UP], 1u);
    return 0;
}

// Run by each group's master: the group's id among those registered while the poll was open,
// or -1 (it was not running then, so it takes no part). *parts: how many registered.
int discover(__global volatile uint *ctl, uint grace, uint budget, uint *parts) {
    uint s = atomic_or(&ctl[POLL], 0u);
    int id = -1;
    while (!(s & CLOSED)) {
        const uint old = atomic_cmpxchg(&ctl[POLL], s, s + 1);
        if (old == s) {
            id = (int)s;
            break;
        }
        s = old;
    }
    if (id < 0) return -1;
    uint spins = 0;
    if (id == 0) {  // closes the poll once `grace` polls in a row saw no newcomer, or all came
        const uint expect = ctl[EXPECT];
        uint seen = 1, quiet = 0;
        while (quiet < grace && ++spins < budget) {
            const uint now = ctl[POLL];  // volatile: a poll that no delay of an atomic slows
            quiet = now == seen ? quiet + 1 : 0;
            seen = now;
            if (expect && seen >= expect) break;
        }
        s = atomic_or(&ctl[POLL], CLOSED) | CLOSED;
    } else {
        while (!((s = atomic_or(&ctl[POLL], 0u)) & CLOSED))
            if (!keep_waiting(ctl, &spins, budget)) return -1;
    }
    *parts = s & ~CLOSED;
    return id;
}

// flags: in[groups] then out[groups]; goal grows by one each sweep, so no flag is ever reset.
// Returns 1 when every group arrived, 0 when a wait gave up. A flag another group polls is set
// with an atomic (a plain store there races with the polls under OpenCL's memory model), and
// every poll that ends a wait is followed by an acquire fence.
int grid_barrier(__global volatile uint *flags, __global volatile uint *ctl, uint me,
                 uint groups, uint goal, uint budget, __local volatile int *go) {
    __global volatile uint *in = flags, *out = flags + groups;
    const uint t = flat_id(), size = flat_size();
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);  // the group's sweep written
    if (t == 0) {
        *go = 1;
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        atomic_xchg(&in[me], goal);  // arrived
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (me == 0) {  // group 0's work-items watch the arrival flags, each its own
        for (uint g = t; g < groups; g += size) {
            uint spins = 0;
            while (in[g] != goal)
                if (!keep_waiting(ctl, &spins, budget)) {
                    atomic_xchg(go, 0);
                    break;
                }
        }
        mem_fence(CLK_GLOBAL_MEM_FENCE);
    }
    // With a global fence: the work-item that releases a group is not the one that saw it arrive.
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    const int all_in = *go;
    if (me == 0 && all_in) {  // all arrived: release them
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        for (uint g = t; g < groups; g += size) atomic_xchg(&out[g], goal);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t == 0 && all_in) {
        uint spins = 0;
        while (out[me] != goal)
            if (!keep_waiting(ctl, &spins, budget)) {
                *go = 0;
                break;
            }
        mem_fence(CLK_GLOBAL_MEM_FENCE);
    }
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    return *go;
}

// One sweep of the blocks me, me + parts, ... Reads through volatile: inside one launch a
// group reads what other groups wrote, which an NVIDIA GPU may serve stale from its own L1.
void sweep_blocks(uint I, uint J, const __global volatile float *u1, __global float *u2, uint me,
                  uint parts) {
    const uint bx = get_local_size(0), by = get_local_size(1);
    const uint across = (I + bx - 1) / bx, blocks = across * ((J + by - 1) / by);
    for (uint b = me; b < blocks; b += parts) {
        // Row and column of block b, without %: Oclgrind cannot run the freeze that LLVM adds
        // when it pairs a / with a %.
        const uint row = b / across, col = b - row * across;
        const uint i = col * bx + get_local_id(0), j = row * by + get_local_id(1);
        if (i >= I || j >= J) continue;
        const uint id = i + j * I;
        if (i == 0 || i == I - 1 || j == 0 || j == J - 1)
            u2[id] = u1[id];
        else
            u2[id] = jacobi_point(u1[id - 1], u1[id + 1], u1[id - I], u1[id + I]);
    }
}

// `sweeps` sweeps in one launch, a and b swapped each sweep as the host swaps them between
// launches. seen[g]: the sweeps group g finished (the host counts who arrived after a give-up).
__kernel void jacobiPersistent(uint I, uint J, __global float *a, __global float *b, uint sweeps,
                               uint budget, uint grace, __global volatile uint *ctl,
                               __global volatile uint *flags, __global uint *seen) {
    __local volatile int go;
    __local uint me, parts;
    if (flat_id() == 0) {
        uint p = 0;
        const int id = discover(ctl, grace, budget, &p);
        go = id >= 0;
        me = id < 0 ? 0 : (uint)id;
        parts = p;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint my = me, all = parts;
    for (uint s = 0, ok = go; s < sweeps && ok; ++s) {
        sweep_blocks(I, J, s & 1 ? b : a, s & 1 ? a : b, my, all);
        if (flat_id() == 0) seen[my] = s + 1;
        ok = grid_barrier(flags, ctl, my, all, s + 1, budget, &go);
    }
}

// The rows r0 .. r1 - 1 of one sweep, each along its length, as a host thread sweeps them. Rows r0 - 1 and r1 are another group's, written in the last
// sweep: read through volatile (jacobiPersistent says why); the band's own rows were written by
// this work-item.
void sweep_band(uint I, uint J, const __global float *u1, __global float *u2, uint r0, uint r1) {
    for (uint j = r0; j < r1; ++j) {
        const __global float *c = u1 + (size_t)j * I;
        __global float *out = u2 + (size_t)j * I;
        if (j == 0 || j == J - 1) {  // the grid's first and last rows: copied
            for (size_t i = 0; i < I; ++i) out[i] = c[i];
            continue;
        }
        out[0] = c[0];
        if (j == r0 || j + 1 == r1) {  // the loop again, its neighbour rows volatile
            const __global volatile float *s = c - I, *n = c + I;
            for (size_t i = 1; i + 1 < I; ++i) out[i] = jacobi_point(c[i - 1], c[i + 1], s[i], n[i]);
        } else {
            const __global float *s = c - I, *n = c + I;
            // Asked for: POCL 5 left this loop scalar (a quarter of the speed) unless told.
#pragma clang loop vectorize(enable)
            for (size_t i = 1; i + 1 < I; ++i) out[i] = jacobi_point(c[i - 1], c[i + 1], s[i], n[i]);
        }
        out[I - 1] = c[I - 1];
    }
}

// jacobiPersistent for a CPU: groups of one work-item, each owning a band of whole rows that it
// sweeps along the rows. jacobiPersistent deals its blocks round the groups, so their neighbours
// are other cores' blocks; a band shares only its two edge rows. Discovery and barrier as there.
__kernel void jacobiBands(uint I, uint J, __global float *a, __global float *b, uint sweeps,
                          uint budget, uint grace, __global volatile uint *ctl,
                          __global volatile uint *flags, __global uint *seen) {
    __local volatile int go;
    uint parts = 0;
    const int id = discover(ctl, grace, budget, &parts);
    go = id >= 0;
    const uint me = id < 0 ? 0 : (uint)id;
    const uint r0 = (uint)((ulong)J * me / max(parts, 1u)), r1 = (uint)((ulong)J * (me + 1) / max(parts, 1u));
    for (uint s = 0, ok = go; s < sweeps && ok; ++s) {
        sweep_band(I, J, s & 1 ? b : a, s & 1 ? a : b, r0, r1);
        seen[me] = s + 1;
        ok = grid_barrier(flags, ctl, me, parts, s + 1, budget, &go);
    }
}

// jacobiRows over four columns a work-item (work-item (x, y) takes columns 4x to 4x + 3, rows
// y * rows to y * rows + rows - 1): one vload4 per row brings in four centres (the row above is
// the next row's centres and the row below the last row's), the west and east neighbours are
// those lanes shifted, plus one float each side; vstore4 writes four points. A quarter as many
// load and store instructions as jacobiRows for the same bytes. The work-items whose columns
// include the grid's first or last column (or run past it) take them one at a time.
__kernel void jacobiRows4(uint I, uint J, const __global float *u1, __global float *u2, uint rows) {
    // ---- your code ----
    // TODO (about 22 lines): return when 4x >= I or y * rows >= J. A work-item whose four columns
    // include column 0 or I - 1 (or run past I) takes its columns one at a time (boundary points
    // copied, the others jacobi_point of their four neighbours). The others walk down their rows
    // with float4 south, here and north (vload4(0, u1 + id) and so on; the grid's first and last
    // rows are copied with vstore4); west = (float4)(u1[id - 1], here.xyz), east likewise with
    // u1[id + 4]; the new value 0.25f * (((west + east) + south) + north), jacobi_point's order,
    // so that every float matches the host's bit for bit.
    // ---- end of your code ----
}

// ---- Temporal blocking: `fuse` sweeps a pass, streamed down the grid (2.5D, as AN5D does). ----
// A group's work-items, in order (x + y * bx), are the columns of a tile n wide: the group writes
// its n - 2 * fuse middle columns, the fuse columns each side its halo, one less valid after each
// sweep. It walks its band of `band` rows from fuse rows above the band, a row a step: stage s
// (sweep s + 1) keeps its input's rows r - 1 and r in registers (south[s], here[s]); its north is
// what stage s - 1 made this step (stage 0: the row loaded). West and east come through local
// memory, one line a stage; the lines alternate between two sets, so one barrier a step
// suffices. Stage s works on row t - s - 1 at step t; the last stage's row is written.
#define FUSE_MAX 16  // the most sweeps a pass: the stages' registers are unrolled up to it

__kernel void jacobiTemporal(uint I, uint J, const __global float *u1, __global float *u2,
                             uint fuse, uint band, __local float *line) {
    const uint n = get_local_size(0) * get_local_size(1);
    const uint x = get_local_id(0) + get_local_id(1) * get_local_size(0);  // the tile's column
    const uint j0 = get_group_id(1) * band, j1 = min(J, j0 + band);  // the band's rows
    // ---- your code ----
    // TODO (2 lines): the tile's place. Its column i: group g's tiles start n - 2 * fuse
    // columns apart, with fuse columns of halo before the first written (so i < 0 on the first
    // group's halo); top: the first row read, fuse rows above the band (row 0 at the most).
    const int i = -1;   // placeholder: no column in the grid, nothing written
    const uint top = j0;
    // ---- end of your code ----
    const int in_grid = i >= 0 && i < (int)I, fixed = i == 0 || i == (int)I - 1;
    const int writes = in_grid && x >= fuse && x < n - fuse;
    float south[FUSE_MAX], here[FUSE_MAX];
    for (uint s = 0; s < FUSE_MAX; ++s) south[s] = here[s] = 0.0f;
    // The next row is loaded a step ahead: its load is in flight while this step's sweeps run
    // (on an H100, 1.19x rows4 against 1.10x loading each row when it is needed).
    float ahead = in_grid && top < J ? u1[i + top * I] : 0.0f;
    for (uint t = top; t < j1 + fuse; ++t) {
        float north = ahead;
        ahead = in_grid && t + 1 < J ? u1[i + (t + 1) * I] : 0.0f;
        // ---- your code ----
        // TODO (about 17 lines): the fuse sweeps of this step. Put every stage's centre here[s]
        // where its neighbours read it: the lines line[(t & 1) * fuse * n + s * n + x] (two sets
        // of lines, by the step's parity, so that one barrier a step is enough); then the barrier;
        // then, stage by stage (s = 0 .. fuse - 1, a loop unrolled up to FUSE_MAX so that south[]
        // and here[] stay in registers), the row r = t - s - 1: out = here[s], or, off the grid's
        // boundary (fixed, r == 0, r == J - 1) and off the tile's edge columns, jacobi_point of
        // the lines' west and east, south[s] and north; shift south[s] = here[s], here[s] =
        // north, and north = out is the next stage's north (after the last stage: the row written).
        // ---- end of your code ----
        const uint r = t - fuse;  // the last stage's row
        if (writes && t >= fuse && r >= j0 && r < j1) u2[i + r * I] = north;
    }
}
