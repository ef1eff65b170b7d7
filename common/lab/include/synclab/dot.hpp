// For labs 01 and 04 and the race tests: the lab 01 contract, run and checked:
// kernel(a, b, dot, __local scratch), one product per
// work-item, group g writes dot[g]. Lab 01, the race tests and grading all run kernels this way.
#pragma once
#include <random>
#include <string>
#include <vector>

#include "synclab/device.hpp"
#include "synclab/reference.hpp"

namespace synclab {

struct DotTrials {
    int trials = 0, wrong_trials = 0;
    std::size_t groups = 0, wrong_groups = 0;  // over all trials
    float first_device = 0;                    // trial 1, group 0
    double first_host = 0;
    std::vector<double> kernel_ms;             // one per trial
    bool clean() const { return wrong_trials == 0; }
    // One line for the verdict: "reduceWithSync: 3/5 trials wrong, 7/20 group partials wrong".
    std::string summary(const std::string &kernel) const;
};

// Throws UsageError naming --groups when groups*wg floats do not fit one buffer on the device.
void check_dot_groups(const DeviceInfo &dev, std::size_t groups, std::size_t wg);

// Runs `kernel` `trials` times over groups*wg elements with fresh inputs (U(0,1), or whole
// numbers compared exactly when `exact`), local memory poisoned before every launch, and checks
// every group's partial against the host.
DotTrials run_dot_trials(Env &env, cl::Kernel &kernel, LocalPoison &poison, std::size_t groups,
                         std::size_t wg, int trials, std::mt19937_64 &rng, bool exact = false);

}  // namespace synclab
