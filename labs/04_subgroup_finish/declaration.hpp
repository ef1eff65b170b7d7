// Lab 04's declaration: read by its main, and by the grader and the tests through --describe.
#pragma once
#include "synclab/declaration.hpp"

inline const synclab::Declaration kLab{
    .dir = SYNCLAB_LAB_DIR,
    .summary = "the lockstep finish without barriers, measured: right on an NVIDIA GPU, wrong on a "
               "CPU; barriers and `sub_group_reduce_add` instead",
    .description = "Reduction finished inside one sub-group: lockstep (no barriers) vs barriers vs "
                   "sub_group_reduce_add. Without --groups and --trials: 2 groups per compute "
                   "unit (at least 8) and 10 trials; 1 and 1 on Oclgrind.",
    .variants = {{.name = "lockstep", .kernels = {"reduceLockstep"}, .demonstration = true},
                 {.name = "barrier", .kernels = {"reduceBarrier"}, .todo = true},
                 // Only devices with sub-groups run it, so it is not graded.
                 {.name = "subgroup", .kernels = {"reduceSubgroup"}, .todo = true,
                  .graded = false}},
    // --exact: whole numbers, every group's sum compared exactly. --simd narrower and wider than
    // NVIDIA's 32, and work-groups from the smallest (1) to 1024: nothing may be hard-coded.
    // Each --simd is a build of its own (-D SUBGROUP_SIZE), so no more of them than that.
    .grading = {{"--exact", "--trials", "3", "--groups", "0"},
                {"--exact", "--trials", "3", "--groups", "3", "--wg", "128", "--simd", "64"},
                {"--exact", "--trials", "2", "--groups", "3", "--wg", "1", "--simd", "1"},
                {"--exact", "--trials", "2", "--groups", "2", "--wg", "1024", "--simd", "16"}},
    // Each grading shape again on Oclgrind, with fewer groups and one trial.
    // After the first, without Oclgrind's uninitialised-value check (a third to half of a check's
    // time): the first makes it, and the dynamic runs poison local memory, so a read of an
    // unwritten element is a wrong answer there.
    .race_checks = {{"--exact", "--groups", "2"},
                    {"--exact", "--groups", "3", "--wg", "128", "--simd", "64",
                     "--oclgrind-off", "uninitialized"},
                    {"--exact", "--groups", "3", "--wg", "1", "--simd", "1",
                     "--oclgrind-off", "uninitialized"},
                    {"--exact", "--groups", "2", "--wg", "1024", "--simd", "16",
                     "--oclgrind-off", "uninitialized"}},
    .drawn_checks = {{"--exact", "--wg", "16", "--groups", "5", "--simd", "8"},
                     {"--exact", "--wg", "64", "--groups", "6"},
                     {"--exact", "--wg", "8", "--groups", "7", "--simd", "4"}},
    .drawn_grading = {{"--exact", "--wg", "16", "--groups", "5", "--simd", "8"},
                      {"--exact", "--wg", "64", "--groups", "6"},
                      {"--exact", "--wg", "8", "--groups", "7", "--simd", "4"}},
    .build_per_size = true,  // -D SUBGROUP_SIZE, a new one in each grading run
    .options =
        [](cxxopts::Options &p) {
            p.add_options()("simd", "SIMT width the lockstep finish trusts: no barriers once "
                                    "stride <= this (a power of two; NVIDIA's warp is 32)",
                            cxxopts::value<std::size_t>()->default_value("32"));
        },
};
