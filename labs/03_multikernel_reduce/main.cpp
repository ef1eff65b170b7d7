// Lab 03: there is no global barrier, so the reduction becomes several kernel launches. The
// same reducePartials kernel runs again and again on the array of partial sums until one value
// is left; lab 02's host final sum runs beside it on the same inputs for comparison.
#include <cstdio>

#include "declaration.hpp"
#include "multikernel.hpp"
#include "synclab/workgroup.hpp"

using namespace synclab;

static int run(Lab &lab) {
    const Options &o = lab.opt;
    lab.reject_groups("the groups follow from -n and --wg");
    bool device = false, host = false;
    for (const auto &v : lab.selected_variants()) (v == "device" ? device : host) = true;
    cl::Program program = lab.program();
    cl::Kernel dot(program, "dotPartials"), reduce(program, "reducePartials");
    const int trials = lab.trials_or(1);
    // At least 2: a pass must shrink the array, or the launches never end.
    const std::size_t wg = pow2_work_group_size(o, lab.env.info.max_wg, 2);
    check_launch(dot, lab.env.info.device, wg, wg * sizeof(float));
    check_launch(reduce, lab.env.info.device, wg, wg * sizeof(float));
    const std::size_t n = dot_size(lab.env.info, o.n);
    check_dot_size(lab.env.info, n, wg);
    if (o.exact) check_exact_fits(n, kExactMost * kExactMost, "-n", n);

    lab.banner("n = " + std::to_string(n) + ", work-groups of " + std::to_string(wg) + ", " +
               std::to_string(trials) + " trial(s)");

    // A small untimed run first, both kernels: a device may finish compiling at its first launch.
    DotProblem warm = make_dot_problem(lab.env, 2 * wg + 1, wg, lab.rng, o.exact);
    measure(lab, dot, reduce, warm, 1, device, host);

    Csv csv = lab.csv({"n", "wg", "trials", "launches", "multikernel_ms", "host_final_sum_ms",
                       "ratio", "verified"});
    const auto sizes = csv ? sweep_sizes(n) : std::vector<std::size_t>{n};
    if (csv) {
        std::printf("sweep to %s, median of %d trial(s) per n (ms, upload left out):\n"
                    "%10s %8s %13s %15s %7s  %s\n",
                    o.csv.c_str(), trials, "n", "launches", "multi-kernel", "host final sum",
                    "ratio", "result");
    }
    bool device_ok = true, host_ok = true;
    std::string device_detail = "multi-kernel verified", host_detail = "host final sum verified";
    for (const std::size_t size : sizes) {
        DotProblem p = make_dot_problem(lab.env, size, wg, lab.rng, o.exact);
        const Row row = measure(lab, dot, reduce, p, trials, device, host);
        if (!row.device_ok && device_ok)
            device_detail = "multi-kernel at n = " + std::to_string(size) + ": " +
                            std::to_string(row.device.wrong_trials) + " trial(s) wrong" +
                            (row.device.first_wrong.empty() ? "" : "; " + row.device.first_wrong);
        if (!row.host_ok && host_ok)
            host_detail = "dotPartials (host final sum) at n = " + std::to_string(size) + ": " +
                          std::to_string(row.host.wrong_partials) + " partial sum(s) wrong";
        device_ok = device_ok && row.device_ok;
        host_ok = host_ok && row.host_ok;
        if (csv) {
            const double dm = device ? row.device.total_ms() : 0;
            const double hm = host ? row.host.reduce_ms() : 0;
            const double ratio = device && host && hm > 0 ? dm / hm : 0;
            const bool ok = row.device_ok && row.host_ok;
            csv("n", size)("wg", wg)("trials", trials)("launches", row.device.passes.size())(
                "multikernel_ms", dm)("host_final_sum_ms", hm)("ratio", ratio)("verified", ok);
            csv.row();
            std::printf("%10zu %8zu %13.4f %15.4f %6.2fx  %s\n", size, row.device.passes.size(),
                        dm, hm, ratio, ok ? "verified" : "WRONG");
        }
        if (size == n) {
            if (csv) std::printf("\nat n = %zu:\n", n);
            print_details(p, row, device, host);
        }
    }
    std::vector<Verdict> verdicts;
    if (device) verdicts.push_back({"device", device_ok, device_detail});
    if (host) verdicts.push_back({"host", host_ok, host_detail});
    return lab.exit_code(verdicts);
}

int main(int argc, char **argv) { return run_lab(argc, argv, kLab, run); }
