#include "omp_sweep.hpp"

#include <chrono>
#include <cstdio>

#include "synclab/timing.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace synclab {

#ifdef _OPENMP
// The loop a user writes: rows shared among the threads, each row's interior vectorised; the
// boundary rows and columns copied. The same sum, in the same order, as host_rows.
static void sweep(const Grid &g, const float *u1, float *u2) {
    const long I = static_cast<long>(g.I), J = static_cast<long>(g.J);
#pragma omp parallel for schedule(static)
    for (long j = 0; j < J; ++j) {
        const float *a = u1 + j * I;
        float *b = u2 + j * I;
        if (j == 0 || j == J - 1) {
            for (long i = 0; i < I; ++i) b[i] = a[i];
            continue;
        }
        b[0] = a[0];
#pragma omp simd
        for (long i = 1; i < I - 1; ++i) b[i] = 0.25f * (((a[i - 1] + a[i + 1]) + a[i - I]) + a[i + I]);
        b[I - 1] = a[I - 1];
    }
}

// `sweeps` sweeps from what u holds, v the other buffer; the result ends in u.
static void run_sweeps(const Grid &g, unsigned sweeps, std::vector<float> &u, std::vector<float> &v) {
    for (unsigned s = 0; s < sweeps; ++s) {
        sweep(g, u.data(), v.data());
        u.swap(v);
    }
}

OmpSweeps time_openmp_sweeps(const Grid &g, unsigned sweeps, int trials,
                             const std::vector<float> &want) {
    OmpSweeps r;
    r.ran = true;
    r.threads = static_cast<unsigned>(omp_get_max_threads());
    // Both buffers allocated and touched before the clock starts, as the kernels' buffers are
    // written before theirs: only the sweeps are timed.
    std::vector<float> u = g.start, v(u.size());
    run_sweeps(g, 1, u, v);  // warm-up: threads, pages
    std::vector<double> ms;
    for (int t = 0; t < std::max(1, trials); ++t) {
        u = g.start;
        const auto t0 = std::chrono::steady_clock::now();
        run_sweeps(g, sweeps, u, v);
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    const std::vector<float> &got = u;
    r.runs = spread_of(ms);
    r.ms = r.runs.median;
    r.policy = openmp_wait_policy();
    std::size_t differ = 0, first = 0;
    for (std::size_t k = 0; k < got.size(); ++k)
        if (got[k] != want[k] && differ++ == 0) first = k;
    r.ok = differ == 0;
    if (!r.ok) {
        char s[160];
        std::snprintf(s, sizeof s, "%zu points differ from the host's, first (%zu, %zu) = %.9g, host %.9g",
                      differ, first % g.I, first / g.I, double(got[first]), double(want[first]));
        r.wrong = s;
    }
    return r;
}
#else
OmpSweeps time_openmp_sweeps(const Grid &, unsigned, int, const std::vector<float> &) {
    OmpSweeps r;
    r.why_not = "not built in (no OpenMP when it was compiled)";
    return r;
}
#endif

}  // namespace synclab
