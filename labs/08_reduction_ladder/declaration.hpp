// Lab 08's declaration: read by its main, and by the grader and the tests through --describe.
#pragma once
#include "synclab/declaration.hpp"

inline const synclab::Declaration kLab{
    .dir = SYNCLAB_LAB_DIR,
    .summary = "the reduction ladder v1–v8 (v8 in one launch: the last group adds the partials), "
               "each rung as GB/s, as a share of the device's measured read bandwidth and as a "
               "ratio to CLBlast's sum (on a CPU, to OpenMP's and std::threads' too; plot: "
               "`scripts/plot_08_reduction_ladder.sh`)",
    .description = "The reduction ladder v1..v8 (after Harris; v8 in one launch), each rung's "
                   "GB/s as a share of a read probe's measured bandwidth (a copy probe's beside "
                   "it), as a ratio to CLBlast's sum of the same buffer, and on a CPU device as a "
                   "share of the host's own sums (OpenMP, std::threads), whose fastest runs "
                   "count among the read probes. Without -n and --trials: 2^26 floats on a GPU, 2^19 per "
                   "core on a CPU (2^20 at least, 2^25 at most), 5 trials (4096 and 1 on "
                   "Oclgrind).",
    // The starter writes v1 to v3 (the lecture's kernels); v4 to v8 are the student's.
    .variants = {{.name = "v1", .kernels = {"reduce_v1_interleaved"}},
                 {.name = "v2", .kernels = {"reduce_v2_strided"}},
                 {.name = "v3", .kernels = {"reduce_v3_sequential"}},
                 {.name = "v4", .kernels = {"reduce_v4_first_add"}, .todo = true},
                 {.name = "v5", .kernels = {"reduce_v5_unrolled"}, .todo = true},
                 {.name = "v6", .kernels = {"reduce_v6_grid_stride"}, .todo = true},
                 {.name = "v7", .kernels = {"reduce_v7_float4"}, .todo = true},
                 {.name = "v8", .kernels = {"reduce_v8_single_pass"}, .todo = true}},
    // --exact: whole numbers, every group's sum of every pass compared exactly. A large n with
    // n % 4 = 3 and n % (2 wg) != 0, n = 1, n below the group size with n % 4 = 2, and groups
    // from 4 to 1024 with v6/v7's other layout and group count. Not 2: POCL before 7.0 cannot
    // load a sub-group kernel built for groups of 2, so there v5-v7 would be graded without
    // their sub-group finish (the lab builds the unrolled tree instead). Three group sizes
    // only: the program is built with -D WG, so on POCL each new size is a new build of the
    // whole file and of every kernel; a size already built is found in the run's kernel cache.
    .grading = {{"--exact", "-n", "1000003", "--trials", "1"},
                {"--exact", "-n", "1", "--trials", "1"},
                {"--exact", "-n", "50", "--trials", "1"},
                {"--exact", "-n", "4099", "--wg", "4", "--trials", "1"},
                {"--exact", "-n", "70001", "--wg", "1024", "--groups", "5", "--layout",
                 "interleaved", "--trials", "1"}},
    // Each grading shape again on Oclgrind at a small n. n % 4 = 1 where it can: v7 has a tail to
    // read (a whole float4 read there is 12 bytes past the end); small groups first, so every
    // rung makes two or more passes.
    .race_checks = {{"--exact", "-n", "1001", "--wg", "4", "--groups", "4"},
                    {"--exact", "-n", "1001"},
                    {"--exact", "-n", "1"},
                    {"--exact", "-n", "2051", "--wg", "1024", "--groups", "2", "--layout", "interleaved"}},
    .drawn_checks = {{"--exact", "-n", "999", "--wg", "8", "--groups", "5", "--oclgrind-threads", "5"},
                     {"--exact", "-n", "777", "--wg", "32", "--groups", "6", "--oclgrind-threads", "6"},
                     {"--exact", "-n", "555", "--wg", "64", "--groups", "7", "--oclgrind-threads", "7"}},
    .drawn_grading = {{"--exact", "-n", "999", "--wg", "8", "--groups", "5", "--trials", "1"},
                      {"--exact", "-n", "777", "--wg", "32", "--groups", "6", "--trials", "1"},
                      {"--exact", "-n", "555", "--wg", "64", "--groups", "7", "--trials", "1"}},
    // Oclgrind 21.10's uninitialised-value check crashes on float4 loads (v7): only it is off.
    .oclgrind_off = {"uninitialized"},
    .build_per_size = true,  // -D WG
    // v8's groups hand their partials to the last one through a fence and an atomic: hbcheck
    // judges that, with 4 groups running at once.
    .oclgrind_groups = 4,
    .options =
        [](cxxopts::Options &p) {
            p.add_options()
                ("per-cu", "v6-v8: work-groups per compute unit (unless --groups gives the total; "
                           "default 8, 32 on a GPU)",
                 cxxopts::value<std::size_t>())
                ("layout", "v6/v7: which elements a work-item adds: interleaved (neighbours read "
                           "neighbours: GPUs), blocked (each its own run: CPUs), or auto",
                 cxxopts::value<std::string>()->default_value("auto"));
        },
};
