// For synclab-grade's main and its run stage: the plan. Every (student, lab) in gradebook
// order, those kept from the gradebook already done, and the units the workers take.
#pragma once
#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "grade.hpp"
#include "settings.hpp"
#include "judged_by.hpp"
#include "submissions.hpp"

namespace grade {

struct Task {
    std::size_t student;  // index into the submissions
    const Recipe *recipe;
    Result result;
    bool ready = false;  // result is known (graded, or kept from the gradebook)
};

struct Plan {
    std::vector<Task> tasks;  // student, lab order
    // What a worker takes: indices into tasks, all of one student.
    std::vector<std::vector<std::size_t>> units;
    unsigned jobs = 1;     // workers: never more than units (at least one)
    bool resumed = false;  // some rows were kept from the gradebook
    bool gather = false;  // a class: files in folders below a student's are found (files_of)
    // The gradebook's rows that stay (those of labs and students not graded now among them),
    // and one line for each student graded again, saying why.
    std::vector<Result> kept_rows;
    std::vector<std::string> notes;
};

// Checks that synclab-labs runs every lab of `labs` as its executable does (UsageError if not),
// and keeps in settings.runner_labs those whose dynamic runs a submission's labs share (grade_labs):
// only when a class keeps every worker busy with whole submissions, and not with
// SYNCLAB_GRADE_SHARED=off. `work` is the grader's private folder.
void share_processes(Settings &settings, std::size_t submissions, unsigned jobs,
                     const std::vector<const Recipe *> &labs, const std::string &work,
                     const volatile int *stop);

// The plan for `subs` x `labs`, with the rows in `kept` done already where they were graded from
// the files there now (`hashes`, one a submission), by checks at least this run's (`judging`,
// judged_by.hpp; null: not compared), and not an error. `only` (--students): those students are
// graded again, and no other student is graded (their rows stay as they are). A worker takes a
// student's ungraded labs together when settings.runner_labs is not empty, otherwise one
// (student, lab).
Plan make_plan(const std::vector<Submission> &subs, const std::vector<const Recipe *> &labs,
               const std::vector<Result> &kept, const Settings &settings, unsigned jobs,
               const std::vector<std::string> &hashes, const std::set<std::string> &only = {},
               const Judging *judging = nullptr);

}  // namespace grade
