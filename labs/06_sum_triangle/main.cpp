// Lab 06: sumTriangle. Work-item j adds column j of an N x N matrix above the diagonal into V[j]
// in GLOBAL memory; after a barrier the last work-item adds V[0..N-1] into V[N]. Without a
// barrier, or with one whose fence covers only local memory, it may read V[i] before it is seen.
#include <algorithm>
#include <cstdio>

#include "declaration.hpp"
#include "synclab/lab.hpp"
#include "triangle.hpp"

using namespace synclab;

// Each selected variant's kernels, built and checked against this device; a variant whose one
// group cannot hold N work-items here is skipped (*skipped), or refused when named alone.
static std::vector<Run> build_runs(Lab &lab, std::size_t n, std::size_t wg,
                                   std::vector<std::string> *skipped) {
    const DeviceInfo &dev = lab.env.info;
    cl::Program program = lab.program();
    std::vector<Run> runs;
    for (const auto &v : lab.selected_variants()) {
        Run r{v, shape_of(v), {}};
        for (const auto &name : lab.decl.find(v)->kernels)
            r.kernels.emplace_back(program, name.c_str());
        if (r.shape == Shape::kGroups) {
            check_launch(r.kernels[0], dev.device, wg, 0);
            check_launch(r.kernels[1], dev.device, wg, wg * sizeof(float));
        } else if (n > dev.max_wg) {  // one group cannot hold N work-items here
            if (lab.opt.variant != "all")
                throw Unsupported("-n " + std::to_string(n) + " is more than one work-group holds "
                                 "on this device (" + std::to_string(dev.max_wg) + "): use -n " +
                                 std::to_string(dev.max_wg) + " or less, or --variant groups");
            skipped->push_back(v);
            continue;
        } else {
            check_launch(r.kernels[0], dev.device, n, 0);
        }
        runs.push_back(std::move(r));
    }
    return runs;
}

// One CSV row: run r's trials at N = nn.
static void csv_row(Csv &csv, bool sweep, const Run &r, std::size_t nn, std::size_t wg, int trials,
                    const Tally &y) {
    const bool g = r.shape == Shape::kGroups;
    csv("sweep", sweep)("variant", r.variant)("n", nn)("wg", g ? wg : nn)(
        "groups", g ? (nn + wg - 1) / wg : 1)("trials", trials)("wrong_trials", y.wrong_trials)(
        "wrong_rate", double(y.wrong_trials) / trials)("median_ms", median(y.ms));
    csv.row();
}

// --sweep: each one-group variant's wrong-answer rate at every N of triangle_sizes, a row per N.
// A wrong triangle (the solution must never fail) makes its verdict wrong.
static void sweep_sizes(Lab &lab, std::vector<Run> &runs, std::size_t n, std::size_t wg,
                        int trials, Csv &csv, std::vector<Verdict> &verdicts) {
    const DeviceInfo &dev = lab.env.info;
    std::printf("wrong-answer rate over %d launches per N:\n%6s", trials, "N");
    std::vector<Run *> swept;
    // Up to -n when given, else the device's largest work-group: a kernel's own report may
    // be less than it runs (the H100's says 256 and runs 1024), so the launch decides, as
    // for a single run.
    const std::size_t most = std::min({dev.max_wg, kMaxN, lab.opt.n ? n : kMaxN});
    for (auto &r : runs)
        if (r.variant == "nobarrier" || r.variant == "localfence" || r.variant == "triangle")
            swept.push_back(&r), std::printf(" %11s", r.variant.c_str());
    std::printf("\n");
    for (std::size_t nn : triangle_sizes(most)) {
        SumTriangle ts(lab.env, nn, lab.rng);
        std::printf("%6zu", nn);
        for (Run *r : swept) {
            check_launch(r->kernels[0], dev.device, nn, 0);
            const Tally y = trials_of(ts, *r, nn, trials);
            std::printf(" %10.0f%%", 100.0 * y.wrong_trials / trials);
            csv_row(csv, true, *r, nn, wg, trials, y);
            if (y.wrong_trials && r->variant == "triangle")
                for (auto &v : verdicts)
                    if (v.variant == "triangle" && v.ok)
                        v = {v.variant, false, "sweep, N = " + std::to_string(nn) + ": " + y.first};
        }
        std::printf("\n");
    }
}

static int run(Lab &lab) {
    const Options &o = lab.opt;
    const DeviceInfo &dev = lab.env.info;
    lab.reject_groups("give N with -n; the groups variant takes its group size from --wg");
    const std::size_t n = o.n ? o.n : 11;
    if (n > kMaxN)
        throw UsageError("-n " + std::to_string(n) + " is too large: the triangle's sum must stay "
                         "below 2^24 to be exact in float: use -n " + std::to_string(kMaxN) +
                         " or less");
    const std::size_t wg = o.wg ? o.wg : std::min<std::size_t>(8, dev.max_wg);
    const bool sweep = o.extra.count("sweep") > 0;
    const int trials = lab.trials_or(sweep ? 20 : 10);

    // Build and check every kernel before printing anything: a bad -n or --wg is one line.
    std::vector<std::string> skipped;
    std::vector<Run> runs = build_runs(lab, n, wg, &skipped);

    SumTriangle t(lab.env, n, lab.rng);
    lab.banner("N = " + std::to_string(n) + ", " + std::to_string(trials) + " trial(s); groups: " +
               std::to_string((n + wg - 1) / wg) + " x " + std::to_string(wg));
    for (const auto &v : skipped) {
        const std::string why = "N = " + std::to_string(n) + " is more than one work-group holds "
                                "here (" + std::to_string(dev.max_wg) + "): see --variant groups";
        std::printf("%-*s skipped: %s\n", lab.decl.variant_width(11), v.c_str(), why.c_str());
        lab.skipped(v, why);
    }
    Csv csv = lab.csv({"sweep", "variant", "n", "wg", "groups", "trials", "wrong_trials",
                       "wrong_rate", "median_ms"});

    const int vw = lab.decl.variant_width(11), kw = lab.decl.kernel_width(22);
    std::printf("%-*s %-*s %10s  %s\n", vw, "variant", kw, "kernel", "median ms", "result");
    std::vector<Verdict> verdicts;
    for (auto &r : runs) {
        const Tally y = trials_of(t, r, wg, trials);
        const bool ok = y.wrong_trials == 0;
        const std::string says = ok ? std::to_string(trials) + "/" + std::to_string(trials) +
                                          " trials verified"
                                    : std::to_string(y.wrong_trials) + "/" +
                                          std::to_string(trials) + " trials wrong: " + y.first;
        std::printf("%-*s %-*s %10.4f  %s%s\n", vw, r.variant.c_str(), kw,
                    lab.kernel_name(r.variant).c_str(), median(y.ms), ok ? "" : "WRONG, ",
                    says.c_str());
        verdicts.push_back({r.variant, ok, says});
        csv_row(csv, false, r, n, wg, trials, y);
    }

    // The lecture's claim: a missing barrier may pass with one warp, not with many.
    if (sweep) sweep_sizes(lab, runs, n, wg, trials, csv, verdicts);
    return lab.exit_code(verdicts);
}

int main(int argc, char **argv) { return run_lab(argc, argv, kLab, run); }
