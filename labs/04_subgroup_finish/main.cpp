// Lab 04: the lecture's "reduction with a subgroup": barriers while stride > subgroup, then
// a finish with no barriers that trusts lockstep (reduceLockstep), against the barriers put
// back (reduceBarrier) and a sub-group built-in (reduceSubgroup), each checked and timed.
#include <cstdio>

#include "declaration.hpp"
#include "synclab/dot.hpp"
#include "synclab/lab.hpp"
#include "synclab/subgroup_part.hpp"
#include "synclab/workgroup.hpp"

using namespace synclab;

using Kernels = std::vector<std::pair<std::string, cl::Kernel>>;

// Each selected variant's kernel, checked against this device. reduceSubgroup where this device
// or --wg cannot run it is left out with *skipped saying why, or refused when named alone.
static Kernels build_kernels(Lab &lab, const cl::Program &program, const SubgroupPart &part,
                             std::size_t wg, std::string *skipped) {
    const DeviceInfo &dev = lab.env.info;
    const SubgroupSupport &sg = part.support;
    Kernels kernels;
    for (const auto &variant : lab.selected_variants()) {
        if (variant == "subgroup" && !part.runs) {
            *skipped = part.not_checked();
            std::size_t least = 1;  // the smallest power of two it runs at
            while (least < sg.smallest_wg) least *= 2;
            if (lab.opt.variant == "subgroup" && sg.builtins)
                throw Unsupported("--variant subgroup cannot run at --wg " + std::to_string(wg) +
                                  " on " + dev.name + ": " + sg.smallest_wg_why + " (it compiles); "
                                  "use --wg " + std::to_string(least) + " or more");
            if (lab.opt.variant == "subgroup")
                throw Unsupported("--variant subgroup cannot run on " + dev.name + ": " +
                                 sg.why_not + " (it compiles); pick a device whose "
                                 "--list-devices row says subgroups yes (POCL 4 or later)");
            continue;
        }
        cl::Program from = variant == "subgroup" ? part.program : program;
        cl::Kernel kernel(from, lab.kernel_name(variant).c_str());
        check_launch(kernel, dev.device, wg, wg * sizeof(float));
        kernels.emplace_back(variant, kernel);
    }
    return kernels;
}

// What dropping the last barriers buys, among variants that gave the right answer.
static void print_speedups(const Lab &lab, const std::vector<std::pair<std::string, double>> &times) {
    double base = 0;
    for (const auto &[variant, ms] : times)
        if (variant == "barrier") base = ms;
    if (base > 0 && times.size() > 1) {
        std::printf("time vs reduceBarrier (right answers only):");
        for (const auto &[variant, ms] : times)
            if (variant != "barrier") std::printf("  %s %.2fx", lab.kernel_name(variant).c_str(), ms / base);
        std::printf("\n");
    }
}

static int run(Lab &lab) {
    const Options &o = lab.opt;
    const DeviceInfo &dev = lab.env.info;
    const std::size_t wg = tree_work_group_size(o, dev.max_wg);
    const std::size_t width = o.extra["simd"].as<std::size_t>();
    if (!is_power_of_two(width) || width > wg)
        throw UsageError("--simd " + std::to_string(width) + " must be a power of two no " +
                         "larger than the work-group (" + std::to_string(wg) + "): use " +
                         "--simd 32 (NVIDIA's warp) or 64 (AMD's wavefront)");
    // Enough groups at once to fill the device, and enough trials that a race cannot hide;
    // Oclgrind interprets every access, and one launch shows it every race.
    const std::size_t groups = lab.groups_or(dev.is_oclgrind() ? 1 : 0);
    const int trials = lab.trials_or(10);
    check_dot_groups(dev, groups, wg);

    const std::string define = "-D SUBGROUP_SIZE=" + std::to_string(width);
    std::string skipped;  // why reduceSubgroup does not run here
    cl::Program program = lab.program(define);
    // The sub-group kernel lives in a build of its own, compiled on every device (against
    // stand-ins where there are no sub-groups) whatever --variant says: a mistake in it is a
    // compile error everywhere.
    const SubgroupPart part = build_subgroup_part(lab, define, wg);
    const SubgroupSupport &sg = part.support;
    Kernels kernels = build_kernels(lab, program, part, wg, &skipped);

    lab.banner(std::to_string(groups) + " group(s) x " + std::to_string(wg) + " work-items, " +
               std::to_string(trials) + " trial(s)");
    std::printf("sub-groups: %s", sg.builtins ? sg.how.c_str() : "none");
    for (auto &[variant, kernel] : kernels)
        if (variant == "subgroup")
            if (const std::size_t size = kernel_subgroup_size(kernel, dev.device, wg))
                std::printf(", %zu work-items wide at --wg %zu", size, wg);
    if (sg.hw_width) std::printf("; %s says %zu", sg.hw_width_from.c_str(), sg.hw_width);
    std::printf("; the lockstep finish trusts %zu (--simd)\n", width);

    Csv csv = lab.csv({"variant", "groups", "wg", "simd", "trials", "wrong_trials", "wrong_groups",
                       "median_kernel_ms"});
    std::vector<Verdict> verdicts;
    std::vector<std::pair<std::string, double>> times;  // right answers only
    for (auto &[variant, kernel] : kernels) {
        const DotTrials r = run_dot_trials(lab.env, kernel, lab.poison(), groups, wg, trials,
                                           lab.rng, o.exact);
        const double ms = median(r.kernel_ms);
        verdicts.push_back({variant, r.clean(), r.summary(lab.kernel_name(variant))});
        if (r.clean()) times.emplace_back(variant, ms);
        std::printf("%-*s device %12.4f  host %12.4f  %s\n", lab.decl.kernel_width(15),
                    lab.kernel_name(variant).c_str(), r.first_device,
                    r.first_host,
                    r.clean() ? "verified"
                    : lab.is_demonstration(variant)
                        ? "WRONG (expected where the work-items do not run in lockstep)"
                        : "WRONG");
        std::printf("%-*s %d/%d trials wrong, %zu/%zu group partials wrong, median %.4f ms\n",
                    lab.decl.kernel_width(15), "", r.wrong_trials, r.trials, r.wrong_groups, r.groups, ms);
        csv("variant", variant)("groups", groups)("wg", wg)("simd", width)("trials", r.trials)(
            "wrong_trials", r.wrong_trials)("wrong_groups", r.wrong_groups)("median_kernel_ms", ms);
        csv.row();
    }
    if (!skipped.empty()) {
        std::printf("%-*s skipped: %s\n", lab.decl.kernel_width(15), "reduceSubgroup",
                    skipped.c_str());
        lab.skipped("subgroup", skipped);
    }

    print_speedups(lab, times);
    return lab.exit_code(verdicts);
}

int main(int argc, char **argv) { return run_lab(argc, argv, kLab, run); }
