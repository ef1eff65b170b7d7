// For lab 08's bounds and its tests: the sums a user would write for a CPU instead of OpenCL,
// run on the host over the lab's own buffer (mapped): std::threads with several running vectors,
// and OpenMP's `parallel for simd reduction`. Each is timed by the host clock and checked.
#pragma once
#include <cstdint>
#include <span>
#include <string>

#include "synclab/timing.hpp"

namespace synclab {

// std::threads: one contiguous chunk per thread, each added in float with kThreadVectors
// running vectors of kVectorFloats, the chunk sums added in double. threads 0: every
// hardware thread.
constexpr std::size_t kVectorFloats = 16, kThreadVectors = 8;
constexpr std::size_t kHostLanes = kVectorFloats * kThreadVectors;
unsigned host_threads(unsigned threads = 0);
double host_parallel_sum(std::span<const float> x, unsigned threads = 0);
// Terms one running sum adds one after another (for tolerance()).
std::size_t host_serial(std::size_t n, unsigned threads);

// OpenMP: `#pragma omp parallel for simd reduction(+:s)` over x, in float, static chunks on
// `threads` threads (0: OpenMP's default). Without OpenMP at build time, NaN.
bool openmp_built_in();
double openmp_sum(std::span<const float> x, unsigned threads = 0);
unsigned openmp_threads(unsigned threads = 0);
// Terms one of its running sums adds one after another: a thread's chunk over the vector lanes,
// at most (the compiler picks the lanes; one lane is the worst case).
std::size_t openmp_serial(std::size_t n, unsigned threads);

// A peer measured: one warm-up, then `trials` runs timed by the host clock. Its row shows the
// median and the range of its runs; its fastest run is a read of the whole buffer, so it counts among the read probes.
struct HostPeer {
    std::string name;  // "OpenMP", "std::threads"
    std::string how;   // what it runs, for its row
    unsigned threads = 0;
    double value = 0;  // the last trial's sum
    double ms = 0, fastest_ms = 0;
    Spread runs;  // the timed runs, ms: a ratio against the median is printed beside it
    std::uint64_t bytes = 0;  // what one run reads
    std::string runs_text() const;  // "median 19.0 GB/s over 5 runs, 12.0-24.6 GB/s[; spread wide...]"
    double gbps = 0, fastest_gbps = 0;  // gb_per_s(4 n, ms), and of fastest_ms
    std::size_t serial = 0;  // for tolerance()
    bool verified = false;
    std::string wrong;  // when not verified: "x, want y (...)"
};
HostPeer time_threads_sum(std::span<const float> x, int trials, unsigned threads = 0);
HostPeer time_openmp_sum(std::span<const float> x, int trials, unsigned threads = 0);

// Checks p.value against the double sum `want` of n terms whose magnitudes add to abs_sum;
// sets verified, or wrong with both values.
void check_peer(HostPeer &p, std::size_t n, double want, double abs_sum);

}  // namespace synclab
