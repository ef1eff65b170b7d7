// lab04_subgroup_finish: the lecture's lockstep finish is caught where the hardware does not
// run in lockstep (dynamically on CPU devices, statically by Oclgrind), and the finishes with
// barriers or a sub-group built-in are right wherever they run.
#include <doctest/doctest.h>

#include <algorithm>
#include <iostream>
#include <sstream>

#include "support.hpp"
#include "synclab/dot.hpp"
#include "synclab/kernels.hpp"
#include "synclab/subgroups.hpp"

using namespace synclab;
using test::run_lab;

namespace {

const std::string kLab = "lab04_subgroup_finish";

void check_usage_error(const std::vector<std::string> &args, const std::string &says) {
    test::check_usage_error(kLab, args, says);
}

std::vector<std::string> on(const DeviceInfo &dev, const std::string &folder,
                            std::vector<std::string> args) {
    args.insert(args.begin(), {"--device", dev.spec(), "--kernels", test::source(folder)});
    return args;
}

// Race probe: groups to fill the device, many trials, local memory poisoned before each.
DotTrials probe(const DeviceInfo &dev, const std::string &folder, const std::string &kernel,
                const std::string &options) {
    Env env(dev);
    cl::Program prog = build_program(env.context, dev.device, "04_subgroup_finish.cl",
                                     test::source(folder), options);
    cl::Kernel k(prog, kernel.c_str());
    const std::size_t kmax = k.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(dev.device);
    std::size_t wg = 1;
    while (wg * 2 <= std::min<std::size_t>(256, kmax)) wg *= 2;
    const std::size_t groups = dev.fill_groups();
    LocalPoison poison(env.context, dev.device);
    std::mt19937_64 rng(4004);
    const DotTrials r = run_dot_trials(env, k, poison, groups, wg, 20, rng);
    std::cout << "[race] " << dev.name << ": " << kernel << " (" << folder << ", " << options
              << "), " << groups << " x " << wg << ": " << r.wrong_trials << "/" << r.trials
              << " trials wrong, " << r.wrong_groups << "/" << r.groups << " partials wrong\n";
    return r;
}

bool has_race(const test::OclgrindRun &r, const std::string &kernel, int line) {
    for (const auto &f : r.findings)
        if (f.kind == "data-race" && f.kernel == kernel &&
            std::find(f.lines.begin(), f.lines.end(), line) != f.lines.end())
            return true;
    return false;
}

}  // namespace

TEST_SUITE("unit") {

// Every stand-in, called with its number of arguments, compiles where there are no sub-groups.
TEST_CASE("the sub-group stand-ins compile on every device without sub-groups") {
    std::string calls;
    std::istringstream options(subgroup_standin_options());
    int defined = 0;
    for (std::string opt; options >> opt; ++defined) {
        REQUIRE(opt.rfind("-D", 0) == 0);
        const std::string name = opt.substr(2, opt.find('(') - 2);
        const std::string params = opt.substr(opt.find('(') + 1, opt.find(')') - opt.find('(') - 1);
        const std::string args = params.empty() ? "" : params == "..." ? "CLK_LOCAL_MEM_FENCE"
                                 : params.find(',') != std::string::npos ? "v, 1u" : "v";
        const bool is_void = name == "sub_group_barrier";
        calls += is_void ? "    " + name + "(" + args + ");\n"
                 : name == "sub_group_ballot" ? "    y[1] += " + name + "(1).x;\n"
                                              : "    y[1] += " + name + "(" + args + ");\n";
    }
    CHECK(defined >= 30);
    const std::string source = "__kernel void k(__global float *y)\n{\n    float v = y[0];\n" +
                               calls + "}\n";
    for (auto dev : all_devices()) {
        if (subgroup_support(dev.device).builtins) continue;
        CAPTURE(dev.name);
        CAPTURE(source);
        Env env(dev);
        cl::Program p(env.context, source);
        int rc = CL_SUCCESS;
        try {
            p.build({dev.device}, subgroup_standin_options().c_str());
        } catch (const cl::Error &e) {
            rc = e.err();
        }
        CAPTURE(p.getBuildInfo<CL_PROGRAM_BUILD_LOG>(dev.device));
        CHECK(rc == CL_SUCCESS);
    }
}

}  // TEST_SUITE

TEST_SUITE("lab") {

TEST_CASE("lab04 solution passes and a CPU shows the lockstep demonstration wrong") {
    for (const auto &dev : test::dynamic_devices()) {
        CAPTURE(dev.name);
        const auto r = run_lab(kLab, on(dev, "solutions", {"--trials", "5"}));
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);  // the demonstration alone decides nothing
        CHECK(r.out.find("reduceBarrier   device") != std::string::npos);
        CHECK(r.out.find("verified") != std::string::npos);
        if (dev.is_cpu()) {
            CHECK(r.out.find("reduceLockstep  device") != std::string::npos);
            CHECK(r.out.find("WRONG (expected") != std::string::npos);
            CHECK(r.out.find("5/5 trials wrong") != std::string::npos);
        }
        CHECK(r.out.find("WRONG\n") == std::string::npos);  // no real variant failed
    }
}

TEST_CASE("lab04 lockstep alone exits 1 on a CPU and --simd 1 makes it right") {
    for (const auto &dev : test::dynamic_devices()) {
        if (!dev.is_cpu()) continue;  // a GPU may well run it in lockstep
        CAPTURE(dev.name);
        auto r = run_lab(kLab, on(dev, "solutions", {"--variant", "lockstep"}));
        CHECK(r.exit_code == 1);
        CHECK(r.out.find("WRONG") != std::string::npos);
        // Width 1: every level but the last has a barrier, and the last needs none.
        r = run_lab(kLab, on(dev, "solutions", {"--variant", "lockstep", "--simd", "1"}));
        CHECK(r.exit_code == 0);
        CHECK(r.out.find("verified") != std::string::npos);
    }
}

TEST_CASE("lab04 the starter's reduceBarrier fails on a CPU and the solution's passes") {
    for (const auto &dev : test::dynamic_devices()) {
        if (!dev.is_cpu()) continue;
        CAPTURE(dev.name);
        CHECK(run_lab(kLab, on(dev, "kernels", {"--variant", "barrier"})).exit_code == 1);
        CHECK(run_lab(kLab, on(dev, "solutions", {"--variant", "barrier"})).exit_code == 0);
    }
}

TEST_CASE("lab04 the subgroup variant runs where supported and is skipped with a reason elsewhere") {
    for (const auto &dev : test::dynamic_devices()) {
        CAPTURE(dev.name);
        const SubgroupSupport sg = subgroup_support(dev.device);
        if (sg.builtins) {
            auto r = run_lab(kLab, on(dev, "solutions", {"--variant", "subgroup"}));
            CAPTURE(r.out);
            CAPTURE(r.err);
            CHECK(r.exit_code == 0);
            CHECK(r.out.find("reduceSubgroup  device") != std::string::npos);
            CHECK(r.out.find("verified") != std::string::npos);
            CHECK(r.out.find("sub-groups: " + sg.how) != std::string::npos);
            r = run_lab(kLab, on(dev, "kernels", {"--variant", "subgroup"}));
            CHECK(r.exit_code == 1);  // the starter's unfinished finish
        } else {
            const auto r = run_lab(kLab, on(dev, "solutions", {"--variant", "subgroup"}));
            CAPTURE(r.err);
            CHECK(r.exit_code == 2);
            CHECK(test::line_count(r.err) == 1);
            CHECK(r.err.find("cl_khr_subgroups") != std::string::npos);
            const auto all = run_lab(kLab, on(dev, "solutions", {"--trials", "2"}));
            CHECK(all.exit_code == 0);
            CHECK(all.out.find("sub-groups: none") != std::string::npos);
            CHECK(all.out.find("reduceSubgroup  skipped: not checked on this device (" +
                               sg.why_not + "): compiles") != std::string::npos);
        }
    }
}

TEST_CASE("lab04 below the group size a device's sub-groups need, the subgroup variant is skipped with the reason") {
    CHECK(pocl_major_version("OpenCL 3.0 PoCL 5.0+debian  Linux, None+Asserts, RELOC, LLVM 16") == 5);
    CHECK(pocl_major_version("OpenCL 3.0 PoCL 3.1+debian  Linux, None+Asserts, RELOC, LLVM 15") == 3);
    CHECK(pocl_major_version("OpenCL 3.0 pocl 12.0-pre main") == 12);
    CHECK(pocl_major_version("OpenCL 3.0 CUDA 12.4.131") == 0);
    CHECK(pocl_major_version("OpenCL 1.2 (Build 0) Oclgrind 21.10") == 0);
    for (const auto &dev : test::dynamic_devices()) {
        CAPTURE(dev.name);
        const SubgroupSupport sg = subgroup_support(dev.device);
        if (!sg.builtins) continue;
        const std::vector<std::string> small = {"--wg", "2", "--simd", "2", "--trials", "2"};
        auto one = small;
        one.insert(one.end(), {"--variant", "subgroup"});
        const auto r = run_lab(kLab, on(dev, "solutions", one));
        CAPTURE(r.out);
        CAPTURE(r.err);
        if (sg.smallest_wg <= 2) {
            CHECK(r.exit_code == 0);
            continue;
        }
        CHECK(r.exit_code == 2);
        CHECK(test::line_count(r.err) == 1);
        CHECK(r.err.find(sg.smallest_wg_why) != std::string::npos);
        std::size_t least = 1;
        while (least < sg.smallest_wg) least *= 2;
        CHECK(r.err.find("use --wg " + std::to_string(least) + " or more") != std::string::npos);
        const auto all = run_lab(kLab, on(dev, "solutions", small));
        CHECK(all.exit_code == 0);
        CHECK(all.out.find("reduceSubgroup  skipped: not checked at --wg 2 (" + sg.smallest_wg_why) !=
              std::string::npos);
    }
}

TEST_CASE("lab04 a syntax error in the sub-group variant alone is a compile error at its line everywhere") {
    const std::string dir = test::fixture("subgroup_syntax_error_04");
    const int line = test::line_of(dir + "/04_subgroup_finish.cl", "wrong: no semicolon");
    REQUIRE(line > 0);
    std::vector<std::string> devices;
    for (const auto &d : test::dynamic_devices()) devices.push_back(d.spec());
    if (test::have_oclgrind()) devices.push_back("oclgrind");
    for (const auto &dev : devices)
        for (const std::string variant : {"barrier", "all"}) {  // graded alone, it still fails
            CAPTURE(dev);
            CAPTURE(variant);
            test::check_usage_error(kLab, {"--device", dev, "--kernels", dir, "--variant", variant,
                                           "--wg", "64"},
                                    "04_subgroup_finish.cl:" + std::to_string(line) + ":");
        }
}

TEST_CASE("lab04 prints each variant's median time and the ratio to reduceBarrier") {
    // --simd 1 makes the lockstep kernel right everywhere, so its time is compared too.
    const auto r = run_lab(kLab, {"--kernels", test::source("solutions"), "--simd", "1",
                                  "--trials", "3", "--csv", "-"});
    CAPTURE(r.out);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("median ") != std::string::npos);
    CHECK(r.out.find("time vs reduceBarrier (right answers only):  reduceLockstep ") !=
          std::string::npos);
    CHECK(r.out.find("variant,groups,wg,simd,trials,wrong_trials") != std::string::npos);
    CHECK(r.out.find("\nlockstep,") != std::string::npos);
    CHECK(r.out.find("\nbarrier,") != std::string::npos);
}

TEST_CASE("lab04 a finish that hard-codes 32 is right at --simd 32 only") {
    for (const auto &d : test::dynamic_devices()) {
        CAPTURE(d.name);
        auto args = [&](const std::string &folder, const std::string &simd) {
            return std::vector<std::string>{"--device", d.spec(), "--kernels", folder, "--variant",
                                            "barrier", "--exact", "--groups", "4", "--trials", "2",
                                            "--wg", "128", "--simd", simd};
        };
        const std::string bad = test::fixture("hardcoded_simd_04");
        CHECK(run_lab(kLab, args(bad, "32")).exit_code == 0);
        for (const std::string simd : {"8", "64"}) {
            CAPTURE(simd);
            const auto r = run_lab(kLab, args(bad, simd));
            CAPTURE(r.out);
            CHECK(r.exit_code == 1);
            CHECK(r.out.find("2/2 trials wrong, 8/8 group partials wrong") != std::string::npos);
            CHECK(run_lab(kLab, args(test::source("solutions"), simd)).exit_code == 0);
        }
    }
}

TEST_CASE("lab04 bad input exits 2 with one line naming the cause and the fix") {
    check_usage_error({"--simd", "3"}, "--simd 32");
    check_usage_error({"--simd", "512", "--wg", "256"}, "no larger than the work-group");
    check_usage_error({"--wg", "100"}, "not a power of two");
    check_usage_error({"-n", "128", "--wg", "256"}, "differ");
    check_usage_error({"--variant", "warp"}, "unknown --variant 'warp'");
    check_usage_error({"--kernels", "/no/such/folder"}, "04_subgroup_finish.cl");
}

}  // TEST_SUITE

TEST_SUITE("race") {

TEST_CASE("lab04 lockstep is caught on CPU devices and barrier and subgroup finishes are clean") {
    for (const auto &dev : test::dynamic_devices()) {
        CAPTURE(dev.name);
        const std::string w32 = "-D SUBGROUP_SIZE=32";
        const DotTrials lockstep = probe(dev, "solutions", "reduceLockstep", w32);
        if (dev.is_cpu())
            CHECK_FALSE(lockstep.clean());
        else  // hardware behaviour, reported and not asserted
            MESSAGE(dev.name << " ran the lockstep finish right in "
                             << lockstep.trials - lockstep.wrong_trials << "/" << lockstep.trials
                             << " trials");
        // The same kernel with no level left unsynchronised is right everywhere.
        CHECK(probe(dev, "solutions", "reduceLockstep", "-D SUBGROUP_SIZE=1").clean());
        CHECK(probe(dev, "solutions", "reduceBarrier", w32).clean());
        const SubgroupSupport sg = subgroup_support(dev.device);
        if (!sg.builtins) continue;
        const std::string with = w32 + " -D WITH_SUBGROUPS " + sg.build_options;
        CHECK(probe(dev, "solutions", "reduceSubgroup", with).clean());
        CHECK_FALSE(probe(dev, "kernels", "reduceSubgroup", with).clean());
    }
}

}  // TEST_SUITE

TEST_SUITE("oclgrind") {

TEST_CASE("lab04 Oclgrind reports the lockstep finish as a race and the barrier finish clean") {
    if (!test::have_oclgrind()) return;
    const std::string folder = test::source("solutions");
    const int add = test::line_of(folder + "/04_subgroup_finish.cl",
                                  "lanes[id] += lanes[id + stride];");
    REQUIRE(add > 0);
    auto run = [&](std::vector<std::string> args) {
        args.insert(args.end(), {"--kernels", folder, "--wg", "64"});
        auto r = test::run_on_oclgrind(kLab, args);
        CAPTURE(r.process.err);
        REQUIRE_FALSE(r.process.timed_out);
        REQUIRE(r.process.exit_code != 2);  // it built and ran
        for (const auto &f : r.findings) MESSAGE(f.friendly());
        return r;
    };
    CHECK(has_race(run({"--variant", "lockstep"}), "reduceLockstep", add));
    CHECK(run({"--variant", "lockstep", "--simd", "1"}).findings.empty());
    const auto clean = run({"--variant", "barrier"});
    CHECK(clean.findings.empty());
    CHECK(clean.process.exit_code == 0);
}

}  // TEST_SUITE
