// For the grader's stages and its tests: one lab of one submission, graded in a job's folder
// (grade_lab): the submission is copied into a private folder, the lab runs there as a child
// process (in the sandbox when there is one), and its machine-readable verdict decides the
// grade. Also what grade_labs (submission_grading.hpp) hands it when several labs of the
// submission shared a process.
#pragma once
#include <string>
#include <vector>

#include "batch.hpp"
#include "grade.hpp"
#include "settings.hpp"

namespace grade {

// Grades `recipe` for the submission whose kernel files are in `kernels_dir` (absolute), using
// `job_dir` (absolute, private, emptied first and last) for the copy of the submission and the
// children's files. Never throws for anything the submission does. When *stop becomes non-zero
// the running child is killed and the result comes back unfinished (grade "").
Result grade_lab(const Recipe &recipe, const std::string &student, const std::string &kernels_dir,
                 const Settings &settings, const volatile int *stop, const std::string &job_dir);


// One lab's dynamic runs on the first device, made in a process shared with other labs: as its
// own batch would have returned them.
struct Shared {
    std::vector<Run> runs;
    std::string note;
    double seconds = 0;  // the time of its runs in the shared process
};

// The recipe a submission is graded by (drawn_recipe): its counts and its drawn twin drawn by the
// kernel file in kernels_dir, the lab and the settings' draw key.
Recipe submission_recipe(const Recipe &recipe, const std::string &kernels_dir, const Settings &s);
// What grade_one gives back: the row, and whether its stress run is the caller's to make
// (defer_stress, everything before it passed): the row is then unfinished, its reason what passed.
struct Graded {
    Result row;
    bool stress_pending = false;
};
// grade_lab's work under the settings' profile alone; `shared`: its dynamic runs already made;
// `defer_stress`: its stress schedules left to the caller.
Graded grade_one(const Recipe &recipe, const std::string &student, const std::string &kernels_dir,
                 const Settings &s, const volatile int *stop, const std::string &job_dir,
                 const Shared *shared, bool defer_stress = false);

// A lab whose program text differs under another profile is graded under that one too, every
// check on that text: it passes only where it passes under each.
Result judge_other_profiles(Result r, const Recipe &recipe, const std::string &student,
                            const std::string &kernels_dir, const Settings &s,
                            const volatile int *stop, const std::string &job_dir);

}  // namespace grade
