#include "synclab/bandwidth.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "synclab/kernels.hpp"
#include "synclab/measure.hpp"
#include "synclab/reference.hpp"
#include "synclab/timing.hpp"

namespace synclab {

std::uint64_t reduce_bytes(std::size_t n) { return static_cast<std::uint64_t>(n) * sizeof(float); }

std::uint64_t copy_bytes(std::size_t n) { return 2 * static_cast<std::uint64_t>(n) * sizeof(float); }

double gb_per_s(std::uint64_t bytes, double ms) {
    return ms > 0 ? static_cast<double>(bytes) / (ms * 1e-3) / 1e9 : 0.0;
}

double percent_of(double value, double bound) { return bound > 0 ? 100.0 * value / bound : 0.0; }

std::uint64_t read_bytes(std::size_t n) { return reduce_bytes(n); }

// float4 loads (16 bytes each), grid-stride over the shape's layout, four loads in flight per
// work-item, built for its work-group size (WG, as the rungs are): a reduction that overlaps more
// loads, or knows its group size, must not read faster than the probe of its bound. The read
// probe writes one float a group, as a reduction does (a float a work-item was 3 % more traffic
// at 2^26 floats on an H100, and a rung read faster than its "bound"). Work-item 0 takes the 0-3
// floats past the last whole vector. A CPU also gets readFloat16 (below).
static const char *kProbeSource = R"CL(
// a: the sum of x[first], x[first + step], ... below end, over four running sums.
#define SUM_STRIDED(T, a)                                                                  \
    T a = (T)(0.0f), b_ = a, c_ = a, d_ = a;                                                \
    uint i = first;                                                                        \
    for (; i + 3 * step < end; i += 4 * step) {                                            \
        a += x[i];                                                                         \
        b_ += x[i + step];                                                                 \
        c_ += x[i + 2 * step];                                                             \
        d_ += x[i + 3 * step];                                                             \
    }                                                                                      \
    for (; i < end; i += step)                                                             \
        a += x[i];                                                                         \
    a = (a + b_) + (c_ + d_);

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void copyFloat4(__global const float4 *x, __global float4 *y, uint n, uint spread, uint step,
                uint span)
{
    const uint quads = n / 4;
    const uint first = get_global_id(0) * spread;
    const uint end = min(quads, first + span);
    uint i = first;
    for (; i + 3 * step < end; i += 4 * step) {
        const float4 a = x[i], b = x[i + step], c = x[i + 2 * step], d = x[i + 3 * step];
        y[i] = a;
        y[i + step] = b;
        y[i + 2 * step] = c;
        y[i + 3 * step] = d;
    }
    for (; i < end; i += step)
        y[i] = x[i];
    if (get_global_id(0) == 0)
        for (uint t = 4 * quads; t < n; ++t)
            ((__global float *)y)[t] = ((__global const float *)x)[t];
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void readFloat4(__global const float4 *x, __global float *y, uint n, uint spread, uint step,
                uint span)
{
    const uint quads = n / 4;
    const uint first = get_global_id(0) * spread;
    const uint end = min(quads, first + span);
    SUM_STRIDED(float4, a)
    float p = (a.x + a.y) + (a.z + a.w);
    if (get_global_id(0) == 0)
        for (uint t = 4 * quads; t < n; ++t)
            p += ((__global const float *)x)[t];
    __local float scratch[WG];
    const uint lid = get_local_id(0);
    scratch[lid] = p;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 1; s < WG; s <<= 1) {  // any WG, not only powers of two
        if ((lid & (2 * s - 1)) == 0 && lid + s < WG)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        y[get_group_id(0)] = scratch[0];
}

// The CPU's read probe: blocked runs of float16 (a whole 64-byte line a load), four running
// sums, so that the loop is one wide load and add after another.
__kernel void readFloat16(__global const float16 *x, __global float *y, uint n, uint spread,
                          uint step, uint span)
{
    const uint units = n / 16;
    const uint first = get_global_id(0) * spread;
    const uint end = min(units, first + span);
    SUM_STRIDED(float16, a)
    const float8 e = a.lo + a.hi;
    const float4 f = e.lo + e.hi;
    float p = (f.x + f.y) + (f.z + f.w);
    if (get_global_id(0) == 0)
        for (uint t = 16 * units; t < n; ++t)
            p += ((__global const float *)x)[t];
    y[get_global_id(0)] = p;
}
)CL";

std::vector<ProbeShape> probe_shapes(const DeviceInfo &dev, std::size_t n, std::size_t wg,
                                     std::size_t width) {
    wg = std::max<std::size_t>(1, std::min(wg, dev.max_wg));
    const std::size_t cus = std::max<cl_uint>(1, dev.compute_units);
    const std::size_t units = std::max<std::size_t>(1, n / width);
    const std::size_t most = (units + wg - 1) / wg;  // one float4 per work-item
    std::vector<ProbeShape> shapes;
    auto add = [&](std::size_t groups) {
        groups = std::clamp<std::size_t>(groups, 1, most);
        for (const ProbeShape &s : shapes)
            if (s.groups == groups) return;
        shapes.push_back({wg, groups, dev.is_cpu()});
    };
    if (dev.is_cpu()) {  // v6/v7 run 8 per core (--per-cu): the probe tries that too
        add(cus);
        add(4 * cus);
        add(8 * cus);
    } else {
        add(8 * cus);
        add(32 * cus);
        add(most);
    }
    return shapes;
}

Stride stride_of(const ProbeShape &s, std::size_t units) {
    const std::size_t items = s.groups * s.wg;
    const std::size_t each = (units + items - 1) / items;
    if (s.blocked) return {cl_uint(each), 1, cl_uint(each)};
    return {1, cl_uint(items), cl_uint(units)};
}

// Times `kernel` (x, y, n, spread, step, span) for every shape, each by its fastest trial; keeps
// the fastest shape. `check` looks at y, as the last shape's launches left it.
template <class Check>
static Probe measure_probe(Env &env, const char *name, std::uint64_t bytes, std::size_t n,
                           const cl::Buffer &src, int trials, std::size_t wg, std::size_t out_floats,
                           const Check &check, std::size_t width = 4) {
    Probe p;
    p.n = n;
    p.bytes = bytes;
    p.trials = trials;
    p.kernel = name;
    if (n == 0) return p;
    wg = std::max<std::size_t>(1, std::min(wg, env.info.max_wg));
    const std::string source = "#define WG " + std::to_string(wg) + "\n" + kProbeSource;
    cl::Kernel k(build_source(env.context, env.info.device, source.c_str(), "synclab/probe.cl"), name);
    const std::vector<ProbeShape> shapes = probe_shapes(env.info, n, wg, width);
    std::size_t most_items = 0;
    for (const ProbeShape &s : shapes) most_items = std::max(most_items, s.groups * s.wg);
    cl::Buffer dst(env.context, CL_MEM_READ_WRITE,
                   std::max<std::size_t>(1, out_floats ? out_floats : most_items) * sizeof(float));
    k.setArg(0, src);
    k.setArg(1, dst);
    k.setArg(2, static_cast<cl_uint>(n));
    auto launch = [&](const ProbeShape &s) {
        const Stride st = stride_of(s, n / width);
        k.setArg(3, st.spread);
        k.setArg(4, st.step);
        k.setArg(5, st.span);
        return fastest_of_launches(trials, [&] {
            cl::Event ev;
            env.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(s.groups * s.wg),
                                           cl::NDRange(s.wg), nullptr, &ev);
            return event_ms(ev);
        });
    };
    for (const ProbeShape &s : shapes) {
        const double ms = launch(s);
        if (p.ms == 0 || ms < p.ms) p.ms = ms, p.shape = s;
    }
    p.gbps = gb_per_s(p.bytes, p.ms);
    p.verified = check(dst, shapes.back());
    return p;
}

Probe measure_copy(Env &env, const std::vector<float> &x, const cl::Buffer &src, int trials,
                   std::size_t wg) {
    const std::size_t n = x.size();
    return measure_probe(env, "copyFloat4", copy_bytes(n), n, src, trials, wg, n,
                         [&](const cl::Buffer &dst, const ProbeShape &) {
                             std::vector<float> back(n);
                             env.queue.enqueueReadBuffer(dst, CL_TRUE, 0, n * sizeof(float),
                                                         back.data());
                             return std::memcmp(back.data(), x.data(), n * sizeof(float)) == 0;
                         });
}

Probe measure_read(Env &env, const std::vector<float> &x, const cl::Buffer &src, int trials,
                   std::size_t wg) {
    const std::size_t n = x.size();
    double want = 0, abs_sum = 0;
    for (float v : x) want += v, abs_sum += std::fabs(v);
    // readFloat4 writes one sum a group; readFloat16 one a work-item.
    auto check = [&](const cl::Buffer &dst, std::size_t sums, std::size_t items) {
        std::vector<float> back(sums);
        env.queue.enqueueReadBuffer(dst, CL_TRUE, 0, sums * sizeof(float), back.data());
        double got = 0;
        for (float v : back) got += v;
        // Each work-item's float sums run over n / items + lanes terms, then its group's tree.
        return within(got, want, tolerance(n, abs_sum, n / items + 16 + 64));
    };
    const Probe p4 = measure_probe(env, "readFloat4", read_bytes(n), n, src, trials, wg, 0,
                                   [&](const cl::Buffer &dst, const ProbeShape &s) {
                                       return check(dst, s.groups, s.groups * s.wg);
                                   });
    if (!env.info.is_cpu() || env.info.is_oclgrind()) return p4;
    // A CPU also gets float16 loads: POCL streams those faster than float4 (a whole line a load).
    const Probe p16 = measure_probe(
        env, "readFloat16", read_bytes(n), n, src, trials, wg, 0,
        [&](const cl::Buffer &dst, const ProbeShape &s) {
            return check(dst, s.groups * s.wg, s.groups * s.wg);
        },
        16);
    if (!p4.verified || !p16.verified) return p4.verified ? p16 : p4;  // never hide a wrong one
    return p4.gbps >= p16.gbps ? p4 : p16;
}

std::string best_line(const std::string &rung, double gbps, double read_gbps, double copy_gbps) {
    char s[400];
    if (read_gbps > 0 && gbps > read_gbps)
        std::snprintf(s, sizeof s, "bound too low: %s reads %.1f GB/s, %.1f%% of the read probe's "
                      "%.1f GB/s; no kernel reads faster than the memory, so the probe missed this "
                      "device's bandwidth: its figures are no bound here",
                      rung.c_str(), gbps, percent_of(gbps, read_gbps), read_gbps);
    else
        std::snprintf(s, sizeof s, "best: %s at %.1f GB/s, %.1f%% of the read bound (%.1f%% of "
                      "the copy's %.1f GB/s, read + written)", rung.c_str(), gbps,
                      percent_of(gbps, read_gbps), percent_of(gbps, copy_gbps), copy_gbps);
    return s;
}

std::string copy_line(double best_gbps, double copy_gbps, const std::string &size_option) {
    char s[400];
    if (best_gbps > copy_gbps)
        // A faster sweep means the probe did not measure what bounds the sweeps (a launch cost
        // more than its data, or the sweeps kept the grid in caches one copy streams through),
        // not a sweep beating memory.
        std::snprintf(s, sizeof s, "device copy: %.2f GB/s, below the best sweep's %.2f GB/s (%.1f%%): "
                      "at this size the copy probe is no bound (a launch costs more than copying this "
                      "little, or the sweeps find the grid in caches that one copy streams through); "
                      "try a larger %s", copy_gbps, best_gbps,
                      percent_of(best_gbps, copy_gbps), size_option.c_str());
    else
        std::snprintf(s, sizeof s, "device copy: %.2f GB/s; best sweep %.2f GB/s = %.1f%% of it",
                      copy_gbps, best_gbps, percent_of(best_gbps, copy_gbps));
    return s;
}

}  // namespace synclab
