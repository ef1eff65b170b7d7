// For synclab-grade's main: its command line, read (parse_options) and then checked
// (check_options) once --help and --list-labs have had their turn.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace grade {

struct Options {
    bool help = false;
    std::string help_text;  // what --help prints
    bool list_labs = false;
    bool one = false, many = false;  // --kernels DIR / --class DIR given
    std::string folder;              // the one given (when exactly one is)
    bool has_labs = false;
    std::string labs;    // --labs LIST
    std::string device;  // --device SPEC
    std::string timeout_text, memory_text, seed_text, jobs_text;
    bool has_memory = false, has_jobs = false;
    std::string csv, junit;  // as given
    // One submission's results for a grading platform ("": none), and --points as given.
    std::string gradescope, prairielearn, points;
    bool resume = false, restart = false, quick = false, no_oclgrind = false, no_stress = false;
    bool has_stress = false;
    // --students LIST: grade those students of the class again, and no other (implies --resume).
    bool has_students = false;
    std::string students;
    // --no-sandbox: grade without bubblewrap on purpose. A class is never graded without the
    // sandbox unless it is given (SYNCLAB_GRADE_SANDBOX=off alone turns it off for --kernels).
    bool no_sandbox = false;
    std::string stress_text;  // --stress N
    // --budget S: the whole grading's seconds ("": none); at its end the running labs stop.
    std::string budget_text;
    // --no-hbcheck: where hbcheck is missing, grade anyway and fail the labs that need it (not
    // given: such a grading is refused).
    bool no_hbcheck = false;
    // Gradescope's visibility of the tests and of the grader's log; a line for the student at
    // the top of a platform's results (--note).
    std::string gradescope_visibility = "visible", gradescope_stdout_visibility = "hidden";
    bool has_visibility = false;
    std::string note;
    // --shard I/N: grade the class's students at sorted positions I, I+N, I+2N, ... (1-based).
    std::string shard_text;
    // --merge: join the gradebooks named by `inputs` into --csv, grading nothing.
    bool merge = false;
    std::vector<std::string> inputs;  // the command line's arguments that are no option's
    // Set by check_options:
    double timeout = 60;
    std::size_t memory_mib = 4096;
    std::uint64_t seed = 0;
    std::string draw_key;       // --draw-key (empty: see choose_draw_key)
    std::string draw_key_file;  // --draw-key-file
    unsigned jobs = 1;
    unsigned stress = 0;  // --stress N: schedules per lab that declares them (0: its own number)
    double budget = 0;    // --budget S (0: none)
    unsigned shard_index = 0, shard_count = 0;  // --shard I/N (0: the whole class)
};

// The command line as given; a malformed one throws UsageError with one line.
Options parse_options(int argc, char **argv);

// Modes and numbers: throws UsageError with one line for the first one wrong.
void check_options(Options &o);

// --merge's: its gradebooks and --csv; throws UsageError with one line.
void check_merge_options(const Options &o);

}  // namespace grade
