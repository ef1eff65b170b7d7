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

}  // namespace synclab
