// Lab 10's declaration: read by its main, and by the grader and the tests through --describe.
#pragma once
#include "synclab/declaration.hpp"

inline const synclab::Declaration kLab{
    .dir = SYNCLAB_LAB_DIR,
    .summary = "Jacobi sweeps of the Laplace stencil on a 2D grid: a point per work-item from "
               "global memory or from a tile with its halo, a column per work-item, block shapes "
               "against the 32:1 rule, all sweeps in one launch (plots: `scripts/plot_10_laplace.sh`)",
    .description = "Jacobi sweeps of the 5-point Laplace stencil on an I x J grid with Dirichlet "
                   "boundaries: a point per work-item from global memory or from a tile in local "
                   "memory, a column per work-item, over block shapes, and all sweeps in one launch.",
    // shapes times naive, tiled and rows over block shapes (--shapes): measured, not graded.
    .variants = {{.name = "naive", .kernels = {"jacobiNaive"}, .todo = true},
                 {.name = "tiled", .kernels = {"jacobiTiled"}, .todo = true},
                 {.name = "rows", .kernels = {"jacobiRows"}, .todo = true},
                 {.name = "rows4", .kernels = {"jacobiRows4"}, .todo = true},
                 {.name = "shapes", .kernels = {"jacobiNaive", "jacobiTiled", "jacobiRows", "jacobiRows4"},
                  .todo = true, .graded = false},
                 {.name = "persistent", .kernels = {"jacobiPersistent"}, .todo = true},
                 // The persistent sweep a CPU streams: measured, not graded (its barrier and
                 // discovery are persistent's, graded there).
                 {.name = "bands", .kernels = {"jacobiBands"}, .todo = true, .graded = false},
                 // --fuse sweeps a pass, streamed down bands of rows (2.5D)
                 {.name = "temporal", .kernels = {"jacobiTemporal"}, .todo = true}},
    // Grids that are and are not multiples of the block, 3x3 (one interior point), one 16x4
    // block alone (the default on a CPU), and blocks of 32x1 and 4x2 that catch a kernel
    // with the block's size or shape written in, and the race checks' 8x4. The first run's sweeps
    // are drawn ({sweeps}, up to the lab's default on a GPU, 200), so no grid barrier can stop
    // waiting after some sweep.
    .grading = {{"--grid", "67x45", "--wg", "32", "--sweeps", "{sweeps}"},
                {"--grid", "3x3", "--block", "4x2", "--sweeps", "5"},
                {"--grid", "16x4", "--sweeps", "9"},
                {"--grid", "37x29", "--block", "4x2", "--sweeps", "12"},
                {"--grid", "16x12", "--block", "8x4", "--sweeps", "7"}},
    // Four groups at once on Oclgrind (oclgrind_groups): discovery finds them, and hbcheck sees
    // them meet. First a grid of whole blocks, so edge work-items of a block sit on the grid's
    // last row and column (a halo load without its guard reads past the grid there); then a
    // ragged one, whose work-items past the grid leave early (a barrier after that return is
    // divergence, which POCL meets as a crash).
    // Each trial a launch in its own schedule (--schedule), on the persistent sweep alone, whose
    // groups wait for one another.
    // Then the long run: the drawn sweeps over a drawn count of groups past 8, in one seeded
    // schedule (hbcheck judges every sweep's grid barrier; POCL stress is not needed for it),
    // and the grading's other shapes at a small grid.
    .race_checks = {{"--grid", "16x12", "--block", "8x4", "--sweeps", "3"},
                    {"--grid", "13x7", "--block", "8x4", "--sweeps", "2"},
                    {"--grid", "16x12", "--block", "8x4", "--sweeps", "3", "--variant",
                     "persistent", "--trials", "32"},
                    {"--grid", "13x7", "--block", "4x2", "--sweeps", "{sweeps}", "--variant",
                     "persistent", "--trials", "1", "--oclgrind-threads", "{groups}"},
                    {"--grid", "3x3", "--block", "4x2", "--sweeps", "2"},
                    {"--grid", "16x4", "--sweeps", "2"},
                    {"--grid", "67x5", "--wg", "32", "--sweeps", "2"}},
    .drawn_checks = {{"--grid", "17x9", "--block", "4x4", "--sweeps", "2", "--trials", "4", "--oclgrind-threads", "5"},
                     {"--grid", "23x10", "--block", "8x2", "--sweeps", "2", "--trials", "4", "--oclgrind-threads", "6"},
                     {"--grid", "9x13", "--block", "2x4", "--sweeps", "2", "--trials", "4", "--oclgrind-threads", "7"}},
    .drawn_grading = {{"--grid", "17x9", "--block", "4x4", "--sweeps", "6"},
                      {"--grid", "23x10", "--block", "8x2", "--sweeps", "6"},
                      {"--grid", "9x13", "--block", "2x4", "--sweeps", "6"}},
    .draws = {{.name = "sweeps", .low = 24, .high = 200}, {.name = "groups", .low = 9, .high = 16}},
    // Oclgrind 21.10's uninitialised-value check crashes on rows4's vload4 (as on lab 08's
    // float4 loads): only it is off. A tile read before it is loaded still shows as a wrong point.
    .oclgrind_off = {"uninitialized"},
    .oclgrind_groups = 4,  // groups that wait for one another meet; hbcheck judges their fences
    // Stress schedules: all sweeps in one launch, with its grid barrier, many sweeps. Three
    // schedules of 96 sweeps: the fewest that fail every lab 10 stress fixture in every grader run
    // (docs/benchmarks.md, "Stress schedules").
    .stress_schedules = 3,
    .stress_args = {"--variant", "persistent", "--grid", "67x45", "--wg", "32", "--sweeps", "96"},
    .stress_warm_up = {"--sweeps", "1"},
    .options =
        [](cxxopts::Options &p) {
            p.add_options()
                ("grid", "grid points IxJ (default 4096x4096 on a GPU, 1024x1024 on a CPU)",
                 cxxopts::value<std::string>())
                ("block", "work-group shape BXxBY (default 16x4; 32x4 on a GPU; --wg N is Nx1)",
                 cxxopts::value<std::string>())
                ("sweeps", "Jacobi sweeps", cxxopts::value<unsigned>())
                ("rows", "rows: points each work-item walks down its column (default 4; 2 on a GPU)",
                 cxxopts::value<unsigned>())
                ("every", "print the residual and the error every K sweeps", cxxopts::value<unsigned>())
                ("shapes", "the shapes variant's blocks, e.g. 32x1,8x8, or 'all' (the lecture's "
                           "sweep; default on a CPU: --block alone)", cxxopts::value<std::string>())
                ("tolerance", "also require |u - (x^2 - y^2)| <= T at the end (converged runs)",
                 cxxopts::value<double>())
                ("dump", "write the final grid as CSV i,j,u (the heat map's input)",
                 cxxopts::value<std::string>())
                ("budget", "persistent: polls a wait may take before it gives up",
                 cxxopts::value<unsigned>())
                ("grace", "persistent: discovery's polls with no newcomer before the poll closes",
                 cxxopts::value<unsigned>())
                ("fuse", "temporal: sweeps a pass, 1 to 16, fewer than half the tile's work-items "
                         "(default 16 on a GPU, cut to its local memory, 4 on a CPU, 3 on Oclgrind; "
                         "the tile: --block, else 256x1 on a GPU)", cxxopts::value<unsigned>())
                ("band", "temporal: rows a work-group walks down (default 256 on a GPU, 16 on a CPU)",
                 cxxopts::value<unsigned>());
        },
};
