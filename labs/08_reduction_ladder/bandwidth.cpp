#include "bandwidth.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include "synclab/kernels.hpp"
#include "synclab/measure.hpp"
#include "synclab/timing.hpp"

namespace synclab {

std::uint64_t reduce_bytes(std::size_t n) { return static_cast<std::uint64_t>(n) * sizeof(float); }

std::uint64_t copy_bytes(std::size_t n) { return 2 * static_cast<std::uint64_t>(n) * sizeof(float); }

double gb_per_s(std::uint64_t bytes, double ms) {
    return ms > 0 ? static_cast<double>(bytes) / (ms * 1e-3) / 1e9 : 0.0;
}

double percent_of(double value, double bound) { return bound > 0 ? 100.0 * value / bound : 0.0; }

// One float per work-item, the simplest access a memory system is built for: neighbouring
// work-items read and write neighbouring addresses.
static const char *kCopySource = R"CL(
__kernel void copyFloats(__global const float *x, __global float *y, uint n)
{
    const uint i = get_global_id(0);
    if (i < n)
        y[i] = x[i];
}
)CL";

CopyProbe measure_copy(Env &env, const std::vector<float> &x, const cl::Buffer &src, int trials,
                       std::size_t wg) {
    CopyProbe p;
    p.n = x.size();
    p.bytes = copy_bytes(p.n);
    p.trials = trials;
    if (p.n == 0) return p;
    cl::Kernel k(build_source(env.context, env.info.device, kCopySource, "synclab/copy.cl"),
                 "copyFloats");
    wg = std::min({wg, env.info.max_wg,
                   k.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(env.info.device)});
    cl::Buffer dst(env.context, CL_MEM_READ_WRITE, p.n * sizeof(float));
    k.setArg(0, src);
    k.setArg(1, dst);
    k.setArg(2, static_cast<cl_uint>(p.n));
    const std::size_t global = (p.n + wg - 1) / wg * wg;
    p.ms = median_of_launches(trials, [&] {
        cl::Event ev;
        env.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(global), cl::NDRange(wg),
                                       nullptr, &ev);
        return event_ms(ev);
    });
    p.gbps = gb_per_s(p.bytes, p.ms);
    std::vector<float> back(p.n);
    env.queue.enqueueReadBuffer(dst, CL_TRUE, 0, p.n * sizeof(float), back.data());
    p.verified = std::memcmp(back.data(), x.data(), p.n * sizeof(float)) == 0;
    return p;
}

unsigned host_threads(unsigned threads) {
    if (threads) return threads;
    return std::max(1u, std::thread::hardware_concurrency());
}

// kHostLanes running sums as SSE-sized vectors (GCC/Clang vector extensions): without them
// the compiler keeps every add scalar, as it may not reorder float additions.
typedef float float4_host __attribute__((vector_size(16)));
constexpr std::size_t kVectors = kHostLanes / 4;

static float chunk_sum(const float *x, std::size_t n) {
    float4_host acc[kVectors] = {};
    std::size_t i = 0;
    for (; i + kHostLanes <= n; i += kHostLanes)
        for (std::size_t v = 0; v < kVectors; ++v) {
            float4_host t;
            std::memcpy(&t, x + i + 4 * v, sizeof t);  // an unaligned 16-byte load
            acc[v] += t;
        }
    float s = 0;
    for (; i < n; ++i) s += x[i];
    for (const auto &a : acc) s += (a[0] + a[1]) + (a[2] + a[3]);
    return s;
}

double host_parallel_sum(const std::vector<float> &x, unsigned threads) {
    threads = host_threads(threads);
    const std::size_t chunk = (x.size() + threads - 1) / threads;
    std::vector<float> sums(threads, 0.0f);
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
        const std::size_t first = std::min(x.size(), t * chunk);
        const std::size_t count = std::min(x.size() - first, chunk);
        pool.emplace_back([&sums, &x, t, first, count] { sums[t] = chunk_sum(x.data() + first, count); });
    }
    for (auto &th : pool) th.join();
    double total = 0;
    for (float s : sums) total += s;
    return total;
}

std::size_t host_serial(std::size_t n, unsigned threads) {
    const std::size_t chunk = (n + host_threads(threads) - 1) / host_threads(threads);
    return chunk / kHostLanes + kHostLanes + kHostLanes;  // a lane's terms, the tail, the lanes
}

HostPeer time_host_sum(const std::vector<float> &x, int trials, unsigned threads) {
    HostPeer p;
    p.threads = host_threads(threads);
    p.ms = median_of_launches(trials, [&] {
        const auto t0 = std::chrono::steady_clock::now();
        p.value = host_parallel_sum(x, p.threads);
        const auto t1 = std::chrono::steady_clock::now();
        return std::chrono::duration<double, std::milli>(t1 - t0).count();
    });
    p.gbps = gb_per_s(reduce_bytes(x.size()), p.ms);
    return p;
}

}  // namespace synclab
