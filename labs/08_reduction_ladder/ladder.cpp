#include "ladder.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "synclab/measure.hpp"
#include "synclab/partials.hpp"
#include "synclab/reference.hpp"

namespace synclab {

const Rung &rung(const std::string &variant) {
    static const Rung kRungs[] = {{"v1", 1, false}, {"v2", 1, false}, {"v3", 1, false},
                                  {"v4", 2, false}, {"v5", 2, false}, {"v6", 0, false},
                                  {"v7", 0, true}};
    for (const Rung &r : kRungs)
        if (variant == r.variant) return r;
    throw std::logic_error("lab 08 has no rung " + variant);
}

std::vector<Pass> plan(const Rung &r, std::size_t n, std::size_t wg, std::size_t groups,
                       bool blocked) {
    std::vector<Pass> passes;
    std::size_t m = n;
    do {
        Pass p;
        p.m = m;
        if (r.per_item) {
            p.groups = groups_for(m, wg * r.per_item);
            p.serial = r.per_item;
        } else {
            const std::size_t units = r.float4 ? m / 4 : m;  // what one load brings in
            const std::size_t per = passes.empty() ? 1 : 32;
            p.groups = std::clamp<std::size_t>(groups_for(units, wg * per), 1, groups);
            const std::size_t items = p.groups * wg;
            const std::size_t each = (units + items - 1) / items;  // 0 when no whole float4
            p.spread = static_cast<cl_uint>(blocked ? each : 1);
            p.step = static_cast<cl_uint>(blocked ? 1 : items);
            p.span = static_cast<cl_uint>(blocked ? each : units);
            p.serial = r.float4 ? each / 2 + 8 : each;  // two float4 sums, lanes, tail
        }
        passes.push_back(p);
        m = p.groups;
    } while (m > 1);
    return passes;
}

void Ladder::load(Env &env, const std::vector<float> &hx) {
    want = abs_sum = 0;
    for (float v : hx) {
        want += v;
        abs_sum += std::fabs(v);
    }
    x = cl::Buffer(env.context, CL_MEM_READ_ONLY, n * sizeof(float));
    env.queue.enqueueWriteBuffer(x, CL_TRUE, 0, n * sizeof(float), hx.data());
    const std::size_t most_groups = std::max(groups_for(n, wg), groups);
    for (auto &b : part) b = cl::Buffer(env.context, CL_MEM_READ_WRITE, most_groups * sizeof(float));
}

// Every pass of one rung, the partial sums refilled with NaN first: a kernel that writes
// nothing leaves NaN.
static Outcome run_passes(Env &env, cl::Kernel &k, const Rung &r, const std::vector<Pass> &passes,
                          Ladder &l) {
    for (auto &b : l.part) fill_nan(env, b, passes[0].groups);
    std::vector<cl::Event> ev(passes.size());
    for (std::size_t i = 0; i < passes.size(); ++i) {
        const Pass &p = passes[i];
        k.setArg(0, i == 0 ? l.x : l.part[(i - 1) % 2]);
        k.setArg(1, l.part[i % 2]);
        k.setArg(2, static_cast<cl_uint>(p.m));
        cl_uint arg = 3;
        if (!r.per_item) {
            k.setArg(arg++, p.spread);
            k.setArg(arg++, p.step);
            k.setArg(arg++, p.span);
        }
        k.setArg(arg, cl::Local(l.wg * sizeof(float)));
        env.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(p.groups * l.wg),
                                       cl::NDRange(l.wg), nullptr, &ev[i]);
    }
    Outcome o;
    env.queue.enqueueReadBuffer(l.part[(passes.size() - 1) % 2], CL_TRUE, 0, sizeof(float),
                                &o.value);
    const auto start = ev.front().getProfilingInfo<CL_PROFILING_COMMAND_START>();
    const auto end = ev.back().getProfilingInfo<CL_PROFILING_COMMAND_END>();
    o.ms = static_cast<double>(end - start) * 1e-6;
    return o;
}

Measured measure_rung(Env &env, cl::Kernel &k, const Rung &r, Ladder &l) {
    Measured m;
    m.passes = plan(r, l.n, l.wg, l.groups, l.blocked);
    std::size_t serial = 0;
    for (const Pass &p : m.passes) serial += p.serial + 1;
    m.want = l.want;
    m.tol = tolerance(l.n, l.abs_sum, serial);
    // Once a run is wrong, no more launches: the rest would only cost time.
    m.ms = median_of_launches(l.trials, [&] {
        if (!m.ok) return 0.0;
        const Outcome out = run_passes(env, k, r, m.passes, l);
        if (!close(out.value, l.want, m.tol)) m.ok = false, m.bad = out;
        return out.ms;
    });
    return m;
}

std::string Measured::wrong() const {
    if (std::isnan(bad.value)) return "no result (NaN: y[group] never written; not written yet?)";
    char s[160];
    std::snprintf(s, sizeof s, "%.7g, want %.7g (off by %.3g, tolerance %.3g)", bad.value, want,
                  std::fabs(bad.value - want), tol);
    return s;
}

}  // namespace synclab
