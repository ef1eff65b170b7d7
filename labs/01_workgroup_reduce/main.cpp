// Lab 01: the scalar product of two vectors, reduced in one work-group's local memory,
// without and with barriers (reduceNoSync, reduceWithSync).
#include <cstdio>

#include "declaration.hpp"
#include "synclab/dot.hpp"
#include "synclab/lab.hpp"
#include "synclab/workgroup.hpp"

using namespace synclab;

static int run(Lab &lab) {
    const Options &o = lab.opt;
    // One element per work-item: n is the work-group size, as in the lecture.
    const std::size_t wg = tree_work_group_size(o, lab.env.info.max_wg);
    const std::size_t groups = lab.groups_or(1);  // the lecture's single group by default
    const int trials = lab.trials_or(1);
    check_dot_groups(lab.env.info, groups, wg);

    // Build and check every kernel before printing anything: a bad --wg is one line.
    cl::Program program = lab.program();
    std::vector<std::pair<std::string, cl::Kernel>> kernels;
    for (const auto &variant : lab.selected_variants()) {
        cl::Kernel kernel(program, lab.kernel_name(variant).c_str());
        check_launch(kernel, lab.env.info.device, wg, wg * sizeof(float));
        kernels.emplace_back(variant, kernel);
    }

    lab.banner(std::to_string(groups) + " group(s) x " + std::to_string(wg) + " work-items, " +
               std::to_string(trials) + " trial(s)");
    Csv csv = lab.csv({"variant", "groups", "wg", "trials", "wrong_trials", "wrong_groups",
                       "median_kernel_ms"});

    std::vector<Verdict> verdicts;
    for (auto &[variant, kernel] : kernels) {
        const DotTrials r = run_dot_trials(lab.env, kernel, lab.poison(), groups, wg, trials,
                                           lab.rng, o.exact);
        verdicts.push_back({variant, r.clean(), r.summary(lab.kernel_name(variant))});
        std::printf("%-*s device %12.4f  host %12.4f  %s\n", lab.decl.kernel_width(15),
                    lab.kernel_name(variant).c_str(),
                    r.first_device, r.first_host,
                    r.clean() ? "verified"
                    : lab.is_demonstration(variant) ? "WRONG (expected: it has no barriers)"
                                                    : "WRONG");
        if (trials > 1 || groups > 1)
            std::printf("%-*s %d/%d trials wrong, %zu/%zu group partials wrong\n",
                        lab.decl.kernel_width(15), "",
                        r.wrong_trials, r.trials, r.wrong_groups, r.groups);
        csv("variant", variant)("groups", groups)("wg", wg)("trials", r.trials)(
            "wrong_trials", r.wrong_trials)("wrong_groups", r.wrong_groups)(
            "median_kernel_ms", median(r.kernel_ms));
        csv.row();
    }
    return lab.exit_code(verdicts);
}

int main(int argc, char **argv) { return run_lab(argc, argv, kLab, run); }
