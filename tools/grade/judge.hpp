// For the grader's stages: what a child's run means. The lab's machine-readable verdict decides
// (docs/contract.md); the process's exit and signals only where it could not write one.
#pragma once
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "batch.hpp"
#include "grade.hpp"
#include "settings.hpp"

namespace grade {

// Text for reports.
std::vector<std::string> lines_of(const std::string &text);       // its lines that are not blank
std::string relative(std::string s, const std::string &dir);      // paths in `dir` shown relative to it
std::string join(const std::vector<std::string> &v, const std::string &sep = " ");
std::string clip(std::string line, std::size_t max = 240);        // a line kept to its start
// The most of one finding or verdict message a record keeps: every message a lab writes whole (a
// finding's fix is its end), a kernel's megabyte printf not.
constexpr std::size_t kWhole = 4000;
std::string tail(const std::string &text, std::size_t max_lines);  // the last lines, indented
std::string seconds_text(double s);

// The one table from the wire's kinds (synclab/verdict.hpp) to a row's Kind: a run's result
// (Verified: Kind::None; a kind without a row's kind of its own: Kind::Error), and a failing
// finding's (one that fails no lab: Kind::Error, the grading cannot judge it).
Kind kind_of(synclab::ResultKind k);
Kind kind_of(synclab::FindingKind k);

// Whether a child wrote its result and its process ended as that result says (its exit code).
bool as_verdict_says(const Run &run);
// Whether a child's verdict says all was verified, and it exited 0 as it says.
bool ran_right(const Run &run);
// Whether a line's run is its lab's own outcome in a process that ran other labs' lines before
// it: it ended as its verdict says, and with what the lab's own inputs and source decide (right,
// a wrong answer, a build error, a run this device cannot make). A crash, hang or error may be
// what an earlier line left in the process (a kernel writing out of bounds on a CPU device
// writes into the process): such a run counts only as the first line of a process.
bool counts_when_shared(const Run &run);

// What went wrong in a child run, as (kind, one-line reason); Kind::None when it passed.
std::pair<Kind, std::string> classify(const Run &run, const std::string &kernels_dir, double timeout_s);

// The run's command and what it said, in the row's details; the profiles its text differed under.
void note_run(Result &r, const Run &run, const std::string &title);

// Oclgrind's findings among `variants`, in the order the lab recorded them (the cause first):
// the first one's kind and one line; (Kind::None, "") when none fails the lab.
std::pair<Kind, std::string> race_findings(const synclab::VerdictRecord &v,
                                                  const std::vector<std::string> &variants,
                                                  const std::string &kernels_dir);

// "SIGSEGV (Segmentation fault)"
std::string signal_name(int sig);

// How many stress schedules a lab runs (--stress N, or its declaration's), and its stress run's
// arguments.
unsigned stress_schedules(const Recipe &recipe, const Settings &s);
std::vector<std::string> stress_line(const Recipe &recipe, const Settings &s);

// A lab's run as a student types it in a checkout: `./build/bin/EXECUTABLE ARGS`, each argument
// quoted for a shell where it needs it.
std::string repeat_command(const std::string &executable, const std::vector<std::string> &args);

// The grade a stress run gives a lab that passed so far (`passed`): grade, kind and reason. A
// schedule that went wrong is named by its seed, with the command that repeats it on the
// student's own folder.
std::tuple<Grade, Kind, std::string> stress_grade(const Recipe &recipe, const Settings &s,
                                                               const Run &st, const std::string &passed,
                                                               const std::string &copy,
                                                               const std::string &kernels_dir);

}  // namespace grade
