// Lab 09's declaration: read by its main, and by the grader and the tests through --describe.
#pragma once
#include "synclab/declaration.hpp"

inline const synclab::Declaration kLab{
    .dir = SYNCLAB_LAB_DIR,
    .summary = "barriers between work-groups: relaunch per step, centralized, decentralized, and "
               "one after occupancy discovery that never deadlocks; too many groups give up, "
               "never hang (plot: `scripts/plot_09_interworkgroup_barrier.sh`)",
    .description = "Barriers between work-groups: one launch per step, a centralized and a "
                   "decentralized (Xiao-Feng) barrier inside one launch, and occupancy discovery "
                   "(Sorensen et al.) that never deadlocks. Every wait is bounded: too many groups "
                   "give up and exit 1.",
    // discovered waits with the student's decentralized barrier; c11 is optional and needs
    // OpenCL C 2.0/3.0 device-scope atomics.
    .variants = {{.name = "relaunch", .kernels = {"stepRelaunch"}},
                 {.name = "centralized", .kernels = {"barrierCentralized"}, .todo = true},
                 {.name = "decentralized", .kernels = {"barrierDecentralized"}, .todo = true},
                 {.name = "discovered", .kernels = {"barrierDiscovered"}, .todo = true},
                 {.name = "nofence", .kernels = {"barrierCentralizedNoFence"},
                  .demonstration = true},
                 {.name = "c11", .kernels = {"barrierCentralizedC11"}, .todo = true,
                  .graded = false},
                 {.name = "generation", .kernels = {"barrierGeneration"}, .todo = true},
                 {.name = "hierarchical", .kernels = {"barrierHierarchical"}, .todo = true}},
    // Without --groups the barriers run with as many groups as discovery finds resident, the
    // last held back each step (--skew) so a barrier that does not wait gives a wrong answer.
    // Work-groups of 1 to 64 work-items (64 groups of 64 in the discovery probe are as many
    // work-items as hbcheck judges), n not a multiple of the group, and one group alone
    // (at the default size). The first run's steps are drawn ({steps}, up to past the lab's
    // default 64), so no barrier can stop waiting after some step; the others few: a spinning
    // wait costs a time slice on a loaded CPU.
    .grading = {{"-n", "4096", "--wg", "16", "--steps", "{steps}"},
                {"--wg", "1", "-n", "61", "--steps", "16"},
                {"--wg", "64", "-n", "3001", "--steps", "12", "--work", "3"},
                {"-n", "777", "--steps", "12", "--groups", "1"}},
    // Four groups at once on Oclgrind (oclgrind_groups), so hbcheck sees them meet at every barrier;
    // then three, a count that is neither a square nor a power of two (a barrier built on
    // sqrt(groups) counters must not assume them full).
    // Each trial is a launch in its own schedule (--schedule): the first shape's 16 open every
    // window of the stress fixtures in every grading (docs/grading.md, "Schedules on Oclgrind").
    // Its first trial runs with every check, the other 15 without Oclgrind's uninitialised-value
    // check (half a trial's time; before the schedules it saw one interleaving too): races and
    // fences are judged in all 16. The third check's 4 are for counts the first does not meet.
    // Then the long run: the drawn steps in one seeded schedule (hbcheck judges every step, so a
    // barrier that stops waiting after some step fails in every grading that draws past it; POCL
    // stress is not needed for it). Then a drawn count of groups past 8, every one running at
    // once, and the grading's other shapes: one group alone, groups of 64.
    .race_checks = {{"-n", "64", "--wg", "16", "--steps", "3", "--groups", "4", "--trials", "1"},
                    {"-n", "64", "--wg", "16", "--steps", "3", "--groups", "4", "--trials", "15",
                     "--oclgrind-off", "uninitialized"},
                    {"-n", "61", "--wg", "16", "--steps", "3", "--groups", "3", "--trials", "4"},
                    {"-n", "64", "--wg", "16", "--steps", "{steps}", "--groups", "4", "--trials", "1",
                     "--oclgrind-off", "uninitialized"},
                    {"-n", "37", "--wg", "1", "--steps", "3", "--groups", "{groups}", "--trials", "2",
                     "--oclgrind-threads", "{groups}"},
                    {"-n", "77", "--steps", "3", "--groups", "1"},
                    {"-n", "300", "--wg", "64", "--steps", "2", "--work", "1", "--groups", "2"}},
    .drawn_checks = {{"-n", "50", "--wg", "8", "--steps", "3", "--groups", "5", "--trials", "4", "--oclgrind-threads", "5"},
                     {"-n", "66", "--wg", "4", "--steps", "3", "--groups", "6", "--trials", "4", "--oclgrind-threads", "6"},
                     {"-n", "77", "--wg", "32", "--steps", "3", "--groups", "7", "--trials", "4", "--oclgrind-threads", "7"}},
    .drawn_grading = {{"-n", "50", "--wg", "8", "--steps", "12"},
                      {"-n", "66", "--wg", "4", "--steps", "12"},
                      {"-n", "77", "--wg", "32", "--steps", "12"}},
    .draws = {{.name = "steps", .low = 24, .high = 80}, {.name = "groups", .low = 9, .high = 16}},
    .oclgrind_groups = 4,  // groups that wait for one another meet; hbcheck judges their fences
    // Stress schedules: the four barriers students write, over the groups discovery finds.
    // `discovered` is the decentralized barrier again, behind a second discovery: left out. Two
    // schedules of 128 steps: the fewest that fail every lab 09 stress fixture in every grader
    // run (docs/benchmarks.md, "Stress schedules"). The warm-up: one step.
    .stress_schedules = 2,
    .stress_args = {"--variant", "centralized,decentralized,generation,hierarchical", "--steps", "128"},
    .stress_warm_up = {"--steps", "1"},
    .options =
        [](cxxopts::Options &p) {
            p.add_options()
                ("steps", "steps, each ended by a barrier between work-groups",
                 cxxopts::value<unsigned>()->default_value("64"))
                ("work", "busy-loop turns per element per step",
                 cxxopts::value<unsigned>()->default_value("0"))
                ("skew", "polls the last group waits before each step (0: in step)",
                 cxxopts::value<unsigned>())
                ("budget", "polls a wait may take before it gives up", cxxopts::value<unsigned>())
                ("grace", "discovery: polls with no newcomer before the poll closes",
                 cxxopts::value<unsigned>())
                ("sweep", "measure instead: groups (thesis App. H, J), steps (App. I) or "
                          "occupancy", cxxopts::value<std::string>());
        },
};
