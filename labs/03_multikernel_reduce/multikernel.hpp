// For lab 03: the multi-kernel reduction (dotPartials, then reducePartials until one value is
// left), measured beside lab 02's host final sum on the same inputs.
#pragma once
#include <vector>

#include "synclab/lab.hpp"
#include "synclab/partials.hpp"

namespace synclab {

struct Pass {
    std::size_t in, groups;
    std::vector<double> ms;  // one per trial
};

struct MultiKernel {
    std::vector<Pass> passes;
    std::vector<double> read_ms;
    float value = 0;
    int wrong_trials = 0;
    // With --exact, every group's sum of every pass is checked: the first wrong one, e.g.
    // "pass 2 (reducePartials) group 3: 41, want 45".
    std::string first_wrong;
    double kernels_ms() const;
    double total_ms() const { return kernels_ms() + median(read_ms); }
};

struct Row {
    MultiKernel device;
    HostFinalSum host;
    bool device_ok = true, host_ok = true;
};

// `trials` trials of each path asked for (device: multi-kernel; host: lab 02's host final sum).
Row measure(Lab &lab, cl::Kernel &dot, cl::Kernel &reduce, DotProblem &p, int trials, bool device,
            bool host);

// The passes, the two totals and what differs after pass 1.
void print_details(const DotProblem &p, const Row &row, bool device, bool host);

}  // namespace synclab
