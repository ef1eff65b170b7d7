// Grading one lab of one submission: the lab runs as a child process, and its exit, its
// output and Oclgrind's log decide the grade.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "labs.hpp"

namespace grade {

struct Result {
    std::string student, lab;  // lab: the recipe's id
    std::string grade;         // "pass", "fail" or "missing"
    // Why, as one word: pass, missing, compile-error, wrong-answer, crash, timeout, data-race,
    // barrier-divergence, out-of-bounds, uninitialized, error.
    std::string kind;
    std::string reason;        // one line for the student
    std::string details;       // commands run and their output (the JUnit report's body)
    double seconds = 0;
    bool kept = false;         // read back from the gradebook (--resume), not graded now
    bool passed() const { return grade == "pass"; }
};

struct Settings {
    std::string bin_dir;        // where the lab executables are
    // --device for the dynamic runs: each listed device in turn ({""} = the lab's default).
    std::vector<std::string> devices{""};
    std::uint64_t seed = 0;     // 0: every run draws a fresh seed
    double timeout_s = 60;      // per child run
    std::vector<std::size_t> device_memory_bytes{0};  // dynamic runs, one per device (0: none)
    std::size_t oclgrind_memory_bytes = 0;  // race check
    bool race_check = true;     // false: --quick or --no-oclgrind
    bool oclgrind_available = false;
    std::string race_check_note;  // why the race check is off, for passing rows
    bool quick = false;         // only each recipe's first dynamic run
    std::string work_dir;       // the children's working and temporary folder
};

// Grades `recipe` for the submission whose kernel files are in `kernels_dir` (absolute).
// Never throws for anything the submission does. When *stop becomes non-zero the running child
// is killed and the result comes back unfinished (grade "").
Result grade_lab(const Recipe &recipe, const std::string &student, const std::string &kernels_dir,
                 const Settings &settings, const volatile int *stop);

// Whether the lab lists an Oclgrind device. It ends its child when *stop becomes non-zero.
bool oclgrind_listed(const std::string &executable, const volatile int *stop = nullptr);

// "SIGSEGV (Segmentation fault)"
std::string signal_name(int sig);

}  // namespace grade
