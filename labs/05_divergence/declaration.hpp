// Lab 05's declaration: read by its main, and by the grader and the tests through --describe.
#pragma once
#include "synclab/declaration.hpp"

inline const synclab::Declaration kLab{
    .dir = SYNCLAB_LAB_DIR,
    .summary = "`id % 2`, a k-way switch and one expensive work-item in 32, timed against the same "
               "branches taken per warp (plot: `scripts/plot_05_divergence.sh`)",
    .description = "Divergence: equal work branched per work-item (id % 2, id % k, one item in "
                   "simd expensive) timed against the same branches taken per warp.",
    .variants = {{.name = "evenodd", .kernels = {"evenOdd", "evenOddUniform"}, .todo = true},
                 {.name = "kway", .kernels = {"kWay", "kWayUniform"}, .todo = true},
                 {.name = "expensive", .kernels = {"oneExpensive", "oneExpensiveUniform"},
                  .todo = true}},
    .grading = {{"-n", "8192", "--iters", "64"}, {"-n", "4096", "--iters", "32", "-k", "5"}},
    // Each work-item may touch only in[i] and out[i]: Oclgrind checks every index.
    .race_check = {"-n", "64", "--wg", "32", "--iters", "2", "-k", "3"},
    .options =
        [](cxxopts::Options &p) {
            p.add_options()
                ("k,ways", "k: branches of the k-way switch (1 to 32); with --csv, k = 1..32 are "
                           "all timed", cxxopts::value<int>()->default_value("8"))
                ("iters", "turns per work-item (the expensive one does simd x this)",
                 cxxopts::value<int>()->default_value("1024"))
                ("simd", "SIMT width: the uniform twins branch per block of this many work-items "
                         "and the theory assumes it (32 on NVIDIA)",
                 cxxopts::value<int>()->default_value("32"));
        },
};
