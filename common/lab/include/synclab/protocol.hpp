// For the lab runtime, synclab-labs and synclab-grade alike: the protocol between the grader and
// a lab child. Batch files, run markers, verdict files (their records: verdict.hpp), the
// environment the grader sets, quoting of commands shown to people, and the limits on a run.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "synclab/environment.hpp"
#include "synclab/verdict.hpp"

namespace synclab::protocol {

using Args = std::vector<std::string>;

// The environment a grader gives its children.
constexpr const char *kParentFd = "SYNCLAB_PARENT_FD";      // a pipe: end-of-file once the grader is gone
constexpr const char *kProfile = "SYNCLAB_PROFILE";           // the macros a program text is made under
constexpr const char *kTextCache = "SYNCLAB_TEXT_CACHE";      // the folder the children share texts in
// Those the OpenCL layer reads (synclab/environment.hpp): the grader empties kKernels for its
// children, reads kHbcheck; a lab sets kSchedule for hbcheck's plugin.
using env::kDevice;
using env::kHbcheck;
using env::kKernels;
using env::kSchedule;

// The files a grader writes in a job's folder for its children: a batch, each of its lines'
// verdict (verdict_file(i), "verdict-N.tsv", N from 1), and the batch that asks each lab for its
// declaration (--describe).
constexpr const char *kBatchFile = "batch.tsv";
constexpr const char *kDescribeFile = "describe.tsv";
std::string verdict_file(std::size_t line);

// The longest wait a lab's --timeout and the grader's child processes accept: longer is "no
// limit" in effect, and bigger numbers would overflow the clocks' arithmetic.
constexpr double kMaxTimeout = 1e6;

// Whether a run hangs: wall_s seconds since it last got something done (it launched a kernel, a
// build began or ended: synclab::last_progress), ran_s of them on a core. It is a hang once it
// has had a core for timeout_s since (a hang on POCL's CPU or Oclgrind spins), or by the clock
// alone at kClockLimit times timeout_s (a hang that sleeps, or a run starved that long). So a
// run of many kernels takes as long as it needs, and one that waits for a core (a busy machine,
// a container's share of one) is not a hang for the time it waited: the verdict is the
// kernel's, not the machine's. A build is held to kBuildSeconds (a lab's --build-timeout), or
// timeout_s when longer.
constexpr double kClockLimit = 10;
constexpr double kBuildSeconds = 60;
bool is_hang(double wall_s, double ran_s, double timeout_s);

// The bound on a process that runs `runs` lines, each with its own watchdog of timeout_s: the
// watchdogs end a hang first (a line of many kernels may run far past timeout_s); this ends a
// process that never reaches them.
double batch_timeout(double timeout_s, std::size_t runs);

// A batch file: one run a line, the lab's folder name (01_workgroup_reduce) and then its
// arguments, separated by tabs. synclab-labs runs the lines in order in one process; a line that
// does not exit 0 ends its lab's lines, and the next lab's go on.
std::string batch_text(const std::vector<Args> &lines);  // an argument holding a tab or newline throws
std::vector<Args> read_batch(const std::string &path);   // UsageError when unreadable or empty
// The line the runner runs after line i of `lines` (each beginning with its lab): the next one,
// or, when line i `failed` (did not exit 0), the next line of another lab; lines.size() when none
// is left. The runner follows it, and the grader by it finds the line the runner was on.
std::size_t next_line(const std::vector<Args> &lines, std::size_t i, bool failed);

// Run markers: before each line, "== run I of N: ARGS" on stdout and "== run I of N at S s" on
// stderr, S the seconds since the runner started. The grader splits each stream, and the time,
// at them.
void mark_run(std::size_t i, std::size_t n, const std::string &shown, double at_s);
struct RunParts {
    std::vector<std::string> out, err;  // each run's part of each stream, without its marker
    std::vector<bool> marked;           // whether the runner marked the run on stderr (it began)
    std::vector<double> at;             // when it began, on the runner's clock
};
// Lines before the first marker go with run 1. A marker out of order or out of range is
// output like any other line.
RunParts split_runs(const std::string &out, const std::string &err, std::size_t n);

// Reads a regular file of at most `limit` bytes without following a symbolic link and without
// blocking on a FIFO (the check and the read are of the same file): what the grader reads of a
// child's or a student's. False with `why` ("a symbolic link", "too large (...)") otherwise.
bool read_plain(const std::string &path, std::size_t limit, std::string &out, std::string &why);
// What a file of `mode` (st_mode) is, for a message: "a symbolic link", "a FIFO", "a folder", ...
std::string file_type(unsigned mode);

// A verdict file written by a child: never through a link it left, never waiting on a FIFO,
// at most 1 MiB. `found`: whether a plain file was there.
VerdictRecord read_verdict(const std::string &path, bool *found = nullptr);

// An argument as a POSIX shell reads it back: plain when it needs no quotes, else in single
// quotes.
std::string shell_quote(const std::string &arg);
std::string shell_command(const Args &argv);

}  // namespace synclab::protocol
