// For the grader's stages: running lab children. Every child the grader runs is one synclab-labs
// process running a batch of lines (synclab/protocol.hpp), made by run_batch alone.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "cores.hpp"
#include "labs.hpp"
#include "synclab/process.hpp"
#include "synclab/verdict.hpp"

namespace grade {

struct Settings;

// One line's run: the command that repeats it alone, the process as it concerns this line, and
// what the lab wrote to its --verdict file.
struct Run {
    std::vector<std::string> argv;  // the lab executable and this line's arguments
    synclab::ProcessResult process;
    synclab::VerdictRecord verdict;
    double seconds = 0;  // from its marker to the next one's, or to the process's end
};

// A job's private folders and what every child run there gets: the copy of the submission
// (the lab never reads the student's folder itself), its temporary files and POCL's cache.
struct JobFolders {
    std::string job, copy, tmp, cache;
    std::map<std::string, std::string> env;
    std::vector<std::string> readable;  // what the sandbox lets a lab read besides the system
};
JobFolders job_folders(const std::string &job_dir, const Settings &s);

// Empties a job folder between the runs of one submission, keeping the folder and its cache
// (POCL's kernels, the program texts and their IR judgements, each found by its whole content):
// the submission's later processes build nothing its earlier ones built.
void clear_folder(const std::string &dir);
// Empties it whole, the cache too: nothing of one submission is left for the next.
void empty_job(const std::string &dir);

// One line of a batch: a lab and its own arguments (--kernels, --verdict and --timeout are
// added); `variants`: also --variant with the recipe's graded variants.
struct Line {
    const Recipe *recipe;
    std::vector<std::string> args;
    bool variants = true;
};

// A batch's place: its role (cores.hpp), the environment besides the job's, its memory limit.
struct BatchSpec {
    Role role = Role::Check;
    std::map<std::string, std::string> env;
    std::size_t memory_bytes = 0;
};

struct BatchResult {
    std::vector<Run> runs;   // one a line; those that did not begin are left empty
    std::vector<bool> ran;   // whether the line began
    std::size_t end = 0;     // the line whose run the process's end (exit, signal, timeout) is
    bool stopped = false;    // *stop ended it, or it never began: nothing of it counts
};

// Runs `lines` in one synclab-labs process in the job's folders, each line with its own verdict
// file, marker and watchdog (--timeout: the settings'), the process bounded by
// protocol::batch_timeout. The runner ends a lab's lines at the first that does not exit 0, and
// goes on with the next lab's.
// One rule says whose the process's end is: the line the runner was on. A line began when the
// runner marked it or its verdict file exists; the process's end belongs to the last line that
// began, or, when that one finished, to the next line the runner had left (the first line when
// none began). Every line before it ended as its verdict says. Each line gets its own part of
// each stream and its time between markers.
BatchResult run_batch(const Settings &s, const JobFolders &job, const std::vector<Line> &lines,
                      const BatchSpec &spec, const volatile int *stop);

}  // namespace grade
