#include "synclab/partials.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>

#include "synclab/errors.hpp"
#include "synclab/measure.hpp"
#include "synclab/timing.hpp"

namespace synclab {

static const float kNaN = std::numeric_limits<float>::quiet_NaN();

std::size_t groups_for(std::size_t n, std::size_t wg) { return n <= wg ? 1 : (n + wg - 1) / wg; }

std::size_t dot_size(const DeviceInfo &dev, std::size_t n_option) {
    if (n_option) return n_option;
    return std::size_t(1) << (dev.is_oclgrind() ? 12 : 24);
}

void check_dot_size(const DeviceInfo &dev, std::size_t n, std::size_t wg) {
    const std::size_t padded = groups_for(n, wg) * wg;
    if (padded > std::numeric_limits<std::uint32_t>::max())
        throw UsageError("-n " + std::to_string(n) + " is past the kernels' uint indices: use -n " +
                         std::to_string(std::numeric_limits<std::uint32_t>::max() - wg) +
                         " or less");
    const cl_ulong max_alloc = dev.device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
    if (padded * sizeof(float) > max_alloc)
        throw UsageError("-n " + std::to_string(n) + " needs " +
                         std::to_string(padded * sizeof(float) >> 20) + " MiB per vector but " +
                         dev.name + " allows " + std::to_string(max_alloc >> 20) +
                         " MiB per buffer: use -n " +
                         std::to_string(max_alloc / sizeof(float) / wg * wg) + " or less");
}

DotProblem make_dot_problem(Env &env, std::size_t n, std::size_t wg, std::mt19937_64 &rng,
                            bool exact) {
    DotProblem p;
    p.n = n;
    p.wg = wg;
    p.exact = exact;
    p.groups = groups_for(n, wg);
    const std::size_t padded = p.groups * wg;
    p.a = inputs(n, exact, rng);
    p.b = inputs(n, exact, rng);
    p.a.resize(padded, kNaN);
    p.b.resize(padded, kNaN);
    p.slice.resize(p.groups);
    for (std::size_t g = 0; g < p.groups; ++g) {
        const std::size_t first = g * wg;
        p.slice[g] = dot_ref(p.a, p.b, first, std::min(wg, n - first));
        p.total.value += p.slice[g].value;
        p.total.abs_sum += p.slice[g].abs_sum;
    }
    p.da = cl::Buffer(env.context, CL_MEM_READ_ONLY, padded * sizeof(float));
    p.db = cl::Buffer(env.context, CL_MEM_READ_ONLY, padded * sizeof(float));
    return p;
}

double upload(Env &env, DotProblem &p) {
    const std::size_t bytes = p.a.size() * sizeof(float);
    cl::Event wa, wb;
    env.queue.enqueueWriteBuffer(p.da, CL_FALSE, 0, bytes, p.a.data(), nullptr, &wa);
    env.queue.enqueueWriteBuffer(p.db, CL_FALSE, 0, bytes, p.b.data(), nullptr, &wb);
    return event_ms(wa) + event_ms(wb);
}


cl::Event launch_dot_partials(Env &env, cl::Kernel &kernel, LocalPoison &poison,
                              const DotProblem &p, const cl::Buffer &partial) {
    // Left-overs of an earlier launch must not pass for this one's results.
    fill_nan(env, partial, partial.getInfo<CL_MEM_SIZE>() / sizeof(float));
    poison.fill(env.queue, p.groups, p.wg, p.wg * sizeof(float));
    kernel.setArg(0, p.da);
    kernel.setArg(1, p.db);
    kernel.setArg(2, partial);
    kernel.setArg(3, cl::Local(p.wg * sizeof(float)));  // scratch: one float per work-item
    kernel.setArg(4, static_cast<cl_uint>(p.n));
    cl::Event ev;
    env.queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(p.groups * p.wg),
                                   cl::NDRange(p.wg), nullptr, &ev);
    return ev;
}

HostFinalSum host_final_sum(Env &env, cl::Kernel &kernel, LocalPoison &poison, DotProblem &p,
                            int trials) {
    HostFinalSum r;
    std::vector<double> up, run, read, host;
    cl::Buffer partial = nan_buffer(env, p.groups);
    std::vector<float> got(p.groups);
    for (int t = 0; t < trials; ++t) {
        up.push_back(upload(env, p));
        const cl::Event ev = launch_dot_partials(env, kernel, poison, p, partial);
        cl::Event rd;
        env.queue.enqueueReadBuffer(partial, CL_TRUE, 0, p.groups * sizeof(float), got.data(),
                                    nullptr, &rd);
        // The final sum, on the host: in double, which costs the host nothing extra.
        const auto t0 = std::chrono::steady_clock::now();
        double sum = 0;
        for (float x : got) sum += x;
        const auto t1 = std::chrono::steady_clock::now();
        run.push_back(event_ms(ev));
        read.push_back(event_ms(rd));
        host.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());

        ++r.trials;
        r.value = sum;
        const PartialCheck check = check_partials(got, p.slice, p.wg, p.exact);
        if (check.wrong) {
            if (!r.wrong_trials) {
                r.first_wrong = check.first_wrong;
                r.first_wrong_got = got[check.first_wrong];
                r.first_wrong_want = p.slice[check.first_wrong].value;
            }
            ++r.wrong_trials;
            r.wrong_partials += check.wrong;
        }
        const double tol = p.exact ? 0 : tolerance(p.n, p.total.abs_sum);
        r.total_ok = r.total_ok && within(sum, p.total.value, tol);
    }
    r.upload_ms = median(up);
    r.kernel_ms = median(run);
    r.read_ms = median(read);
    r.host_ms = median(host);
    return r;
}

std::vector<std::size_t> sweep_sizes(std::size_t n) {
    std::vector<std::size_t> out;
    for (std::size_t s = std::size_t(1) << 10; s < n; s *= 2) out.push_back(s);
    out.push_back(n);
    return out;
}

}  // namespace synclab
