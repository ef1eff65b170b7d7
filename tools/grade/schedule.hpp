// For synclab-grade's main: the run and record stages. -j workers grade the plan's units while
// the main thread records each row in gradebook order (every record, then a console line, and
// each student's rows once complete), with a progress line on a terminal.
#pragma once
#include <string>
#include <vector>

#include "plan.hpp"
#include "record.hpp"
#include "judged_by.hpp"
#include "submissions.hpp"

namespace grade {

struct RunContext {
    const std::vector<Submission> &subs;
    const std::vector<Recipe> &all_labs;  // where a submission's kernels are (kernels_in)
    const Settings &settings;
    const std::string &work;  // the grader's private folder
    Records &records;
    std::size_t kept_rows;  // rows the records held already (for the interrupted message)
    const std::string &csv;  // the gradebook, as the messages name it
    double budget_s = 0;     // --budget, as the messages name it (0: none)
    const Judging *judging = nullptr;  // what judges the rows (judge_row); null: rows as graded
};

struct Outcome {
    bool interrupted = false;   // a signal stopped the grader (g_stop)
    bool out_of_time = false;   // the time budget ran out (SIGALRM): the running labs were stopped
    std::vector<Result> all;    // every row, in gradebook order
    std::size_t kept = 0;       // of them, kept from the gradebook
};

// Runs the plan to its end, or to a signal: then every row finished is recorded, one line
// says how to go on, and the outcome is interrupted; or out of time (SIGALRM, --budget), when
// the records are also told which labs were running. Workers never outlive it, whatever way it
// is left (a record that cannot be written throws: the running children are ended first).
Outcome run_plan(Plan &plan, const RunContext &ctx);

}  // namespace grade
