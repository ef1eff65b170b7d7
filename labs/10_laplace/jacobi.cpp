// For lab 10: the grid, the host's sweeps and the kernels' runs (jacobi.hpp).
#include "jacobi.hpp"

#include "synclab/second_try.hpp"

#include <cstdio>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

namespace synclab {

Block parse_block(const std::string &option, const std::string &text) {
    const auto x = text.find('x');
    auto number = [&](const std::string &s) -> std::size_t {
        if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
            return 0;
        return std::stoul(s);
    };
    const Block b = x == std::string::npos ? Block{}
                                           : Block{number(text.substr(0, x)), number(text.substr(x + 1))};
    if (!b.x || !b.y)
        throw UsageError(option + " '" + text + "' is not two sizes: write it as WIDTHxHEIGHT, "
                         "e.g. " + option + (option == "--grid" ? " 256x256" : " 32x4"));
    return b;
}

Grid::Grid(std::size_t I_, std::size_t J_, std::mt19937_64 &rng) : I(I_), J(J_) {
    start.resize(I * J);
    exact.resize(I * J);
    const double h = 1.0 / double(std::max(I, J) - 1);
    std::uniform_real_distribution<float> guess(-1.0f, 1.0f);
    for (std::size_t j = 0; j < J; ++j)
        for (std::size_t i = 0; i < I; ++i) {
            const double x = i * h, y = 0.5 + j * h;
            const std::size_t id = i + j * I;
            exact[id] = float(x * x - y * y);
            const bool edge = i == 0 || i == I - 1 || j == 0 || j == J - 1;
            start[id] = edge ? exact[id] : guess(rng);
        }
}

void host_rows(const Grid &g, const float *u1, float *u2, std::size_t j0, std::size_t j1) {
    const std::size_t I = g.I, J = g.J;
    for (std::size_t j = j0; j < j1; ++j) {
        const std::size_t row = j * I;
        if (j == 0 || j == J - 1) {
            std::copy(u1 + row, u1 + row + I, u2 + row);
            continue;
        }
        u2[row] = u1[row];
        for (std::size_t i = 1; i + 1 < I; ++i) {
            const std::size_t id = row + i;
            u2[id] = 0.25f * (((u1[id - 1] + u1[id + 1]) + u1[id - I]) + u1[id + I]);
        }
        u2[row + I - 1] = u1[row + I - 1];
    }
}

std::vector<float> host_sweeps(const Grid &g, unsigned sweeps, unsigned threads,
                               std::vector<Convergence> *log, unsigned every) {
    std::vector<float> u = g.start, v(u.size());
    threads = std::max(1u, std::min<unsigned>(threads, unsigned(g.J)));
    every = std::max(1u, every);
    for (unsigned s = 1; s <= sweeps; ++s) {
        if (threads == 1) {
            host_rows(g, u.data(), v.data(), 0, g.J);
        } else {
            std::vector<std::thread> pool;
            for (unsigned t = 0; t < threads; ++t)
                pool.emplace_back(host_rows, std::cref(g), u.data(), v.data(), g.J * t / threads,
                                  g.J * (t + 1) / threads);
            for (auto &th : pool) th.join();
        }
        if (log && (s % every == 0 || s == sweeps)) log->push_back({s, max_diff(u, v), max_diff(v, g.exact)});
        u.swap(v);
    }
    return u;
}

double max_diff(const std::vector<float> &a, const std::vector<float> &b) {
    double m = 0;
    for (std::size_t k = 0; k < a.size(); ++k) m = std::max(m, std::fabs(double(a[k]) - b[k]));
    return m;
}

std::string Run::text(std::size_t I) const {
    if (gave_up && arrived >= parts)  // all came, and still a wait ran out: the protocol lost one
        return "gave up at sweep " + std::to_string(stuck + 1) + ": all " + std::to_string(parts) +
               " groups arrived, yet a wait ran out - the barrier lost an arrival or a release";
    if (gave_up)
        return "gave up at sweep " + std::to_string(stuck + 1) + ": " + std::to_string(arrived) +
               " of " + std::to_string(parts) + " groups arrived - " +
               (stuck == 0 ? "the others were never resident" : "the others never arrived");
    if (wrong) {
        // Nine significant digits tell any two floats apart: a sum in another order differs in
        // its last bits only, and six digits would show two equal numbers.
        char text[160];
        std::snprintf(text, sizeof text, "WRONG: %zu points, first (%zu, %zu) = %.9g, host %.9g (off by %.3g)",
                      wrong, first % I, first / I, double(got), double(want), double(got) - double(want));
        return text;
    }
    if (!stalled_before.empty())
        return synclab::verified_on_second_try(stalled_before);
    return "verified";
}

Sweeper::Sweeper(Env &env, const Grid &g) : env_(env), g_(g) {
    const std::size_t bytes = g.points() * sizeof(float);
    a_ = cl::Buffer(env.context, CL_MEM_READ_WRITE, bytes);
    b_ = cl::Buffer(env.context, CL_MEM_READ_WRITE, bytes);
    ctl_ = cl::Buffer(env.context, CL_MEM_READ_WRITE, 4 * sizeof(cl_uint));
}

void Sweeper::reset() {
    const std::size_t bytes = g_.points() * sizeof(float);
    env_.queue.enqueueWriteBuffer(a_, CL_TRUE, 0, bytes, g_.start.data());
    // b starts NaN: a point a sweep forgets to write shows up.
    const std::vector<float> nan(g_.points(), std::nanf(""));
    env_.queue.enqueueWriteBuffer(b_, CL_TRUE, 0, bytes, nan.data());
}

Run Sweeper::check(Run r, unsigned passes, const std::vector<float> &want) {
    r.result.resize(g_.points());
    env_.queue.enqueueReadBuffer(passes % 2 ? b_ : a_, CL_TRUE, 0, g_.points() * sizeof(float),
                                 r.result.data());
    for (std::size_t k = 0; k < want.size(); ++k)
        // Bit for bit: the same float operations in the same order (NaN never equals).
        if (!(r.result[k] == want[k]) && r.wrong++ == 0) {
            r.first = k;
            r.got = r.result[k];
            r.want = want[k];
        }
    return r;
}

static cl::NDRange rounded(std::size_t I, std::size_t J, Block b) {
    return cl::NDRange((I + b.x - 1) / b.x * b.x, (J + b.y - 1) / b.y * b.y);
}

Run Sweeper::relaunch(cl::Kernel &k, Block b, unsigned sweeps, bool tiled,
                      const std::vector<float> &want, unsigned rows, unsigned cols) {
    return median_run(trials_, [&] { return relaunch_once(k, b, sweeps, tiled, want, rows, cols); });
}

Run Sweeper::relaunch_once(cl::Kernel &k, Block b, unsigned sweeps, bool tiled,
                           const std::vector<float> &want, unsigned rows, unsigned cols) {
    reset();
    k.setArg(0, cl_uint(g_.I));
    k.setArg(1, cl_uint(g_.J));
    if (tiled) k.setArg(4, cl::Local((b.x + 2) * (b.y + 2) * sizeof(float)));
    if (rows) k.setArg(4, cl_uint(rows));
    const cl::NDRange global = rounded((g_.I + cols - 1) / cols, rows ? (g_.J + rows - 1) / rows : g_.J, b),
                      local(b.x, b.y);
    cl::Event first, last;
    for (unsigned s = 0; s < sweeps; ++s) {
        k.setArg(2, s & 1 ? b_ : a_);
        k.setArg(3, s & 1 ? a_ : b_);
        cl::Event ev;
        env_.queue.enqueueNDRangeKernel(k, cl::NullRange, global, local, nullptr, &ev);
        if (s == 0) first = ev;
        last = ev;
    }
    env_.queue.finish();
    Run r;
    r.groups = global[0] / b.x * (global[1] / b.y);
    if (sweeps)
        r.ms = double(last.getProfilingInfo<CL_PROFILING_COMMAND_END>() -
                      first.getProfilingInfo<CL_PROFILING_COMMAND_START>()) * 1e-6;
    return check(r, sweeps, want);
}

Run Sweeper::temporal(cl::Kernel &k, Block b, unsigned sweeps, unsigned fuse, unsigned band,
                      const std::vector<float> &want) {
    return median_run(trials_, [&] { return temporal_once(k, b, sweeps, fuse, band, want); });
}

Run Sweeper::temporal_once(cl::Kernel &k, Block b, unsigned sweeps, unsigned fuse, unsigned band,
                           const std::vector<float> &want) {
    reset();
    const std::size_t n = b.x * b.y;
    k.setArg(0, cl_uint(g_.I));
    k.setArg(1, cl_uint(g_.J));
    k.setArg(5, cl_uint(band));
    const cl::NDRange local(b.x, b.y);
    cl::Event first, last;
    Run r;
    unsigned passes = 0;
    for (unsigned done = 0; done < sweeps; ++passes) {
        const unsigned f = std::min(fuse, sweeps - done);  // the last pass: the sweeps left
        const std::size_t across = (g_.I + n - 2 * f - 1) / (n - 2 * f), down = (g_.J + band - 1) / band;
        k.setArg(2, passes & 1 ? b_ : a_);
        k.setArg(3, passes & 1 ? a_ : b_);
        k.setArg(4, cl_uint(f));
        k.setArg(6, cl::Local(2 * f * n * sizeof(float)));  // two lines a sweep
        cl::Event ev;
        env_.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(across * b.x, down * b.y), local,
                                        nullptr, &ev);
        if (done == 0) first = ev, r.groups = across * down;
        last = ev;
        done += f;
    }
    env_.queue.finish();
    if (sweeps)
        r.ms = double(last.getProfilingInfo<CL_PROFILING_COMMAND_END>() -
                      first.getProfilingInfo<CL_PROFILING_COMMAND_START>()) * 1e-6;
    return check(r, passes, want);
}

// The discovering launch's poll stays open until every thread expected came, or for this many
// polls with no newcomer (tens of milliseconds on a CPU core): it waits out the threads' waking.
constexpr unsigned kWarmGrace = 1u << 23;

Run Sweeper::persistent(cl::Kernel &k, Block b, unsigned sweeps, std::size_t launch,
                        unsigned budget, unsigned grace, const std::vector<float> &want,
                        unsigned expect) {
    // A give-up counts only when a second try gives up too (why: synclab/second_try.hpp).
    return median_run(trials_, [&] {
        return synclab::tried_twice(
            [&] { return persistent_once(k, b, sweeps, launch, budget, grace, want, expect); },
            [&](const Run &first) { return first.text(g_.I); });
    });
}

Run Sweeper::persistent_once(cl::Kernel &k, Block b, unsigned sweeps, std::size_t launch,
                             unsigned budget, unsigned grace, const std::vector<float> &want,
                             unsigned expect) {
    reset();
    if (flag_groups_ < launch) {
        flags_ = cl::Buffer(env_.context, CL_MEM_READ_WRITE, 2 * launch * sizeof(cl_uint));
        seen_ = cl::Buffer(env_.context, CL_MEM_READ_WRITE, launch * sizeof(cl_uint));
        flag_groups_ = launch;
    }
    // ctl: gave up, the groups expected (the poll closes once that many came), unused, the poll.
    // Members, not locals: a non-blocking write left in the queue reads them after this returns.
    ctl_start_ = {0, expect, 0, 0};
    zeros_.assign(2 * launch, 0);
    auto start = [&](cl_bool blocking) {
        env_.queue.enqueueWriteBuffer(ctl_, blocking, 0, sizeof ctl_start_, ctl_start_.data());
        env_.queue.enqueueWriteBuffer(flags_, blocking, 0, 2 * launch * sizeof(cl_uint), zeros_.data());
        env_.queue.enqueueWriteBuffer(seen_, blocking, 0, launch * sizeof(cl_uint), zeros_.data());
    };
    const cl_uint args[] = {cl_uint(g_.I), cl_uint(g_.J)};
    k.setArg(0, args[0]);
    k.setArg(1, args[1]);
    k.setArg(2, a_);
    k.setArg(3, b_);
    k.setArg(5, cl_uint(budget));
    k.setArg(7, ctl_);
    k.setArg(8, flags_);
    k.setArg(9, seen_);
    const cl::NDRange global(launch * b.x, b.y), local(b.x, b.y);
    if (expect) {  // a launch that only discovers, and ours right after it: every thread awake
        start(CL_FALSE);
        k.setArg(4, cl_uint(0));
        k.setArg(6, cl_uint(kWarmGrace));
        env_.queue.enqueueNDRangeKernel(k, cl::NullRange, global, local);
    }
    start(expect ? CL_FALSE : CL_TRUE);
    k.setArg(4, cl_uint(sweeps));
    k.setArg(6, cl_uint(grace));
    cl::Event ev;
    env_.queue.enqueueNDRangeKernel(k, cl::NullRange, global, local, nullptr, &ev);
    Run r;
    r.ms = event_ms(ev);
    r.groups = launch;
    cl_uint ctl[4];
    env_.queue.enqueueReadBuffer(ctl_, CL_TRUE, 0, sizeof ctl, ctl);
    r.parts = ctl[3] & ~0x80000000u;
    if (ctl[0]) {
        r.gave_up = true;
        std::vector<cl_uint> seen(launch);
        env_.queue.enqueueReadBuffer(seen_, CL_TRUE, 0, launch * sizeof(cl_uint), seen.data());
        const cl_uint most = *std::max_element(seen.begin(), seen.end());
        for (cl_uint s : seen) r.arrived += s == most && most > 0;
        r.stuck = most ? most - 1 : 0;
        return r;
    }
    return check(r, sweeps, want);
}

double time_host_sweeps(const Grid &g, unsigned sweeps, unsigned threads, int trials) {
    std::vector<double> ms;
    host_sweeps(g, 1, threads);  // warm-up: threads, pages
    for (int t = 0; t < std::max(1, trials); ++t) {
        const auto t0 = std::chrono::steady_clock::now();
        host_sweeps(g, sweeps, threads);
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    return median(ms);
}

}  // namespace synclab
