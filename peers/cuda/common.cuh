// What the CUDA peers share: an error check that exits 2 with one line, a median, a host clock,
// and lab 09's stepped workload (labs/09_interworkgroup_barrier/steps.cpp), computed the same way.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(call)                                                                          \
    do {                                                                                          \
        const cudaError_t e_ = (call);                                                            \
        if (e_ != cudaSuccess) {                                                                  \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                    \
                         cudaGetErrorString(e_));                                                 \
            std::exit(2);                                                                         \
        }                                                                                         \
    } while (0)

inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

inline double now_ms() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// A positive whole number from argv[i], or exit 2 naming the argument.
inline unsigned long arg_or(int argc, char **argv, int i, unsigned long fallback, const char *name) {
    if (i >= argc) return fallback;
    char *end = nullptr;
    const unsigned long v = std::strtoul(argv[i], &end, 10);
    if (!*argv[i] || *end || v == 0) {
        std::fprintf(stderr, "%s must be a positive whole number, not '%s'\n", name, argv[i]);
        std::exit(2);
    }
    return v;
}

// One step of lab 09's workload for the groups me, me + parts, ... (work 0: no busy loop).
__host__ __device__ inline unsigned step_value(const unsigned *src, unsigned n, unsigned i,
                                               unsigned s) {
    const unsigned l = src[i == 0 ? n - 1 : i - 1], r = src[i + 1 == n ? 0 : i + 1];
    return 3u * src[i] + (l ^ r) + src[(i + n / 2) % n] + s;
}

__device__ inline void do_step(const unsigned *src, unsigned *dst, unsigned n, unsigned s,
                               unsigned me, unsigned parts) {
    const unsigned wg = blockDim.x, chunks = (n + wg - 1) / wg;
    for (unsigned c = me; c < chunks; c += parts) {
        const unsigned i = c * wg + threadIdx.x;
        if (i < n) dst[i] = step_value(src, n, i, s);
    }
}

// The host's answer after `steps` steps, and the input it starts from.
inline std::vector<unsigned> steps_input(unsigned n) {
    std::vector<unsigned> x(n);
    unsigned v = 12345u;
    for (auto &e : x) e = v = v * 1664525u + 1013904223u;
    return x;
}
inline std::vector<unsigned> steps_reference(std::vector<unsigned> x, unsigned steps) {
    std::vector<unsigned> y(x.size());
    for (unsigned s = 0; s < steps; ++s) {
        for (unsigned i = 0; i < x.size(); ++i) y[i] = step_value(x.data(), x.size(), i, s);
        x.swap(y);
    }
    return x;
}
