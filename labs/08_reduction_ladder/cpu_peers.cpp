#include "cpu_peers.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "synclab/bandwidth.hpp"
#include "synclab/measure.hpp"
#include "synclab/reference.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace synclab {

unsigned host_threads(unsigned threads) {
    if (threads) return threads;
    return std::max(1u, std::thread::hardware_concurrency());
}

// kThreadVectors running vectors of 64 bytes (GCC/Clang vector extensions): without them the
// compiler keeps every add scalar, as it may not reorder float additions. Built with the
// machine's widest vectors (labs/cpu_peers.cmake) each is one register; on narrower ones, several.
typedef float host_vector __attribute__((vector_size(4 * kVectorFloats)));

static float chunk_sum(const float *x, std::size_t n) {
    host_vector acc[kThreadVectors] = {};
    std::size_t i = 0;
    for (; i + kHostLanes <= n; i += kHostLanes)
        for (std::size_t v = 0; v < kThreadVectors; ++v) {
            host_vector t;
            std::memcpy(&t, x + i + kVectorFloats * v, sizeof t);  // an unaligned load
            acc[v] += t;
        }
    float s = 0;
    for (; i < n; ++i) s += x[i];
    for (const auto &a : acc)
        for (std::size_t j = 0; j < kVectorFloats; ++j) s += a[j];
    return s;
}

double host_parallel_sum(std::span<const float> x, unsigned threads) {
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

#ifdef _OPENMP
bool openmp_built_in() { return true; }
unsigned openmp_threads(unsigned threads) {
    return threads ? threads : static_cast<unsigned>(std::max(1, omp_get_max_threads()));
}
// The loop a user writes: s in double, so that the check is as tight as the reference's.
double openmp_sum(std::span<const float> x, unsigned threads) {
    const float *p = x.data();
    const long n = static_cast<long>(x.size());
    double s = 0;
#pragma omp parallel for simd reduction(+ : s) schedule(static) num_threads(openmp_threads(threads))
    for (long i = 0; i < n; ++i) s += p[i];
    return s;
}
#else
bool openmp_built_in() { return false; }
unsigned openmp_threads(unsigned threads) { return threads ? threads : 1; }
double openmp_sum(std::span<const float>, unsigned) { return NAN; }
#endif

// One warm-up, then `trials` runs of `sum` timed by the host clock: the median, the range.
static void time_sum(HostPeer &p, std::size_t n, int trials, const std::function<double()> &sum) {
    p.value = sum();
    std::vector<double> ms;
    for (int t = 0; t < std::max(1, trials); ++t) {
        const auto t0 = std::chrono::steady_clock::now();
        p.value = sum();
        const auto t1 = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    p.runs = spread_of(ms);
    p.bytes = reduce_bytes(n);
    p.ms = p.runs.median;
    p.fastest_ms = p.runs.low;
    p.gbps = gb_per_s(reduce_bytes(n), p.ms);
    p.fastest_gbps = gb_per_s(reduce_bytes(n), p.fastest_ms);
}

HostPeer time_threads_sum(std::span<const float> x, int trials, unsigned threads) {
    HostPeer p;
    p.name = "std::threads";
    p.threads = host_threads(threads);
    p.how = std::to_string(p.threads) + " std::threads, a contiguous chunk each, " +
            std::to_string(kThreadVectors) + " running vectors of " +
            std::to_string(kVectorFloats) + " floats";
    p.serial = host_serial(x.size(), p.threads);
    time_sum(p, x.size(), trials, [&] { return host_parallel_sum(x, p.threads); });
    return p;
}

HostPeer time_openmp_sum(std::span<const float> x, int trials, unsigned threads) {
    HostPeer p;
    p.name = "OpenMP";
    p.threads = openmp_threads(threads);
    p.how = std::to_string(p.threads) + " threads, parallel for simd reduction(+:s), s a double, " +
            openmp_wait_policy();
    p.serial = 1;  // in double: far below a float sum's rounding
    if (!openmp_built_in()) {
        p.wrong = "not built in (no OpenMP when it was compiled)";
        return p;
    }
    time_sum(p, x.size(), trials, [&] { return openmp_sum(x, p.threads); });
    return p;
}

std::string HostPeer::runs_text() const { return gbps_spread(bytes, runs); }

void check_peer(HostPeer &p, std::size_t n, double want, double abs_sum) {
    const double tol = tolerance(n, abs_sum, p.serial);
    p.verified = within(p.value, want, tol);
    if (p.verified) return p.wrong.clear();
    char s[160];
    std::snprintf(s, sizeof s, "%.9g, want %.9g (off by %.3g, tolerance %.3g)", p.value, want,
                  std::fabs(p.value - want), tol);
    p.wrong = s;
}

}  // namespace synclab
