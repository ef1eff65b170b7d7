#include "multikernel.hpp"

#include <cmath>
#include <cstdio>

namespace synclab {

double MultiKernel::kernels_ms() const {
    double t = 0;
    for (const auto &p : passes) t += median(p.ms);
    return t;
}

// --exact: every group's sum in every pass, against the host's, exactly. Pass 1's groups add
// their slices of a.b; each later group adds its slice of the previous pass's sums (the host's,
// so that only the first wrong pass is blamed). Returns the first wrong one, or "".
static std::string check_every_group(Env &env, const DotProblem &p, const std::vector<cl::Buffer> &outs,
                                     const std::vector<std::pair<std::size_t, std::size_t>> &shape) {
    std::vector<double> want;
    for (const Sum &s : p.slice) want.push_back(s.value);
    for (std::size_t k = 0; k < outs.size(); ++k) {
        const auto [count, groups] = shape[k];
        if (k > 0) {  // group g of this pass adds want[g*wg .. min(count, (g+1)*wg))
            std::vector<double> next(groups, 0.0);
            for (std::size_t i = 0; i < count; ++i) next[i / p.wg] += want[i];
            want = next;
        }
        std::vector<float> got(groups);
        env.queue.enqueueReadBuffer(outs[k], CL_TRUE, 0, groups * sizeof(float), got.data());
        for (std::size_t g = 0; g < groups; ++g) {
            if (got[g] == want[g]) continue;
            char s[160];
            std::snprintf(s, sizeof s, "pass %zu (%s) group %zu: %.9g, want %.9g (exact)", k + 1,
                          k ? "reducePartials" : "dotPartials", g, got[g], want[g]);
            return s;
        }
    }
    return "";
}

// One trial: pass 1 leaves p.groups partials, then reducePartials until one value is left.
static void reduce_on_device(Lab &lab, cl::Kernel &dot, cl::Kernel &reduce, const DotProblem &p,
                             MultiKernel &r) {
    Env &env = lab.env;
    const std::size_t wg = p.wg;
    std::size_t count = p.n, groups = p.groups;
    // One buffer per pass, padded with NaN to whole groups: a missing tail guard shows.
    cl::Buffer out = nan_buffer(env, groups * wg);
    std::vector<cl::Buffer> outs{out};
    std::vector<cl::Event> events{launch_dot_partials(env, dot, lab.poison(), p, out)};
    std::vector<std::pair<std::size_t, std::size_t>> shape{{count, groups}};
    // Each launch ends before the next begins (in-order queue): that is the global barrier.
    while (groups > 1) {
        count = groups;
        groups = groups_for(count, wg);
        cl::Buffer in = out;
        out = nan_buffer(env, groups * wg);
        outs.push_back(out);
        lab.poison().fill(env.queue, groups, wg, wg * sizeof(float));
        reduce.setArg(0, in);
        reduce.setArg(1, out);
        reduce.setArg(2, cl::Local(wg * sizeof(float)));
        reduce.setArg(3, static_cast<cl_uint>(count));
        events.emplace_back();
        env.queue.enqueueNDRangeKernel(reduce, cl::NullRange, cl::NDRange(groups * wg),
                                       cl::NDRange(wg), nullptr, &events.back());
        shape.emplace_back(count, groups);
    }
    cl::Event read;
    env.queue.enqueueReadBuffer(out, CL_TRUE, 0, sizeof(float), &r.value, nullptr, &read);

    if (r.passes.empty())
        for (const auto &[in, g] : shape) r.passes.push_back({in, g, {}});
    for (std::size_t k = 0; k < events.size(); ++k) r.passes[k].ms.push_back(event_ms(events[k]));
    r.read_ms.push_back(event_ms(read));
    // Every pass adds log2(wg) levels of float sums on top of the first.
    const std::size_t levels = static_cast<std::size_t>(std::log2(static_cast<double>(wg)));
    const double tol = p.exact ? 0 : tolerance(p.n, p.total.abs_sum, levels);
    const std::string wrong = p.exact ? check_every_group(env, p, outs, shape) : "";
    if (!within(r.value, p.total.value, tol) || !wrong.empty()) {
        ++r.wrong_trials;
        if (r.first_wrong.empty()) r.first_wrong = wrong;
    }
}

Row measure(Lab &lab, cl::Kernel &dot, cl::Kernel &reduce, DotProblem &p, int trials, bool device,
            bool host) {
    Row row;
    if (host) {
        row.host = host_final_sum(lab.env, dot, lab.poison(), p, trials);
        row.host_ok = row.host.ok();
    } else {
        upload(lab.env, p);
    }
    if (device) {
        for (int t = 0; t < trials; ++t) reduce_on_device(lab, dot, reduce, p, row.device);
        row.device_ok = row.device.wrong_trials == 0;
    }
    return row;
}

void print_details(const DotProblem &p, const Row &row, bool device, bool host) {
    if (device) {
        const MultiKernel &d = row.device;
        std::printf("%-5s %12s %9s %11s\n", "pass", "elements in", "groups", "kernel ms");
        for (std::size_t k = 0; k < d.passes.size(); ++k)
            std::printf("%-5zu %12zu %9zu %11.4f   %s\n", k + 1, d.passes[k].in, d.passes[k].groups,
                        median(d.passes[k].ms), k ? "reducePartials" : "dotPartials");
        std::printf("read the 1 result: %.4f ms\n", median(d.read_ms));
        std::printf("multi-kernel: %.4f ms over %zu launch(es); result %.4f  host reference %.4f  "
                    "%s\n",
                    d.total_ms(), d.passes.size(), d.value, p.total.value,
                    row.device_ok ? "verified" : "WRONG");
        if (!row.device_ok)
            std::printf("multi-kernel: %d/%zu trial(s) WRONG%s%s\n", d.wrong_trials,
                        d.passes.front().ms.size(), d.first_wrong.empty() ? "" : "; first: ",
                        d.first_wrong.c_str());
    }
    if (host) {
        const HostFinalSum &h = row.host;
        std::printf("host final sum (lab 02): %.4f ms = dotPartials %.4f + read %zu partial(s) "
                    "%.4f + host sum %.4f; result %.4f  %s\n",
                    h.reduce_ms(), h.kernel_ms, p.groups, h.read_ms, h.host_ms, h.value,
                    row.host_ok ? "verified" : "WRONG");
        if (!row.host_ok && h.wrong_trials)
            std::printf("host final sum: %zu partial sum(s) WRONG; first: group %zu device %.4f "
                        "host %.4f\n",
                        h.wrong_partials, h.first_wrong, h.first_wrong_got, h.first_wrong_want);
    }
    if (device && host) {
        std::printf("multi-kernel / host final sum: %.2fx the time (both leave out the upload of "
                    "a and b, %.4f ms)\n",
                    row.device.total_ms() / row.host.reduce_ms(), row.host.upload_ms);
        // Pass 1 is the same kernel on both paths: what differs is what comes after it.
        const MultiKernel &d = row.device;
        std::printf("after pass 1: multi-kernel %.4f ms (%zu more launch(es), read 1 value) vs "
                    "host final sum %.4f ms (read %zu partial(s), add them)\n",
                    d.total_ms() - median(d.passes.front().ms), d.passes.size() - 1,
                    row.host.read_ms + row.host.host_ms, p.groups);
    }
}

}  // namespace synclab
