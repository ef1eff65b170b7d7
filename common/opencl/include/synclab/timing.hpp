// For everything that times kernels: event timing (queues are created with profiling on).
#pragma once
#include <algorithm>
#include <vector>

#include "synclab/cl.hpp"

namespace synclab {

inline double event_ms(const cl::Event &e) {
    e.wait();
    const auto start = e.getProfilingInfo<CL_PROFILING_COMMAND_START>();
    const auto end = e.getProfilingInfo<CL_PROFILING_COMMAND_END>();
    return static_cast<double>(end - start) * 1e-6;
}

// Median of timings (0 for none): robust to the odd slow launch.
inline double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

// Timings' median and range. On a shared machine the load comes and goes: a ratio against a
// median is worth only as much as the range around it.
struct Spread {
    double median = 0, low = 0, high = 0;
    std::size_t runs = 0;
    // The slowest run over 1.5 times the fastest: the load, not the code, set the figure.
    bool wide() const { return low > 0 && high > 1.5 * low; }
};

inline Spread spread_of(const std::vector<double> &v) {
    if (v.empty()) return {};
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return {median(v), *lo, *hi, v.size()};
}

}  // namespace synclab
