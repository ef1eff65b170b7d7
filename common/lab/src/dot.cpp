#include "synclab/dot.hpp"

#include <algorithm>
#include <string>

#include "synclab/errors.hpp"
#include "synclab/measure.hpp"
#include "synclab/timing.hpp"

namespace synclab {

void check_dot_groups(const DeviceInfo &dev, std::size_t groups, std::size_t wg) {
    require_fits(dev, "--groups", groups, wg, sizeof(float));
}

std::string DotTrials::summary(const std::string &kernel) const {
    if (clean()) return kernel + ": " + std::to_string(trials) + " trial(s) verified";
    return kernel + ": " + std::to_string(wrong_trials) + "/" + std::to_string(trials) +
           " trials wrong, " + std::to_string(wrong_groups) + "/" + std::to_string(groups) +
           " group partials wrong";
}

DotTrials run_dot_trials(Env &env, cl::Kernel &kernel, LocalPoison &poison, std::size_t groups,
                         std::size_t wg, int trials, std::mt19937_64 &rng, bool exact) {
    const std::size_t n = groups * wg;
    cl::Buffer a(env.context, CL_MEM_READ_ONLY, n * sizeof(float));
    cl::Buffer b(env.context, CL_MEM_READ_ONLY, n * sizeof(float));
    cl::Buffer dot(env.context, CL_MEM_WRITE_ONLY, groups * sizeof(float));
    kernel.setArg(0, a);
    kernel.setArg(1, b);
    kernel.setArg(2, dot);
    kernel.setArg(3, cl::Local(wg * sizeof(float)));  // scratch: one float per work-item

    DotTrials r;
    r.groups = groups * trials;
    std::vector<float> partial(groups);
    std::vector<Sum> want(groups);
    for (int t = 0; t < trials; ++t) {
        const auto ha = inputs(n, exact, rng), hb = inputs(n, exact, rng);
        env.queue.enqueueWriteBuffer(a, CL_FALSE, 0, n * sizeof(float), ha.data());
        env.queue.enqueueWriteBuffer(b, CL_FALSE, 0, n * sizeof(float), hb.data());
        // A group must not find the previous launch's sums still in its local memory.
        poison.fill(env.queue, groups, wg, wg * sizeof(float));
        std::fill(partial.begin(), partial.end(), NAN);
        env.queue.enqueueWriteBuffer(dot, CL_FALSE, 0, groups * sizeof(float), partial.data());
        cl::Event ev;
        env.queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(n), cl::NDRange(wg),
                                       nullptr, &ev);
        env.queue.enqueueReadBuffer(dot, CL_TRUE, 0, groups * sizeof(float), partial.data());
        for (std::size_t g = 0; g < groups; ++g) want[g] = dot_ref(ha, hb, g * wg, wg);
        const PartialCheck check = check_partials(partial, want, wg, exact);
        ++r.trials;
        if (check.wrong) ++r.wrong_trials;
        r.wrong_groups += check.wrong;
        r.kernel_ms.push_back(event_ms(ev));
        if (t == 0) {
            r.first_device = partial[0];
            r.first_host = want[0].value;
        }
    }
    return r;
}

}  // namespace synclab
