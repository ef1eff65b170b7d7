// Lab 08: the reduction ladder (after Harris). Eight kernels sum the same n floats; each is
// checked against the host and timed over all its passes, and its GB/s is set against a read
// probe's on the same device (the bandwidth this memory-bound job could reach; a copy probe's
// beside it), against CLBlast's sum and, on a CPU, the host's OpenMP and std::threads sums.
#include <cstdio>
#include <cstdlib>

#include "bounds.hpp"
#include "declaration.hpp"
#include "ladder.hpp"
#include "steps.hpp"
#include "synclab/lab.hpp"
#include "synclab/subgroup_part.hpp"
#include "synclab/workgroup.hpp"

using namespace synclab;

static int run(Lab &lab) {
    const DeviceInfo &dev = lab.env.info;
    Ladder l = shape_of(lab);

    // One build for every rung: with the sub-group finish where the device has sub-groups, else
    // the unrolled tree, the sub-group finish compiled against stand-ins as well (never run).
    const std::string define = "-D WG=" + std::to_string(l.wg);
    const SubgroupPart part = build_subgroup_part(lab, define, l.wg);
    cl::Program program = part.runs ? part.program : lab.program(define);
    std::vector<std::pair<std::string, cl::Kernel>> kernels;
    for (const auto &variant : lab.selected_variants()) {
        cl::Kernel k(program, lab.kernel_name(variant).c_str());
        check_launch(k, dev.device, l.wg, l.wg * sizeof(float));
        kernels.emplace_back(variant, k);
    }

    char what[200];
    std::snprintf(what, sizeof what, "%u CUs, n = %zu floats (%.1f MiB%s), --wg %zu, median of %d "
                  "trial(s) after 1 warm-up", dev.compute_units, l.n,
                  reduce_bytes(l.n) / 1048576.0, lab.opt.n ? "" : ", this device's default; -n to change",
                  l.wg, l.trials);
    lab.banner(what);
    std::printf("v5-v8 finish: %s; v6-v8: up to %zu groups, %s layout\n",
                part.runs ? ("sub_group_reduce_add (" + part.support.how + ")").c_str()
                          : ("unrolled tree with barriers; the sub-group finish is " +
                             part.not_checked()).c_str(),
                l.groups, l.blocked ? "blocked" : "interleaved");

    const std::vector<float> hx = inputs(l.n, l.exact, lab.rng);
    l.load(lab.env, hx);
    // Every rung measured between the bounds' two measurements, then the table.
    Bounds bounds = measure_bounds(lab.env, l, hx);
    const auto rungs = measure_rungs(lab, kernels, l);
    bounds.after_rungs(lab.env, l, hx);
    std::pair<std::string, double> best{"", 0};
    const std::vector<Verdict> verdicts = print_rungs(lab, rungs, l, bounds, part, &best);
    bounds.print_host_rows(lab.decl.variant_width(4), lab.decl.kernel_width(22));
    if (dev.is_oclgrind()) std::printf("best: not judged on Oclgrind (an interpreter: its times mean nothing)\n");
    else if (!best.first.empty()) std::printf("%s\n", bounds.best(best.first, best.second).c_str());
    const int code = lab.exit_code(verdicts);
    return bounds.host_all_right() ? code : std::max(code, 1);  // a wrong peer is a wrong result
}

int main(int argc, char **argv) { return run_lab(argc, argv, kLab, run); }
