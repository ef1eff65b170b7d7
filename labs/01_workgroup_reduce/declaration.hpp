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
    // --exact: whole numbers, every group's sum compared exactly, here and on Oclgrind alike (a
    // kernel must not tell the checks apart by their inputs). --groups 0 fills the device: a
    // GPU shows a missing barrier only with many groups. Work-groups from the smallest (1) to
    // 1024: a kernel must not hard-code the default 256. One group alone, as the lecture runs it.
    .grading = {{"--exact", "--trials", "3", "--groups", "0"},
                {"--exact", "--trials", "2", "--groups", "3", "--wg", "1"},
                {"--exact", "--trials", "2", "--groups", "2", "--wg", "1024"},
                {"--exact"}},
    // Each grading shape again on Oclgrind, fewer groups: one group alone first (the lecture),
    // then several at the default size, the smallest and the largest.
    // After the first, without Oclgrind's uninitialised-value check (a third to half of a check's
    // time): the first makes it, and the dynamic runs poison local memory, so a read of an
    // unwritten element is a wrong answer there.
    .race_checks = {{"--exact"},
                    {"--exact", "--groups", "2", "--oclgrind-off", "uninitialized"},
                    {"--exact", "--groups", "3", "--wg", "1", "--oclgrind-off", "uninitialized"},
                    {"--exact", "--groups", "2", "--wg", "1024", "--oclgrind-off", "uninitialized"}},
    .drawn_checks = {{"--exact", "--wg", "8", "--groups", "5"},
                     {"--exact", "--wg", "32", "--groups", "6"},
                     {"--exact", "--wg", "4", "--groups", "7"}},
    .drawn_grading = {{"--exact", "--wg", "8", "--groups", "5"},
                      {"--exact", "--wg", "32", "--groups", "6"},
                      {"--exact", "--wg", "4", "--groups", "7"}},
};
