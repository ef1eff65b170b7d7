// For the grader's stages and its tests: what every grading of a lab is given (the command
// line's choices, the devices, the sandbox, the runner).
#pragma once
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cores.hpp"
#include "sandbox.hpp"
#include "synclab/program_text.hpp"

namespace grade {

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

}  // namespace grade
