// For lab 08 (and its unit tests): memory-bound kernels judged against what the device can
// really move: the bytes a kernel must touch, GB/s, a copy kernel as the measured bound, and the
// host's own threads as the peer of a CPU device.
#pragma once
#include <cstdint>
#include <vector>

#include "synclab/device.hpp"

namespace synclab {

// Bytes a reduction of n floats must read (each element once; the partial sums are not counted).
std::uint64_t reduce_bytes(std::size_t n);
// Bytes a copy of n floats moves: n read plus n written.
std::uint64_t copy_bytes(std::size_t n);
// bytes / time in GB/s (10^9 bytes per second); 0 for a time that is not positive.
double gb_per_s(std::uint64_t bytes, double ms);
// 100 * value / bound; 0 when there is no bound.
double percent_of(double value, double bound);

// The bound: a copy kernel (y[i] = x[i], one float per work-item) over n floats already in
// `src`, timed by its events: one warm-up launch, then the median of `trials`. The copy is
// checked against `x` (the host's copy of src) after the last launch.
struct CopyProbe {
    std::size_t n = 0;
    std::uint64_t bytes = 0;  // copy_bytes(n)
    double ms = 0;            // median kernel time
    double gbps = 0;          // gb_per_s(bytes, ms)
    int trials = 0;
    bool verified = false;
};
CopyProbe measure_copy(Env &env, const std::vector<float> &x, const cl::Buffer &src, int trials,
                       std::size_t wg = 256);

// The host's own multithreaded sum: one contiguous chunk per std::thread, each chunk added in
// float with kHostLanes independent running sums (SIMD vectors of 4), the chunk sums added in
// double. threads 0: std::thread::hardware_concurrency().
constexpr std::size_t kHostLanes = 32;
unsigned host_threads(unsigned threads = 0);
double host_parallel_sum(const std::vector<float> &x, unsigned threads = 0);
// Terms one running sum adds one after another (for tolerance()).
std::size_t host_serial(std::size_t n, unsigned threads);

// The peer, timed by the host clock: one warm-up, then the median of `trials`.
struct HostPeer {
    unsigned threads = 0;
    double value = 0;  // the last trial's sum
    double ms = 0;
    double gbps = 0;   // gb_per_s(reduce_bytes(n), ms)
};
HostPeer time_host_sum(const std::vector<float> &x, int trials, unsigned threads = 0);

}  // namespace synclab
