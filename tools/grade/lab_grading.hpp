// For the grader's stages: one lab of one submission, graded in a job's folder (grade_lab), and
// what grade_labs hands it when several labs of the submission shared a process.
#pragma once
#include <string>
#include <vector>

#include "batch.hpp"
#include "grade.hpp"

namespace grade {

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
// grade_lab's work under the settings' profile alone; `shared`: its dynamic runs already made;
// `defer_stress`: its stress schedules left to the caller (Kind::StressPending: everything before
// them passed, and the row's reason says what).
Result grade_one(const Recipe &recipe, const std::string &student, const std::string &kernels_dir,
                 const Settings &s, const volatile int *stop, const std::string &job_dir,
                 const Shared *shared, bool defer_stress = false);

// A lab whose program text differs under another profile is graded under that one too, every
// check on that text: it passes only where it passes under each.
Result judge_other_profiles(Result r, const Recipe &recipe, const std::string &student,
                            const std::string &kernels_dir, const Settings &s,
                            const volatile int *stop, const std::string &job_dir);

}  // namespace grade
