// For lab 09: the stepped workload on the host (the exact reference), and one method launched,
// timed and checked: relaunch per step, or one launch with a barrier between work-groups inside.
#pragma once
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "synclab/lab.hpp"

namespace synclab {

struct Workload {
    std::size_t n = 0, wg = 0;
    unsigned steps = 0, work = 0;  // work: busy-loop turns per element per step
    unsigned skew = 0;             // polls the last group waits before each step
    unsigned budget = 0;           // polls a wait may take before it gives up
    unsigned grace = 0;            // discovery: quiet polls before the poll closes
};

// Element i of step s from the previous step's x (n elements), as the kernels compute it
// (unsigned wrap-around).
cl_uint step_value(const cl_uint *x, std::size_t n, std::size_t i, unsigned s, unsigned work);
// The host's steps, exactly as the kernels compute them.
std::vector<cl_uint> reference(std::vector<cl_uint> x, unsigned steps, unsigned work);

enum class How { RelaunchWait, RelaunchQueue, InKernel };

struct Outcome {
    double ms = 0;              // host clock, first enqueue to finish
    bool gave_up = false;
    std::size_t wrong = 0, first = 0;
    cl_uint got = 0, want = 0;
    std::size_t launched = 0;   // groups launched
    std::size_t parts = 0;      // groups that took part (discovered: those registered)
    std::size_t arrived = 0;    // after a give-up: groups that reached the step it waited at
    unsigned stuck_step = 0;
    std::string stalled_before;  // a first try that gave up before all arrived (Steps::run)
    bool ok() const { return !gave_up && wrong == 0; }
    std::string text() const;   // "verified", "barrier gave up: ...", "WRONG: ..."
};

// Bytes of device memory a method's synchronisation needs for `groups` taking part (thesis
// Appendix J): control words and flags, not the workload's buffers.
std::size_t sync_bytes(const std::string &method, std::size_t groups);

class Steps {
public:
    Steps(Env &env, std::size_t n, std::mt19937_64 &rng);
    // Runs `steps` steps with `groups` groups; reference results are cached per (steps, work).
    // A give-up before every group arrived is tried once more.
    Outcome run(cl::Kernel &k, How how, std::size_t groups, const Workload &w,
                bool discovered = false);
    // The discovery kernel alone: how many groups of w.wg registered, `launched` launched; 0 when
    // every try had a waiter give up.
    std::size_t discover(cl::Kernel &k, std::size_t launched, const Workload &w);
    double discovery_ms = 0;  // the last discover()'s kernel, start to end
    int discovery_tries = 0;  // how many kernels the last discover() ran
    const std::vector<cl_uint> &input() const { return input_; }
    const std::vector<cl_uint> &want(unsigned steps, unsigned work);  // reference(), cached

private:
    Outcome run_once(cl::Kernel &k, How how, std::size_t groups, const Workload &w,
                     bool discovered);
    void zero(const cl::Buffer &b, std::size_t words);
    Env &env_;
    std::size_t n_;
    std::vector<cl_uint> input_, stale_;
    std::vector<std::pair<std::pair<unsigned, unsigned>, std::vector<cl_uint>>> cache_;
    cl::Buffer a_, b_, ctl_;
    cl::Buffer flags_, seen_;
    std::size_t flag_groups_ = 0;
    std::set<cl_kernel> warm_;  // kernels launched once already
};

}  // namespace synclab
