// For the grader, the tests and the labs' program text (its preprocessor): running a program as a child with a bound on its time.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "synclab/protocol.hpp"  // kMaxTimeout

namespace synclab {

struct ProcessResult {
    int exit_code = -1;      // valid when exited
    bool exited = false;
    int signal = 0;          // non-zero when killed by a signal
    bool timed_out = false;  // killed because it outlived the timeout
    bool interrupted = false;  // killed because *ProcessLimits::stop became non-zero
    std::size_t dropped = 0;   // bytes of output left out of the middle (see max_output)
    std::string out, err;
    std::string describe() const;  // "exit 1", "killed by SIGSEGV", "timed out after 10 s"
};

struct ProcessLimits {
    double timeout_s = 60;         // clamped to kMaxTimeout
    std::size_t memory_bytes = 0;  // 0: no address-space limit
    // Each of stdout and stderr keeps at most this much: its first and its last half. A child
    // that prints without end cannot exhaust our memory.
    std::size_t max_output = 4 << 20;
    // When non-null and it becomes non-zero (a signal handler sets it), the child is killed.
    const volatile int *stop = nullptr;
    std::string cwd;  // the child's working folder ("" = ours)
    // The child gets fd 3, the read end of a pipe whose write end only this call holds, and
    // SYNCLAB_PARENT_FD=3: it reads end-of-file once this process is gone (a lab then stops).
    // The parent-death signal alone is not enough: bubblewrap drops it while it sets up the
    // sandbox, and a grader killed in that moment would leave the lab running.
    bool parent_pipe = false;
    // Raises the child's niceness by this much (at most to 19): 0 keeps ours.
    int nice = 0;
};


// Runs argv[0] (a path) with argv, environment = ours + `env` (an empty value unsets),
// stdin from /dev/null, output captured, no other descriptor of ours (but fd 3 with parent_pipe).
// Never waits longer than the timeout. The child is in a process group of its own and dies with
// the calling thread's process (PR_SET_PDEATHSIG; through a sandbox, with parent_pipe), so a
// grader killed with SIGKILL leaves no lab running. Safe to call from several threads at once.
ProcessResult run_process(const std::vector<std::string> &argv,
                          const std::map<std::string, std::string> &env = {},
                          const ProcessLimits &limits = {});

}  // namespace synclab
