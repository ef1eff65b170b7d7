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
                                  {"v7", 0, true},  {"v8", 0, true, true}};
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
    } while (m > 1 && !r.single_pass);
    return passes;
}

std::vector<double> group_sums(const Rung &r, const Pass &p, std::size_t wg,
                               const std::vector<double> &in) {
    std::vector<double> out(p.groups, 0.0);
    const std::size_t m = p.m;
    if (r.per_item) {  // group g: in[g * wg * per_item, (g + 1) * wg * per_item)
        for (std::size_t i = 0; i < m; ++i) out[i / (wg * r.per_item)] += in[i];
        return out;
    }
    // Grid-stride: work-item gid adds unit gid*spread + k*step while below gid*spread + span;
    // a unit is one value, or for v7 the float4 of values 4u..4u+3, work-item 0 adding the rest.
    const std::size_t units = r.float4 ? m / 4 : m, width = r.float4 ? 4 : 1;
    for (std::size_t gid = 0; gid < p.groups * wg; ++gid) {
        const std::size_t first = gid * p.spread, end = std::min(units, first + p.span);
        for (std::size_t u = first; u < end; u += p.step)
            for (std::size_t j = 0; j < width; ++j) out[gid / wg] += in[u * width + j];
    }
    for (std::size_t i = units * width; i < m; ++i) out[0] += in[i];
    return out;
}

void Ladder::load(Env &env, const std::vector<float> &hx) {
    want = abs_sum = 0;
    for (float v : hx) {
        want += v;
        abs_sum += std::fabs(v);
    }
    if (exact) host.assign(hx.begin(), hx.end());
    x = cl::Buffer(env.context, CL_MEM_READ_ONLY, n * sizeof(float));
    env.queue.enqueueWriteBuffer(x, CL_TRUE, 0, n * sizeof(float), hx.data());
}

// With exact: every pass's group sums against group_sums() of the host's previous pass (so only
// the first wrong pass is blamed); "" when all match.
static std::string check_every_group(Env &env, const Rung &r, const std::vector<Pass> &passes,
                                     const std::vector<cl::Buffer> &out, const Ladder &l) {
    std::vector<double> want = l.host;
    for (std::size_t i = 0; i < passes.size(); ++i) {
        want = group_sums(r, passes[i], l.wg, want);  // v8: its partials, y[0..groups)
        std::vector<float> got(passes[i].groups);
        env.queue.enqueueReadBuffer(out[i], CL_TRUE, 0, got.size() * sizeof(float), got.data());
        for (std::size_t g = 0; g < got.size(); ++g) {
            if (got[g] == want[g]) continue;
            char s[160];
            std::snprintf(s, sizeof s, "pass %zu group %zu: %.9g, want %.9g (exact)", i + 1, g,
                          got[g], want[g]);
            return s;
        }
    }
    return "";
}

// Floats a pass writes: one per group, and v8's total after them.
static std::size_t out_floats(const Rung &r, const Pass &p) {
    return p.groups + (r.single_pass ? 1 : 0);
}

// Every pass of one rung, each into its own buffer of exactly its groups' sums, refilled with
// NaN first: a kernel that writes nothing leaves NaN, and one that reads past a pass's input
// is out of bounds.
static Outcome run_passes(Env &env, cl::Kernel &k, const Rung &r, const std::vector<Pass> &passes,
                          const std::vector<cl::Buffer> &out, Ladder &l) {
    for (std::size_t i = 0; i < passes.size(); ++i)
        fill_nan(env, out[i], out_floats(r, passes[i]));
    if (r.single_pass) env.queue.enqueueFillBuffer(l.tickets, cl_uint(0), 0, sizeof(cl_uint));
    std::vector<cl::Event> ev(passes.size());
    for (std::size_t i = 0; i < passes.size(); ++i) {
        const Pass &p = passes[i];
        k.setArg(0, i == 0 ? l.x : out[i - 1]);
        k.setArg(1, out[i]);
        k.setArg(2, static_cast<cl_uint>(p.m));
        cl_uint arg = 3;
        if (!r.per_item) {
            k.setArg(arg++, p.spread);
            k.setArg(arg++, p.step);
            k.setArg(arg++, p.span);
        }
        k.setArg(arg++, cl::Local(l.wg * sizeof(float)));
        if (r.single_pass) k.setArg(arg, l.tickets);
        env.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(p.groups * l.wg),
                                       cl::NDRange(l.wg), nullptr, &ev[i]);
    }
    Outcome o;
    const std::size_t total_at = r.single_pass ? passes.back().groups : 0;  // v8: y[groups]
    env.queue.enqueueReadBuffer(out.back(), CL_TRUE, total_at * sizeof(float), sizeof(float),
                                &o.value);
    const auto start = ev.front().getProfilingInfo<CL_PROFILING_COMMAND_START>();
    const auto end = ev.back().getProfilingInfo<CL_PROFILING_COMMAND_END>();
    o.ms = static_cast<double>(end - start) * 1e-6;
    if (l.exact) o.wrong_group = check_every_group(env, r, passes, out, l);
    return o;
}

Measured measure_rung(Env &env, cl::Kernel &k, const Rung &r, Ladder &l) {
    Measured m;
    m.passes = plan(r, l.n, l.wg, l.groups, l.blocked);
    std::size_t serial = 0;
    for (const Pass &p : m.passes) serial += p.serial + 1;
    if (r.single_pass) serial += groups_for(m.passes[0].groups, l.wg) + 1;  // the last group's adds
    m.want = l.want;
    m.tol = l.exact ? 0 : tolerance(l.n, l.abs_sum, serial);
    std::vector<cl::Buffer> out;
    for (const Pass &p : m.passes)
        out.emplace_back(env.context, CL_MEM_READ_WRITE, out_floats(r, p) * sizeof(float));
    if (r.single_pass && !l.tickets())
        l.tickets = cl::Buffer(env.context, CL_MEM_READ_WRITE, sizeof(cl_uint));
    // Once a run is wrong, no more launches: the rest would only cost time.
    m.ms = median_of_launches(l.trials, [&] {
        if (!m.ok) return 0.0;
        const Outcome o = run_passes(env, k, r, m.passes, out, l);
        if (!within(o.value, l.want, m.tol) || !o.wrong_group.empty()) m.ok = false, m.bad = o;
        return o.ms;
    });
    return m;
}

std::string Measured::wrong() const {
    if (!bad.wrong_group.empty() && !std::isnan(bad.value) && within(bad.value, want, tol))
        return "total right, but " + bad.wrong_group;
    if (std::isnan(bad.value)) return "no result (NaN: y[group] never written; not written yet?)";
    char s[160];
    std::snprintf(s, sizeof s, "%.9g, want %.9g (off by %.3g, tolerance %.3g)", bad.value, want,
                  std::fabs(bad.value - want), tol);
    return bad.wrong_group.empty() ? s : std::string(s) + "; first wrong: " + bad.wrong_group;
}

}  // namespace synclab
