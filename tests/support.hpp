// What the tests share: where things are, running a lab, the devices to test on.
#pragma once
#include <sys/types.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "synclab/device.hpp"
#include "synclab/oclgrind.hpp"
#include "synclab/process.hpp"

namespace test {

std::string source(const std::string &rel);  // a path in the source tree
std::string lab(const std::string &name);     // build/bin/<name>
// A copy of solutions/<file> with its one `from` replaced by `to`, in a new folder under /tmp
// (the caller removes it): a wrong kernel made for one test. REQUIREs that `from` is there.
std::string mutated(const std::string &file, const std::string &from, const std::string &to);
// The same with several changes, each made once, in order.
std::string mutated(const std::string &file, const std::vector<std::pair<std::string, std::string>> &changes);
// A fixture's folder: tests/fixtures/submissions/<name>, or tests/fixtures/patches/<name>.patch
// applied (fixture_patches.cpp). fixture_class(): a folder holding every fixture, one a student.
std::string fixture(const std::string &name);
std::string fixture_class();
// A folder with tests/fixtures/stress/*.patch applied, one a student: protocol bugs that only
// the grader's stress schedules show.
std::string stress_class();
// `patch` (a unified diff) applied to `base`; throws naming the fixture when it does not apply.
std::string apply_patch(const std::string &base, const std::string &patch, const std::string &name);

// Waits for an event, never for a time: true as soon as `happened()` is true (asked every few
// ms); false, with a failed check naming `what`, when it is still false after `bound_s` seconds,
// a bound far past what the event takes, which only an event that never comes reaches. Safe in
// a thread of the test.
bool wait_until(const std::function<bool()> &happened, double bound_s, const std::string &what);

// Any process but this one running with `needle` in its command line (its arguments joined
// with spaces).
bool running_with(const std::string &needle);

// How many times a thread of this process (its kernel id, gettid()) has gone to sleep of itself
// (voluntary context switches); -1 once it has ended. Two more sleeps than before a call began
// show it woke inside that call, looked again and went on waiting.
long sleeps_of(pid_t tid);

// Runs a lab executable with args (bounded: 120 s).
synclab::ProcessResult run_lab(const std::string &name, const std::vector<std::string> &args,
                               const std::map<std::string, std::string> &env = {});

// Runs the lines of `file` (one run's arguments a line, tab-separated) as the grader does: in one
// synclab-labs process, each line given the lab's folder name (synclab/protocol.hpp).
synclab::ProcessResult run_batch(const std::string &name, const std::string &file);

// Bad input: the lab exits 2, prints nothing on stdout and one line on stderr containing `says`
// (the cause and the fix). Checks with doctest.
void check_usage_error(const std::string &lab_name, const std::vector<std::string> &args,
                       const std::string &says, const std::map<std::string, std::string> &env = {});

// What a fixture (tests/fixtures/submissions/NAME/FILE) says it should be graded, on its last
// "// expect: KIND|KIND[; without-oclgrind: KIND|...|any][; reason: TEXT]" line: the grade with
// Oclgrind, the grade of the dynamic runs alone, and words the reason holds where Oclgrind runs.
struct Expect {
    std::set<std::string> kinds, without_oclgrind;  // "any": not checked
    std::string reason;
    // "drawn: every": the declared race checks find nothing, every member of the drawn set does.
    bool drawn_every = false;
};
// Fails the test (REQUIRE) when the text has no expect line.
Expect expectation(const std::string &text);

// Number of lines of text (one-line errors are one line).
int line_count(const std::string &text);

// The 1-based number of the first line of `file` that contains `needle` (0: none), or its nth,
// among lines that are not only a comment (a master's starter block quotes code in its TODOs).
int line_of(const std::string &file, const std::string &needle, int nth = 1);

// Devices for dynamic tests: every device but Oclgrind (an interpreter, tested on its own);
// SYNCLAB_TEST_DEVICES="pocl,nvidia" narrows the set.
std::vector<synclab::DeviceInfo> dynamic_devices();
// Whether Oclgrind is installed; inside a test it also says so when not (and fails the test
// under SYNCLAB_REQUIRE_OCLGRIND). In a test, return early when false.
bool have_oclgrind();

// Runs a lab on Oclgrind and returns the distinct findings of its log.
struct OclgrindRun {
    synclab::ProcessResult process;
    std::vector<synclab::OclgrindFinding> findings;  // distinct()
};
OclgrindRun run_on_oclgrind(const std::string &lab_name, const std::vector<std::string> &args);

// Runs scripts/<script> on csv: with gnuplot installed it must draw png (over 1000 bytes);
// without, exit 2 with the line that says how to install it.
void check_plot(const std::string &script, const std::string &csv, const std::string &png);

}  // namespace test
