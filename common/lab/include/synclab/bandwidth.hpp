// For labs that judge a memory-bound kernel (08, 10) and their tests: what the device can really
// move: the bytes a kernel must touch, GB/s, and a read and a copy probe as the measured bounds.
#pragma once
#include <cstdint>
#include <string>
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

// How a probe spreads n floats over the device: float4 units, grid-stride as v6/v7 do (blocked
// runs on a CPU, interleaved on a GPU), `groups` groups of `wg`.
struct ProbeShape {
    std::size_t wg = 0, groups = 0;
    bool blocked = false;
};
// The shapes a probe tries, per device class as the rungs are tuned: on a GPU 8 and 32 groups
// per compute unit and one float4 per work-item; on a CPU 1, 4 and 8 groups per core, blocked.
// width: floats a load brings in (4, or 16 for the CPU's float16 read probe).
std::vector<ProbeShape> probe_shapes(const DeviceInfo &dev, std::size_t n, std::size_t wg,
                                     std::size_t width = 4);
// Work-item gid touches float4 gid*spread + k*step while below gid*spread + span (and `units`).
struct Stride {
    cl_uint spread = 0, step = 0, span = 0;
};
Stride stride_of(const ProbeShape &s, std::size_t units);

// A bound, measured: a float4 grid-stride kernel over n floats already in `src`, timed by its
// events (one warm-up launch, then the median of `trials`) for every shape of probe_shapes();
// the fastest shape is kept. The copy (y = x) moves copy_bytes(n) and is compared with x
// byte for byte; the read adds x into one float per work-item (read_bytes(n): those few sums
// are not counted, as a reduction's partial sums are not) and their total is checked. On a CPU
// the read is also measured with float16 loads (readFloat16), and the faster kernel is kept.
struct Probe {
    std::size_t n = 0;
    std::uint64_t bytes = 0;  // copy_bytes(n) or read_bytes(n)
    double ms = 0;            // median kernel time of the fastest shape
    double gbps = 0;          // gb_per_s(bytes, ms)
    int trials = 0;
    bool verified = false;
    ProbeShape shape;         // the fastest
    std::string kernel;       // "copyFloat4", "readFloat4" or, on a CPU, "readFloat16"
};
using CopyProbe = Probe;
Probe measure_copy(Env &env, const std::vector<float> &x, const cl::Buffer &src, int trials,
                   std::size_t wg = 256);
Probe measure_read(Env &env, const std::vector<float> &x, const cl::Buffer &src, int trials,
                   std::size_t wg = 256);
// Bytes the read probe counts: n floats read.
std::uint64_t read_bytes(std::size_t n);

// The last line of the table: the best rung against the read bound (the copy's beside it), or,
// when a rung reads faster than the read probe, that the bound is wrong, never a success.
std::string best_line(const std::string &rung, double gbps, double read_gbps, double copy_gbps);
// The same for a stencil that reads and writes as much as the copy (lab 10's sweeps): the best
// sweep's share of the copy probe, or, when the sweep is faster, that the probe is no bound there
// and to try a larger size_option (e.g. --grid).
std::string copy_line(double best_gbps, double copy_gbps, const std::string &size_option);

}  // namespace synclab
