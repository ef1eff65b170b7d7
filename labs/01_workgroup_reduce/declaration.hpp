// Lab 01's declaration: read by its main, and by the grader and the tests through --describe.
#pragma once
#include "synclab/declaration.hpp"

inline const synclab::Declaration kLab{
    .dir = SYNCLAB_LAB_DIR,
    .summary = "a scalar product reduced in local memory: `reduceNoSync` races, `reduceWithSync` "
               "does not",
    .description = "Scalar product reduced in local memory: reduceNoSync (no barriers) vs "
                   "reduceWithSync. Without --groups: one work-group, as in the lecture.",
    .variants = {{.name = "nosync", .kernels = {"reduceNoSync"}, .demonstration = true},
                 {.name = "sync", .kernels = {"reduceWithSync"}, .todo = true}},
    // --exact: whole numbers, every group's sum compared exactly. --groups 0 fills the device: a
    // GPU shows a missing barrier only with many groups. Work-groups from the smallest (1) to
    // 1024: a kernel must not hard-code the default 256.
    .grading = {{"--exact", "--trials", "3", "--groups", "0"},
                {"--exact", "--trials", "2", "--groups", "3", "--wg", "1"},
                {"--exact", "--trials", "2", "--groups", "2", "--wg", "1024"}},
    // One group, as the lecture runs it, then three: a kernel that behaves only when it runs
    // alone is caught by the second.
    .race_checks = {{"--wg", "64"}, {"--wg", "16", "--groups", "3"}},
    .drawn_checks = {{"--wg", "8", "--groups", "5"},
                     {"--wg", "32", "--groups", "6"},
                     {"--wg", "4", "--groups", "7"}},
};
