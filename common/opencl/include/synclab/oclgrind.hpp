// For the labs (on Oclgrind), the grader and the tests: reading Oclgrind's log: its exit code never says anything, so its messages are the verdict.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace synclab {

// The kinds of finding that make a kernel wrong, the most telling first: a race often shows up
// as an uninitialised read too, and the race is the one to tell. The lab, the grader and the
// tests all rank findings by it.
// "memory-model" is hbcheck's (hbcheck/): accesses of two work-groups that no fence and atomic
// order.
// "deadlock" is hbcheck's schedule's (hbcheck/include/hbcheck/schedule.hpp): every group that
// runs waits for a word no running group changes.
inline constexpr const char *kOclgrindFailingKinds[] = {"data-race", "memory-model", "deadlock",
                                                        "barrier-divergence", "out-of-bounds",
                                                        "uninitialized"};
constexpr int kOclgrindNotFailing = 6;  // the rank of every other kind ("other")
// A kind's place in kOclgrindFailingKinds (0 to 5), or kOclgrindNotFailing.
int oclgrind_priority(const std::string &kind);

struct OclgrindFinding {
    struct Entity {
        int global_id = 0;
        int group = 0;       // its work-group (first index)
        std::string group_id;  // its work-group, all three indices: "1,0,0"
        std::string access;  // "reads", "writes", "updates" or "" when unknown
        int line = 0;
    };
    std::string kind;    // "data-race", "memory-model", "deadlock", "barrier-divergence", "out-of-bounds",
                         // "uninitialized", or "other"
    std::string kernel;  // the kernel named in the report
    std::string file;    // as the #line directive gave it
    int line = 0;        // first source line the report names (0: none)
    std::vector<int> lines;         // every source line the report names, in order
    std::vector<Entity> entities;   // the two work-items of a data race
    int reached = 0, group_size = 0;  // barrier divergence: work-items that reached it, of all
    std::string headline;           // the report's first line, as Oclgrind wrote it
    int count = 1;                  // reports folded into this one by distinct()
    std::string fix;                // hbcheck's "Fix:" line: which fences would order them
    // Barrier divergence: the line of a `return` before the barrier in the same kernel, the
    // likely cause (0: none, or the source was not seen). Set by see_source().
    int return_line = 0;
    // A data race within a group: the line of the barrier between its two accesses whose flags
    // fence only the other memory (barrier(CLK_GLOBAL_MEM_FENCE) on local data), the likely
    // cause (0: none, or the source was not seen). Set by see_source().
    int barrier_line = 0;
    // Reads in the kernel's source text (the file the report names, as it is on disk) what the
    // report alone cannot say: an early return that keeps work-items from a barrier, a barrier
    // that fences the wrong memory.
    void see_source(const std::string &source);
    // One line for a student: what, which kernel, file:line, and the likely fix.
    std::string friendly() const;
    // friendly(), the hint for every work-item writing one place, and "[N reports]": the whole
    // line a student is told.
    std::string message() const;
    // "file:line" of the line the message names first (the reader of a race); "" when none.
    std::string where() const;
    // A data race, barrier divergence, out-of-bounds or uninitialised access: a wrong kernel.
    bool fails() const;
    // oclgrind_priority(kind).
    int priority() const;
    // A data race of two work-items of different work-groups (Oclgrind's own report).
    bool between_groups() const;
    // hbcheck's fix is a group barrier (before a master arrives, after it acquires).
    bool fix_is_group_barrier() const;
    // The lines it reports and those its fix names, in order.
    std::vector<int> named_lines() const;
};

// The student's parts of a kernel file: the lines between "---- your code ----" and
// "---- end of your code ----" (docs/adding-a-lab.md), as [first, last] line pairs; none when
// the file marks none.
std::vector<std::pair<int, int>> student_parts(const std::string &source);

// Puts the finding nearest the cause first; the lab prints and records findings in this order
// and the grader keeps it. In order: findings with a line (reported or named by the fix) in the
// student's parts of `source` before those wholly in given code (only findings in `file`; a
// source that marks no parts leaves them all first); then by kind (oclgrind_priority), except
// that a memory-model finding whose fix is a group barrier comes before the data races within a
// group of the same kernel: a group that does not wait for its master lets its work-items race
// on what the master writes. Otherwise the order is kept.
void order_findings(std::vector<OclgrindFinding> &found, const std::string &source,
                    const std::string &file);

// Where Oclgrind finds hbcheck's plugin: SYNCLAB_HBCHECK when set ("off": none), else beside the
// running program (build/bin/../lib), else where the build put it; "" when it was not built.
std::string hbcheck_plugin();

// Every report in the log. A report is an unindented headline and indented lines naming its
// kernel; anything else (Oclgrind's "N errors generated" notice, a compiler's output) is none.
std::vector<OclgrindFinding> parse_oclgrind_log(const std::string &log);

// Whether hbcheck ran in the run that wrote this log (it says so once: "hbcheck: on").
bool hbcheck_ran(const std::string &log);
// distinct(parse_oclgrind_log(log)), less Oclgrind's own data races between work-groups where
// hbcheck ran: Oclgrind knows no ordering between groups but their end; hbcheck judges those.
std::vector<OclgrindFinding> oclgrind_findings(const std::string &log);

// N when Oclgrind stopped reporting after N errors ("Oclgrind: N errors generated -
// suppressing further errors"), else 0.
int oclgrind_suppressed_after(const std::string &log);

// One finding per (kind, kernel, lines), counting the rest: 256 work-items racing on the
// same two lines are one mistake.
std::vector<OclgrindFinding> distinct(const std::vector<OclgrindFinding> &all);

}  // namespace synclab
