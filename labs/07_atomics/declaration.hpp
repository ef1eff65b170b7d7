// Lab 07's declaration: read by its main, and by the grader and the tests through --describe.
#pragma once
#include "synclab/declaration.hpp"

inline const synclab::Declaration kLab{
    .dir = SYNCLAB_LAB_DIR,
    .summary = "`count++` loses updates, `atomic_inc` does not; the atomic family, a float sum by "
               "compare-and-swap within a budget, a bounded spin lock with and without fences "
               "(OpenCL 2.0's too), votes and ballots",
    .description = "Atomics, voting and locks: lost updates (count++ vs atomic_inc) and the cost of "
                   "contention, the atomic family, a float sum built from atomic_cmpxchg, a global "
                   "spin lock (bounded: it gives up, never hangs) also with OpenCL 2.0 fences, a "
                   "work-group vote, a sub-group ballot, and __syncthreads_count built from a "
                   "barrier and from OpenCL 2.0's work-group functions.",
    .variants = {{.name = "plain", .kernels = {"countPlain", "countLockstep"}, .demonstration = true},
                 {.name = "atomic", .kernels = {"countAtomic", "countGlobal", "countTwoLevel"},
                  .todo = true},
                 {.name = "family",
                  .kernels = {"histogram", "extremes", "firstClaim", "append", "countdown",
                              "pushList"},
                  .todo = true},
                 {.name = "lock_nofence", .kernels = {"lockNoFence"}, .demonstration = true},
                 {.name = "lock", .kernels = {"lockFence"}, .todo = true},
                 // Built with -cl-std=CL2.0/CL3.0 where the device has acquire/release fences at
                 // device scope (POCL 3.1 and 5 do); skipped with why elsewhere (Oclgrind, NVIDIA).
                 // Not graded: without its fences it still verifies on a CPU, and Oclgrind (1.2)
                 // cannot run it, so no grade could tell a missing fence.
                 {.name = "lock_c11", .kernels = {"lockFenceC11"}, .todo = true, .graded = false},
                 {.name = "floatsum", .kernels = {"floatSumCAS", "floatSumTree"}, .todo = true},
                 {.name = "vote", .kernels = {"voteSkip", "alwaysTake"}, .todo = true},
                 // Only devices with sub-groups run it, so it is not graded.
                 {.name = "vote_subgroup", .kernels = {"voteSubgroup"}, .graded = false},
                 // Only devices with cl_khr_subgroup_ballot, or with OpenCL 2.0 work-group
                 // functions, run these: not the CPU device of the grader, so not graded.
                 {.name = "vote_ballot", .kernels = {"voteBallot"}, .todo = true, .graded = false},
                 {.name = "syncreduce", .kernels = {"syncCount"}, .todo = true},
                 {.name = "syncreduce_builtin", .kernels = {"syncCountBuiltin"}, .todo = true,
                  .graded = false}},
    // --exact: the float sums of whole numbers, compared exactly, here and on Oclgrind alike.
    // Two groups to a drawn count past 8 ({groups}), and work-groups of 1, 16, 256 and 1024:
    // nothing may assume the default 256 or a number of groups.
    .grading = {{"--exact", "--trials", "3", "--groups", "{groups}"},
                {"--exact", "--trials", "2", "--groups", "3", "--wg", "1"},
                {"--exact", "--trials", "2", "--groups", "2", "--wg", "1024", "--iters", "8"},
                {"--exact", "--groups", "3", "--wg", "16", "--iters", "4"}},
    // On Oclgrind each trial is a launch in its own schedule (--schedule): 32 of them interleave
    // the countdown's last two arrivals in every grading (docs/grading.md, "Schedules"). Then
    // the drawn count of groups, every one running at once (a worker each), and each other
    // grading shape.
    .race_checks = {{"--exact", "--groups", "3", "--wg", "16", "--iters", "4", "--trials", "32"},
                    {"--exact", "--groups", "{groups}", "--wg", "1", "--iters", "3", "--trials", "2",
                     "--oclgrind-threads", "{groups}"},
                    {"--exact", "--groups", "2"},
                    {"--exact", "--groups", "2", "--wg", "1024", "--iters", "2"}},
    .drawn_checks = {{"--exact", "--groups", "5", "--wg", "8", "--iters", "3", "--trials", "8", "--oclgrind-threads", "5"},
                     {"--exact", "--groups", "6", "--wg", "4", "--iters", "3", "--trials", "8", "--oclgrind-threads", "6"},
                     {"--exact", "--groups", "7", "--wg", "2", "--iters", "3", "--trials", "8", "--oclgrind-threads", "7"}},
    .drawn_grading = {{"--exact", "--groups", "5", "--wg", "8", "--iters", "3"},
                      {"--exact", "--groups", "6", "--wg", "4", "--iters", "3"},
                      {"--exact", "--groups", "7", "--wg", "2", "--iters", "3"}},
    .draws = {{.name = "groups", .low = 9, .high = 16}},
    .oclgrind_groups = 4,  // groups that wait for one another meet; hbcheck judges their fences
    // Stress schedules: the lock and the family's countdown and append between groups of one
    // work-item each, so every group's first work-item runs the protocol (synclab/stress.hpp).
    // Two schedules of 64 trials: the fewest that fail every lab 07 stress fixture in every
    // grader run (docs/benchmarks.md, "Stress schedules").
    .stress_schedules = 2,
    .stress_args = {"--variant", "lock,family", "--exact", "--wg", "1", "--groups", "8",
                    "--trials", "64"},
    .stress_warm_up = {"--trials", "1"},
    .options =
        [](cxxopts::Options &p) {
            p.add_options()
                ("spins", "the most tries of any wait (the lock, a compare-and-swap retry) before "
                          "it gives up (on Oclgrind: 65536)",
                 cxxopts::value<int>()->default_value("1000000"))
                ("cas-budget", "the most compare-and-swap tries one float-sum launch may spend, "
                               "all work-items together, before every one gives up",
                 cxxopts::value<long long>()->default_value("2147483648"))
                ("held", "start with the lock held by nobody who will release it: every group "
                         "must give up, and the lab must say so")
                ("iters", "turns of the vote's expensive branch",
                 cxxopts::value<int>()->default_value("256"))
                ("need-every", "the vote: one group in this many has a work-item that needs the "
                               "expensive branch", cxxopts::value<int>()->default_value("16"));
        },
};
