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
    // --simd from 1 to 64 and work-groups that hold an odd number of its blocks (down to one
    // work-item): neither may be hard-coded, nor the local id used for the global one. The
    // group larger than the default comes first: a kernel that hard-codes 64 then reads and
    // writes within its buffers and is wrong, before smaller groups would send it past them.
    .grading = {{"-n", "8192", "--iters", "64"},
                {"-n", "3072", "--iters", "4", "-k", "32", "--simd", "64", "--wg", "192"},
                {"-n", "4104", "--iters", "16", "-k", "5", "--simd", "8", "--wg", "24"},
                {"-n", "1000", "--iters", "4", "-k", "3", "--simd", "1", "--wg", "1"}},
    // Each work-item may touch only in[i] and out[i]: Oclgrind checks every index, in each
    // grading shape at a small n.
    .race_checks = {{"-n", "320", "--iters", "2"},
                    {"-n", "384", "--iters", "2", "-k", "32", "--simd", "64", "--wg", "192"},
                    {"-n", "72", "--iters", "2", "-k", "5", "--simd", "8", "--wg", "24"},
                    {"-n", "10", "--iters", "2", "-k", "3", "--simd", "1", "--wg", "1"}},
    .drawn_checks = {{"-n", "200", "--wg", "40", "--iters", "2", "-k", "5", "--simd", "8"},
                     {"-n", "80", "--wg", "16", "--iters", "2", "-k", "3", "--simd", "16"},
                     {"-n", "112", "--wg", "16", "--iters", "2", "-k", "4", "--simd", "4"}},
    .drawn_grading = {{"-n", "200", "--wg", "40", "--iters", "2", "-k", "5", "--simd", "8"},
                      {"-n", "80", "--wg", "16", "--iters", "2", "-k", "3", "--simd", "16"},
                      {"-n", "112", "--wg", "16", "--iters", "2", "-k", "4", "--simd", "4"}},
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
