// Running a program as a child with a bound on its time (tests and grading use it).
#pragma once
#include <map>
#include <string>
#include <vector>

namespace synclab {

struct ProcessResult {
    int exit_code = -1;      // valid when exited
    bool exited = false;
    int signal = 0;          // non-zero when killed by a signal
    bool timed_out = false;  // killed because it outlived the timeout
    std::string out, err;
    std::string describe() const;  // "exit 1", "killed by SIGSEGV", "timed out after 10 s"
};

struct ProcessLimits {
    double timeout_s = 60;
    std::size_t memory_bytes = 0;  // 0: no address-space limit
};

// Runs argv[0] (a path) with argv, environment = ours + `env` (an empty value unsets),
// stdin from /dev/null, output captured. Never waits longer than the timeout.
ProcessResult run_process(const std::vector<std::string> &argv,
                          const std::map<std::string, std::string> &env = {},
                          const ProcessLimits &limits = {});

}  // namespace synclab
