#include "host_barrier.hpp"

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <thread>

#include "synclab/timing.hpp"

namespace synclab {

// One run: every thread waits at the barrier once before the first step (so that the time is
// the steps', not the threads' start), then computes its share of each step and waits again.
static double run_once(const std::vector<cl_uint> &input, std::vector<cl_uint> &out,
                       const Workload &w, unsigned threads) {
    const std::size_t n = input.size();
    std::vector<cl_uint> a = input, b(n);
    std::barrier sync(static_cast<std::ptrdiff_t>(threads));
    std::chrono::steady_clock::time_point t0, t1;
    auto body = [&](unsigned t) {
        const std::size_t lo = n * t / threads, hi = n * (t + 1) / threads;
        cl_uint *x = a.data(), *y = b.data();
        sync.arrive_and_wait();
        if (t == 0) t0 = std::chrono::steady_clock::now();
        for (unsigned s = 0; s < w.steps; ++s) {
            for (std::size_t i = lo; i < hi; ++i) y[i] = step_value(x, n, i, s, w.work);
            sync.arrive_and_wait();  // every share of step s written before any reads it
            std::swap(x, y);
        }
        if (t == 0) t1 = std::chrono::steady_clock::now();
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(body, t);
    body(0);
    for (auto &th : pool) th.join();
    out = w.steps % 2 ? b : a;
    return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

HostBarrier time_std_barrier(const std::vector<cl_uint> &input, const std::vector<cl_uint> &want,
                             const Workload &w, unsigned threads, int trials) {
    HostBarrier r;
    r.threads = static_cast<unsigned>(std::clamp<std::size_t>(threads, 1, input.size()));
    std::vector<cl_uint> got;
    run_once(input, got, w, r.threads);  // warm-up
    std::vector<double> ms;
    for (int t = 0; t < std::max(1, trials); ++t) ms.push_back(run_once(input, got, w, r.threads));
    r.ms = median(ms);
    std::size_t differ = 0, first = 0;
    for (std::size_t k = 0; k < want.size(); ++k)
        if (got[k] != want[k] && differ++ == 0) first = k;
    r.ok = differ == 0 && got.size() == want.size();
    if (!r.ok && got.size() == want.size()) {
        char s[160];
        std::snprintf(s, sizeof s, "%zu words differ from the reference, first [%zu] = %u, want %u",
                      differ, first, unsigned(got[first]), unsigned(want[first]));
        r.wrong = s;
    }
    return r;
}

}  // namespace synclab
