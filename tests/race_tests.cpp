// Dynamic race detection on every real device: many trials, fresh inputs, local memory
// poisoned before each launch, every group's partial checked, enough groups to fill the device.
// Each racy kernel must be caught ("race") and its synchronised twin never flagged ("clean").
#include <doctest/doctest.h>

#include <algorithm>
#include <iostream>

#include "support.hpp"
#include "synclab/dot.hpp"
#include "synclab/kernels.hpp"

using namespace synclab;

namespace {

struct Probe {
    std::string folder, kernel;
};

// Work-groups of up to 256, two per compute unit (at least 8): on an H100, 1 group hid the
// race in 20/20 trials while 132 concurrent groups showed it in 20/20.
DotTrials probe(const DeviceInfo &dev, const Probe &p, int trials = 20) {
    Env env(dev);
    cl::Program prog = build_program(env.context, dev.device, "01_workgroup_reduce.cl", p.folder);
    cl::Kernel k(prog, p.kernel.c_str());
    const std::size_t kmax = k.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(dev.device);
    std::size_t wg = 1;
    while (wg * 2 <= std::min<std::size_t>(256, kmax)) wg *= 2;
    const std::size_t groups = dev.fill_groups();
    LocalPoison poison(env.context, dev.device);
    std::mt19937_64 rng(20261122);
    const DotTrials r = run_dot_trials(env, k, poison, groups, wg, trials, rng);
    std::cout << "[race] " << dev.platform << " / " << dev.name << ": " << p.kernel << " from "
              << p.folder.substr(p.folder.find_last_of('/') + 1) << ", " << groups << " x " << wg
              << ": " << r.wrong_trials << "/" << r.trials << " trials wrong, " << r.wrong_groups
              << "/" << r.groups << " partials wrong\n";
    return r;
}

}  // namespace

TEST_SUITE("race") {

TEST_CASE("the lecture's reduceNoSync is caught and reduceWithSync is clean (every device)") {
    for (const auto &dev : test::dynamic_devices()) {
        CAPTURE(dev.name);
        CHECK_FALSE(probe(dev, {test::source("kernels"), "reduceNoSync"}).clean());
        CHECK(probe(dev, {test::source("solutions"), "reduceWithSync"}).clean());
    }
}

TEST_CASE("a submission with no barriers is caught and a correct one in another style is clean") {
    for (const auto &dev : test::dynamic_devices()) {
        CAPTURE(dev.name);
        CHECK_FALSE(probe(dev, {test::fixture("no_barriers"), "reduceWithSync"}).clean());
        CHECK(probe(dev, {test::fixture("correct_while_loop"), "reduceWithSync"}).clean());
    }
}

TEST_CASE("the poison never makes a correct kernel fail on one group or many") {
    // The poison must not itself make a correct kernel fail: run the solution many times with
    // a poisoned launch between each, on one group and on many.
    for (const auto &dev : test::dynamic_devices()) {
        CAPTURE(dev.name);
        Env env(dev);
        cl::Program prog = build_program(env.context, dev.device, "01_workgroup_reduce.cl",
                                         test::source("solutions"));
        cl::Kernel k(prog, "reduceWithSync");
        LocalPoison poison(env.context, dev.device);
        std::mt19937_64 rng(7);
        for (std::size_t groups : {std::size_t(1), std::size_t(3), std::size_t(64)})
            CHECK(run_dot_trials(env, k, poison, groups, 64, 5, rng).clean());
    }
}

}  // TEST_SUITE
