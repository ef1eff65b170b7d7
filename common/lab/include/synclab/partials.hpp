// For labs 02, 03 and 08 (groups_for): past one work-group, every group reduces its slice of the
// dot product in local memory and writes one partial sum. Lab 02 adds the partials on the host; lab 03 keeps
// launching kernels instead and compares itself with lab 02's way, so that way lives here.
#pragma once
#include <random>
#include <vector>

#include "synclab/device.hpp"
#include "synclab/measure.hpp"
#include "synclab/reference.hpp"

namespace synclab {

// ceil(n / wg): the groups that cover n elements (at least 1).
std::size_t groups_for(std::size_t n, std::size_t wg);

// The dot product's length: -n as given (n_option), else 2^24 terms; 2^12 on Oclgrind, an
// interpreter that takes minutes over 2^24 (a race check needs no more than a few groups).
std::size_t dot_size(const DeviceInfo &dev, std::size_t n_option);

// Throws UsageError when n elements (padded to whole groups of wg) cannot be one buffer on the
// device, or do not fit the kernels' uint indices.
void check_dot_size(const DeviceInfo &dev, std::size_t n, std::size_t wg);

// A dot product of n terms with its host references. The vectors are padded with NaN up to a
// whole number of groups: a kernel that reads past n without a guard gets NaN, never a crash.
// With `exact` (--exact) the inputs are whole numbers and every sum is compared exactly.
struct DotProblem {
    std::size_t n = 0, wg = 0, groups = 0;
    bool exact = false;
    std::vector<float> a, b;  // groups * wg each, NaN past n
    cl::Buffer da, db;
    std::vector<Sum> slice;   // group g's terms: [g*wg, min(n, (g+1)*wg))
    Sum total;
};
DotProblem make_dot_problem(Env &env, std::size_t n, std::size_t wg, std::mt19937_64 &rng,
                            bool exact = false);

// Writes a and b to the device; returns the two writes' time by their events, in ms.
double upload(Env &env, DotProblem &p);


// The first launch: kernel(a, b, partial, scratch, n) over p.groups groups of p.wg work-items,
// with partial refilled with NaN and local memory poisoned first. Returns the kernel's event.
cl::Event launch_dot_partials(Env &env, cl::Kernel &kernel, LocalPoison &poison,
                              const DotProblem &p, const cl::Buffer &partial);

// Lab 02's way, `trials` times on the same inputs: upload, launch, read every partial, add them
// on the host. Times are medians over the trials; every trial's partials are checked.
struct HostFinalSum {
    double upload_ms = 0, kernel_ms = 0, read_ms = 0, host_ms = 0;
    int trials = 0, wrong_trials = 0;
    std::size_t wrong_partials = 0;                           // over all trials
    std::size_t first_wrong = static_cast<std::size_t>(-1);  // group, in the first wrong trial
    float first_wrong_got = 0;
    double first_wrong_want = 0;
    double value = 0;      // the last trial's partials added on the host (in double)
    bool total_ok = true;  // every trial's total within tolerance
    bool ok() const { return wrong_trials == 0 && total_ok; }
    double transfer_ms() const { return upload_ms + read_ms; }
    double total_ms() const { return upload_ms + kernel_ms + read_ms + host_ms; }
    // Without the upload, which any way of reducing on the device needs as well.
    double reduce_ms() const { return kernel_ms + read_ms + host_ms; }
};
HostFinalSum host_final_sum(Env &env, cl::Kernel &kernel, LocalPoison &poison, DotProblem &p,
                            int trials);

// Sizes for a --csv sweep: 2^10, 2^11, ... below n, then n itself.
std::vector<std::size_t> sweep_sizes(std::size_t n);

}  // namespace synclab
