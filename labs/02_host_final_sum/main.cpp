// Lab 02: a scalar product far larger than one work-group. Every group writes the partial sum
// of its slice to a global array and the host adds the partials: the lecture's simpler, less
// efficient way round the missing global barrier. Prints where the time goes.
#include <cstdio>

#include "synclab/lab.hpp"
#include "synclab/partials.hpp"
#include "synclab/workgroup.hpp"

using namespace synclab;

static const LabSpec spec{
    "lab02_host_final_sum",
    "Scalar product of any length: dotPartials leaves one partial sum per work-group and the "
    "host adds them.",
    "02_host_final_sum.cl",
    {"host"},
    {},
    nullptr,
};

static double share(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0; }

static void print_details(const DotProblem &p, const HostFinalSum &r) {
    if (r.wrong_trials)
        std::printf("dotPartials: %zu/%zu partial sums WRONG over %d trial(s); first: group %zu "
                    "(elements %zu..%zu) device %.4f host %.4f\n",
                    r.wrong_partials, p.groups * r.trials, r.trials, r.first_wrong,
                    r.first_wrong * p.wg, std::min(p.n, (r.first_wrong + 1) * p.wg) - 1,
                    r.first_wrong_got, r.first_wrong_want);
    else
        std::printf("dotPartials: all %zu partial sums verified\n", p.groups);
    std::printf("total: partials added on the host %.4f  host reference %.4f  %s\n\n", r.value,
                p.total.value, r.ok() ? "verified" : "WRONG");

    const double total = r.total_ms();
    std::printf("%-10s %11s %7s\n", "", "ms", "share");
    std::printf("%-10s %11.4f %6.1f%%   write a and b %.4f, read %zu partial(s) %.4f\n",
                "transfer", r.transfer_ms(), share(r.transfer_ms(), total), r.upload_ms, p.groups,
                r.read_ms);
    std::printf("%-10s %11.4f %6.1f%%   dotPartials, %zu group(s)\n", "kernel", r.kernel_ms,
                share(r.kernel_ms, total), p.groups);
    std::printf("%-10s %11.4f %6.1f%%   adding %zu partial(s)\n", "host sum", r.host_ms,
                share(r.host_ms, total), p.groups);
    std::printf("%-10s %11.4f\n", "total", total);
}

static int run(Lab &lab) {
    const Options &o = lab.opt;
    lab.reject_groups("the groups follow from -n and --wg");
    cl::Kernel kernel(lab.program(), "dotPartials");
    lab.selected_variants();  // rejects an unknown --variant
    const std::size_t wg = pow2_work_group_size(o, lab.env.info.max_wg);
    check_launch(kernel, lab.env.info.device, wg, wg * sizeof(float));
    const std::size_t n = o.n ? o.n : std::size_t(1) << 24;
    check_dot_size(lab.env.info, n, wg);

    std::printf("%s on %s / %s: n = %zu in %zu group(s) of %zu, %d trial(s), seed %llu\n",
                spec.name.c_str(), lab.env.info.platform.c_str(), lab.env.info.name.c_str(), n,
                groups_for(n, wg), wg, o.trials, static_cast<unsigned long long>(lab.seed));

    // One small untimed run first: a device may finish compiling at its first launch.
    DotProblem warm = make_dot_problem(lab.env, wg, wg, lab.rng);
    host_final_sum(lab.env, kernel, lab.poison(), warm, 1);

    std::ostream *csv = lab.csv();
    const auto sizes = csv ? sweep_sizes(n) : std::vector<std::size_t>{n};
    if (csv) {
        *csv << "n,groups,wg,trials,transfer_ms,kernel_ms,host_sum_ms,total_ms,transfer_share,"
                "kernel_share,host_sum_share,verified\n";
        std::printf("sweep to %s, median of %d trial(s) per n:\n%10s %8s %10s %9s %9s %9s  %s\n",
                    o.csv.c_str(), o.trials, "n", "groups", "total ms", "transfer", "kernel",
                    "host sum", "result");
    }
    bool all_ok = true;
    for (const std::size_t size : sizes) {
        DotProblem p = make_dot_problem(lab.env, size, wg, lab.rng);
        const HostFinalSum r = host_final_sum(lab.env, kernel, lab.poison(), p, o.trials);
        all_ok = all_ok && r.ok();
        const double t = r.total_ms();
        if (csv) {
            *csv << size << "," << p.groups << "," << wg << "," << r.trials << ","
                 << r.transfer_ms() << "," << r.kernel_ms << "," << r.host_ms << "," << t << ","
                 << share(r.transfer_ms(), t) << "," << share(r.kernel_ms, t) << ","
                 << share(r.host_ms, t) << "," << (r.ok() ? 1 : 0) << "\n";
            std::printf("%10zu %8zu %10.4f %8.1f%% %8.1f%% %8.1f%%  %s\n", size, p.groups, t,
                        share(r.transfer_ms(), t), share(r.kernel_ms, t), share(r.host_ms, t),
                        r.ok() ? "verified" : "WRONG");
        }
        if (size == n) {
            if (csv) std::printf("\nat n = %zu:\n", n);
            print_details(p, r);
        }
    }
    return lab.exit_code({{"host", all_ok}});
}

int main(int argc, char **argv) { return run_lab(argc, argv, spec, run); }
