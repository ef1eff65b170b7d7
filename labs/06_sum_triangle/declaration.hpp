// Lab 06's declaration: read by its main, and by the grader and the tests through --describe.
#pragma once
#include "synclab/declaration.hpp"

inline const synclab::Declaration kLab{
    .dir = SYNCLAB_LAB_DIR,
    .summary = "sumTriangle: column sums in global memory V, then a total; no barrier, a "
               "local-fence barrier and `barrier(CLK_GLOBAL_MEM_FENCE)` (plot: "
               "`scripts/plot_06_sum_triangle.sh`)",
    .description = "sumTriangle: work-item j adds column j of an N x N matrix above the diagonal "
                   "into V[j] (global memory), then the last one adds V into V[N]. Without -n: "
                   "N = 11, as in the lecture.",
    .variants = {{.name = "nobarrier", .kernels = {"sumTriangleNoBarrier"}, .demonstration = true},
                 {.name = "localfence", .kernels = {"sumTriangleLocalFence"},
                  .demonstration = true},
                 {.name = "triangle", .kernels = {"sumTriangle"}, .todo = true},
                 {.name = "odd", .kernels = {"sumTriangleOdd"}, .todo = true},
                 {.name = "tree", .kernels = {"sumTriangleTree"}, .todo = true},
                 {.name = "groups", .kernels = {"sumTriangleGroups", "sumPartials"},
                  .todo = true}},
    // Every V[j] compared exactly. N = 11 (the lecture), 1, not a power of two, the largest
    // group every device here has (1024); groups of 1 to 1024 for the groups variant, a partial
    // last group and a final pass over a group size that is not a power of two.
    .grading = {{"-n", "11"},
                {"-n", "1", "--wg", "1"},
                {"-n", "200", "--wg", "64"},
                {"-n", "777", "--wg", "5"},
                {"-n", "1024", "--wg", "1024"}},
    // Each grading shape again on Oclgrind, at a small N where the grading's is large.
    .race_checks = {{"-n", "11"},
                    {"-n", "1", "--wg", "1"},
                    {"-n", "100", "--wg", "64"},
                    {"-n", "23", "--wg", "5"},
                    {"-n", "100", "--wg", "1024"}},
    .drawn_checks = {{"-n", "29", "--wg", "8"},
                     {"-n", "45", "--wg", "4"},
                     {"-n", "70", "--wg", "12"}},
    .drawn_grading = {{"-n", "29", "--wg", "8"},
                      {"-n", "45", "--wg", "4"},
                      {"-n", "70", "--wg", "12"}},
    .options =
        [](cxxopts::Options &p) {
            p.add_options()
                ("sweep", "the wrong-answer rate of nobarrier, localfence and triangle over N = "
                          "1 .. -n (else the largest work-group), --trials launches each "
                          "(default 20; CSV: --csv)");
        },
};
