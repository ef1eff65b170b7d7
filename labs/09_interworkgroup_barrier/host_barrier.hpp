// For lab 09's main: the host's counterpart of a barrier between work-groups, C++20's std::barrier
// across as many std::threads as the device has compute units (POCL runs a thread on each), over
// the same stepped workload; timed by the host clock and checked against the reference.
#pragma once
#include <string>
#include <vector>

#include "steps.hpp"

namespace synclab {

struct HostBarrier {
    unsigned threads = 0;
    double ms = 0;       // median of the trials: from every thread's start to the last step's end
    bool ok = false;     // equal to the reference, word for word
    std::string wrong;   // when not ok: how many words differ, and the first
};

// w.steps steps over `input`, each thread a contiguous share of the n words, a std::barrier
// between steps; one warm-up, then the median of `trials`, the last run compared with `want`.
HostBarrier time_std_barrier(const std::vector<cl_uint> &input, const std::vector<cl_uint> &want,
                             const Workload &w, unsigned threads, int trials);

}  // namespace synclab
