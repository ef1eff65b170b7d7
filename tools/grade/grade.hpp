// For the grader and its tests: grading one lab of one submission. The submission is copied
// into a private folder, the lab runs there as a child process (in the sandbox when there is
// one), and its machine-readable verdict decides the grade.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cores.hpp"
#include "labs.hpp"
#include "synclab/program_text.hpp"
#include "sandbox.hpp"

namespace grade {

// A row's grade, and why in one word; name() gives the gradebook's words (docs/grading.md).
enum class Grade { Unfinished, Pass, Fail, Missing };
enum class Kind {
    None,  // not graded (yet)
    Pass, Missing, Refused, CompileError, WrongAnswer, Crash, Timeout, Stress,
    DataRace, MemoryModel, Deadlock, BarrierDivergence, OutOfBounds, Uninitialized,  // Oclgrind's, hbcheck's
    Error,         // the grading could not judge it (the lab left no verdict, a set-up failure)
    StressPending  // passed all but its stress schedules, which grade_labs runs later (never recorded)
};
const char *name(Grade g);  // "" (unfinished), "pass", "fail", "missing"
const char *name(Kind k);   // "" (none), "pass", "compile-error", "data-race", ...
// The grade or kind a word names; false when it names none.
bool grade_named(const std::string &word, Grade &out);
bool kind_named(const std::string &word, Kind &out);

struct Result {
    std::string student, lab;  // lab: the recipe's id
    Grade grade = Grade::Unfinished;
    Kind kind = Kind::None;
    std::string reason;        // one line for the student (also says what was not checked)
    std::string details;       // commands run and their output (the JUnit report's body)
    double seconds = 0;
    bool kept = false;         // read back from the gradebook (--resume), not graded now
    // The SHA-256 of the files graded (submission_files.hpp; "": unknown, graded again on
    // --resume), and what a pass is worth (--points).
    std::string files_sha256;
    unsigned points = 1;
    // What judged it: the checks that ran, the device, the draw key's digest and the grader's
    // version (judged_by.hpp); "": unknown (an older grader), graded again on --resume.
    std::string judged_by;
    // Profiles under which a child's program text differed (synclab/program_text.hpp): the lab
    // is judged under each of them too.
    std::set<std::string> profiles_differ;
    bool passed() const { return grade == Grade::Pass; }
    bool finished() const { return grade != Grade::Unfinished; }
};

struct Settings {
    std::string bin_dir;        // where the lab executables are
    // --device for the dynamic runs: each listed device in turn ({""} = the lab's default).
    std::vector<std::string> devices{""};
    std::uint64_t seed = 0;     // 0: every run draws a fresh seed
    std::string draw_key = "0";  // with the kernel's text, picks each lab's drawn race check
    double timeout_s = 60;      // per child run
    std::vector<std::size_t> device_memory_bytes{0};  // dynamic runs, one per device (0: none)
    std::size_t oclgrind_memory_bytes = 0;  // race check
    bool race_check = true;     // false: --quick or --no-oclgrind
    bool oclgrind_available = false;
    std::string race_check_note;  // why the race check is off, for passing rows
    bool quick = false;         // only each recipe's first dynamic run
    bool stress = true;         // false: --quick or --no-stress
    unsigned stress_schedules = 0;  // per lab (0: its declaration's)
    std::shared_ptr<StressGate> stress_gate;  // made with the plan (its jobs); null: no gate
    // The user's own OCL_ICD_VENDORS ("" = none): the folder the grader's device lookup made
    // for itself is not the children's.
    std::string icd_vendors;
    Sandbox sandbox;            // not available(): children run with the limits above only
    // The labs (ids) whose dynamic runs grade_labs shares between labs of a submission, in one
    // process on the one device: those the runner describes as their executables do
    // (runner_labs). None: a process a lab.
    std::set<std::string> runner_labs;
    // synclab-labs, beside the labs: every child runs in it (batch.hpp).
    std::string runner() const { return bin_dir + "/synclab-labs"; }
    // The macros every child's program text is preprocessed with (SYNCLAB_PROFILE); a lab whose
    // text differs under another profile is graded under that one too.
    std::string profile = synclab::profiles().front().name;
};

// Grades `recipe` for the submission whose kernel files are in `kernels_dir` (absolute), using
// `job_dir` (absolute, private, emptied first and last) for the copy of the submission and the
// children's files. Never throws for anything the submission does. When *stop becomes non-zero
// the running child is killed and the result comes back unfinished (grade "").
Result grade_lab(const Recipe &recipe, const std::string &student, const std::string &kernels_dir,
                 const Settings &settings, const volatile int *stop, const std::string &job_dir);

// Grades several labs of one submission, in the order given. The labs the runner can run whose
// dynamic-run environment is the same share one process for their dynamic runs, and with it
// what an OpenCL implementation loads once per context (POCL: its kernel library, about half a
// second a process). A lab's runs count from a shared process when it passed there, when it was
// that process's first lab, or when they end in its own wrong answer, build error or a run the
// device cannot make; a crash, hang or error after another lab of the same process is run again
// as the first of a new one, and only that counts. The race check and the rest are grade_lab's,
// lab by lab; but the stress schedules of the labs that share the runner go last, together: their
// builds in one process behind everything, their schedules in one process holding the cores.
std::vector<Result> grade_labs(const std::vector<const Recipe *> &recipes, const std::string &student,
                               const std::string &kernels_dir, const Settings &settings,
                               const volatile int *stop, const std::string &job_dir);

// Which of `labs` the runner describes exactly as their executables do (--describe through it,
// with `folder` for its batch file); none when it is missing or fails.
std::set<std::string> runner_labs(const std::vector<Recipe> &labs, const Settings &s,
                                  const std::string &folder, const volatile int *stop = nullptr);

// Whether the lab lists an Oclgrind device. It ends its child when *stop becomes non-zero.
bool oclgrind_listed(const std::string &executable, const volatile int *stop = nullptr);

// "SIGSEGV (Segmentation fault)"
std::string signal_name(int sig);

}  // namespace grade
