// Lab 03's declaration: read by its main, and by the grader and the tests through --describe.
#pragma once
#include "synclab/declaration.hpp"

inline const synclab::Declaration kLab{
    .dir = SYNCLAB_LAB_DIR,
    .summary = "no global barrier, so launch again: the same kernel on the partial sums until one "
               "value is left",
    .description = "Scalar product reduced by repeated launches (dotPartials, then reducePartials "
                   "until one value is left), against lab 02's host final sum.",
    .variants = {{.name = "device", .kernels = {"dotPartials", "reducePartials"}, .todo = true},
                 {.name = "host", .kernels = {"dotPartials"}, .graded = false}},
    // --exact: whole numbers, every group's sum of every pass compared exactly. Four passes none
    // of which fills its last group, n = 1, n below the group size, and groups from the smallest
    // (2: twelve passes) to 1024.
    .grading = {{"--exact", "-n", "1000003", "--wg", "64", "--trials", "2"},
                {"--exact", "-n", "1", "--wg", "64"},
                {"--exact", "-n", "50", "--wg", "64"},
                {"--exact", "-n", "3001", "--wg", "2"},
                {"--exact", "-n", "300007", "--wg", "1024"}},
    // Each grading shape again on Oclgrind at a small n (a race in either kernel shows in one
    // launch): several passes, one part-filled group, the smallest groups and the largest.
    // After the first, without Oclgrind's uninitialised-value check (a third to half of a check's
    // time): the first makes it, and the dynamic runs poison local memory, so a read of an
    // unwritten element is a wrong answer there.
    .race_checks = {{"--exact", "-n", "1000", "--wg", "64"},
                    {"--exact", "-n", "50", "--wg", "64", "--oclgrind-off", "uninitialized"},
                    {"--exact", "-n", "31", "--wg", "2", "--oclgrind-off", "uninitialized"},
                    {"--exact", "-n", "1500", "--wg", "1024", "--oclgrind-off", "uninitialized"}},
    .drawn_checks = {{"--exact", "-n", "333", "--wg", "32"},
                     {"--exact", "-n", "161", "--wg", "8"},
                     {"--exact", "-n", "500", "--wg", "16"}},
    .drawn_grading = {{"--exact", "-n", "333", "--wg", "32"},
                      {"--exact", "-n", "161", "--wg", "8"},
                      {"--exact", "-n", "500", "--wg", "16"}},
};
