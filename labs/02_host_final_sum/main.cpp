// Lab 02: a scalar product far larger than one work-group. Every group writes the partial sum
// of its slice to a global array and the host adds the partials: the lecture's simpler, less
// efficient way round the missing global barrier. Prints where the time goes.
#include <cstdio>

#include "declaration.hpp"
#include "synclab/lab.hpp"
#include "synclab/partials.hpp"
#include "synclab/workgroup.hpp"

using namespace synclab;

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
    cl::Kernel kernel(lab.program(), lab.kernel_name("host").c_str());
    lab.selected_variants();  // rejects an unknown --variant
    const std::size_t wg = pow2_work_group_size(o, lab.env.info.max_wg);
    check_launch(kernel, lab.env.info.device, wg, wg * sizeof(float));
    const std::size_t n = dot_size(lab.env.info, o.n);
    check_dot_size(lab.env.info, n, wg);

    const int trials = lab.trials_or(1);
    lab.banner("n = " + std::to_string(n) + " in " + std::to_string(groups_for(n, wg)) +
               " group(s) of " + std::to_string(wg) + ", " + std::to_string(trials) + " trial(s)");

    // One small untimed run first: a device may finish compiling at its first launch.
    DotProblem warm = make_dot_problem(lab.env, wg, wg, lab.rng, o.exact);
    host_final_sum(lab.env, kernel, lab.poison(), warm, 1);

    Csv csv = lab.csv({"n", "groups", "wg", "trials", "transfer_ms", "kernel_ms", "host_sum_ms",
                       "total_ms", "transfer_share", "kernel_share", "host_sum_share", "verified"});
    const auto sizes = csv ? sweep_sizes(n) : std::vector<std::size_t>{n};
    if (csv) {
        std::printf("sweep to %s, median of %d trial(s) per n:\n%10s %8s %10s %9s %9s %9s  %s\n",
                    o.csv.c_str(), trials, "n", "groups", "total ms", "transfer", "kernel",
                    "host sum", "result");
    }
    bool all_ok = true;
    std::string detail;
    for (const std::size_t size : sizes) {
        DotProblem p = make_dot_problem(lab.env, size, wg, lab.rng, o.exact);
        const HostFinalSum r = host_final_sum(lab.env, kernel, lab.poison(), p, trials);
        if (!r.ok() && all_ok)
            detail = "dotPartials at n = " + std::to_string(size) + ": " +
                     std::to_string(r.wrong_partials) + " partial sum(s) wrong over " +
                     std::to_string(r.trials) + " trial(s)" + (r.total_ok ? "" : ", total wrong");
        all_ok = all_ok && r.ok();
        const double t = r.total_ms();
        if (csv) {
            csv("n", size)("groups", p.groups)("wg", wg)("trials", r.trials)(
                "transfer_ms", r.transfer_ms())("kernel_ms", r.kernel_ms)("host_sum_ms", r.host_ms)(
                "total_ms", t)("transfer_share", share(r.transfer_ms(), t))(
                "kernel_share", share(r.kernel_ms, t))("host_sum_share", share(r.host_ms, t))(
                "verified", r.ok());
            csv.row();
            std::printf("%10zu %8zu %10.4f %8.1f%% %8.1f%% %8.1f%%  %s\n", size, p.groups, t,
                        share(r.transfer_ms(), t), share(r.kernel_ms, t), share(r.host_ms, t),
                        r.ok() ? "verified" : "WRONG");
        }
        if (size == n) {
            if (csv) std::printf("\nat n = %zu:\n", n);
            print_details(p, r);
        }
    }
    return lab.exit_code({{"host", all_ok, all_ok ? "dotPartials verified" : detail}});
}

int main(int argc, char **argv) { return run_lab(argc, argv, kLab, run); }
