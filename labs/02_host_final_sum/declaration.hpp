// Lab 02's declaration: read by its main, and by the grader and the tests through --describe.
#pragma once
#include "synclab/declaration.hpp"

inline const synclab::Declaration kLab{
    .dir = SYNCLAB_LAB_DIR,
    .summary = "any length: every work-group leaves a partial sum, the host adds them; where the "
               "time goes as n grows",
    .description = "Scalar product of any length: dotPartials leaves one partial sum per "
                   "work-group and the host adds them.",
    .variants = {{.name = "host", .kernels = {"dotPartials"}, .todo = true}},
    // --exact: whole numbers, every partial and the total compared exactly. A large n in a part-
    // filled last group, n = 1, n below the group size, and groups from the smallest (1) to 1024.
    .grading = {{"--exact", "-n", "1000003", "--trials", "2"},
                {"--exact", "-n", "1", "--wg", "64"},
                {"--exact", "-n", "50", "--wg", "64"},
                {"--exact", "-n", "4099", "--wg", "1"},
                {"--exact", "-n", "5003", "--wg", "1024"}},
    // Each grading shape again on Oclgrind at a small n: several groups at the default size, one
    // part-filled group, the smallest groups and the largest.
    // After the first, without Oclgrind's uninitialised-value check (a third to half of a check's
    // time): the first makes it, and the dynamic runs poison local memory, so a read of an
    // unwritten element is a wrong answer there.
    .race_checks = {{"--exact", "-n", "600"},
                    {"--exact", "-n", "50", "--wg", "64", "--oclgrind-off", "uninitialized"},
                    {"--exact", "-n", "9", "--wg", "1", "--oclgrind-off", "uninitialized"},
                    {"--exact", "-n", "1500", "--wg", "1024", "--oclgrind-off", "uninitialized"}},
    .drawn_checks = {{"--exact", "-n", "333", "--wg", "128"},
                     {"--exact", "-n", "77", "--wg", "16"},
                     {"--exact", "-n", "199", "--wg", "32"}},
    .drawn_grading = {{"--exact", "-n", "333", "--wg", "128"},
                      {"--exact", "-n", "77", "--wg", "16"},
                      {"--exact", "-n", "199", "--wg", "32"}},
};
