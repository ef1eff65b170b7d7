// Lab 01: the scalar product of two vectors, reduced in one work-group's local memory,
// without and with barriers (reduceNoSync, reduceWithSync).
#include <cstdio>

#include "synclab/lab.hpp"
#include "synclab/workgroup.hpp"

using namespace synclab;

static const LabSpec spec{
    "lab01_workgroup_reduce",
    "Scalar product reduced in local memory: reduceNoSync (no barriers) vs reduceWithSync.",
    "01_workgroup_reduce.cl",
    {"sync"},
    {"nosync"},
    nullptr,
};

static const char *kernel_name(const std::string &variant) {
    return variant == "nosync" ? "reduceNoSync" : "reduceWithSync";
}

static int run(Lab &lab) {
    const Options &o = lab.opt;
    // One element per work-item: n is the work-group size, as in the lecture.
    const std::size_t wg = tree_work_group_size(o, lab.env.info.max_wg);

    const std::size_t groups = lab.groups_or(1);  // the lecture's single group by default
    check_dot_groups(lab.env.info, groups, wg);

    // Build and check every kernel before printing anything: a bad --wg is one line.
    cl::Program program = lab.program();
    std::vector<std::pair<std::string, cl::Kernel>> kernels;
    for (const auto &variant : lab.selected_variants()) {
        cl::Kernel kernel(program, kernel_name(variant));
        check_launch(kernel, lab.env.info.device, wg, wg * sizeof(float));
        kernels.emplace_back(variant, kernel);
    }

    std::printf("%s on %s / %s: %zu group(s) x %zu work-items, %d trial(s), seed %llu\n",
                spec.name.c_str(), lab.env.info.platform.c_str(), lab.env.info.name.c_str(),
                groups, wg, o.trials, static_cast<unsigned long long>(lab.seed));
    std::ostream *csv = lab.csv();
    if (csv) *csv << "variant,groups,wg,trials,wrong_trials,wrong_groups,median_kernel_ms\n";

    std::vector<std::pair<std::string, bool>> verdicts;
    for (auto &[variant, kernel] : kernels) {
        const DotTrials r = run_dot_trials(lab.env, kernel, lab.poison(), groups, wg, o.trials,
                                           lab.rng);
        verdicts.emplace_back(variant, r.clean());
        std::printf("%-15s device %12.4f  host %12.4f  %s\n", kernel_name(variant),
                    r.first_device, r.first_host,
                    r.clean() ? "verified"
                    : lab.is_demonstration(variant) ? "WRONG (expected: it has no barriers)"
                                                    : "WRONG");
        if (o.trials > 1 || groups > 1)
            std::printf("%-15s %d/%d trials wrong, %zu/%zu group partials wrong\n", "",
                        r.wrong_trials, r.trials, r.wrong_groups, r.groups);
        if (csv)
            *csv << variant << "," << groups << "," << wg << "," << r.trials << ","
                 << r.wrong_trials << "," << r.wrong_groups << "," << median(r.kernel_ms) << "\n";
    }
    return lab.exit_code(verdicts);
}

int main(int argc, char **argv) { return run_lab(argc, argv, spec, run); }
