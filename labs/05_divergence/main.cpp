// Lab 05: divergence. A SIMT machine runs the work-items of a warp (32 on NVIDIA) in lock-step;
// when they branch differently, the warp runs every branch taken, one after another. Each divergent
// kernel is timed against a uniform twin that does the same work with its branches chosen per warp.
#include <cstdio>
#include <string>

#include "declaration.hpp"
#include "divergence.hpp"
#include "settings.hpp"
#include "synclab/lab.hpp"

using namespace synclab;

namespace {

// A variant's pair, divergent kernel first (declaration.hpp).
struct Pair {
    std::string variant;
    Kind kind;
    std::string divergent, uniform;
    cl::Kernel kd, ku;
};

// Each selected variant's pair, built and checked before anything is printed: a bad --wg is one
// line.
std::vector<Pair> build_pairs(Lab &lab, const cl::Program &program, std::size_t wg) {
    std::vector<Pair> pairs;
    for (const auto &v : lab.selected_variants()) {
        const std::vector<std::string> &names = lab.decl.find(v)->kernels;
        Pair pr{v, kind_of(v), names[0], names[1], cl::Kernel(program, names[0].c_str()),
                cl::Kernel(program, names[1].c_str())};
        check_launch(pr.kd, lab.env.info.device, wg, 0);
        check_launch(pr.ku, lab.env.info.device, wg, 0);
        pairs.push_back(pr);
    }
    return pairs;
}

// The table and the CSV: pairs timed against each other, n work-items in groups of wg.
struct Table {
    Divergence &bench;
    Csv &csv;
    std::size_t n, wg;

    // One CSV row: a divergent run d against the uniform run u of kernel `base`, under theory th.
    void csv_row(const std::string &variant, int k, const Params &pp, const Run &u, const Run &d,
                 const Theory &th, const std::string &base) {
        csv("variant", variant)("k", k)("n", n)("wg", wg)("iters", pp.iters)("simd", pp.simd)(
            "uniform_ms", u.ms)("divergent_ms", d.ms)("slowdown", u.ms > 0 ? d.ms / u.ms : 0)(
            "theory", th.high)("theory_low", th.low)("model", th.model)("baseline", base)(
            "verified", !u.wrong && !d.wrong);
        csv.row();
    }

    // Times a pair; prints its two rows when `rows`, else one sweep line.
    Verdict measure(Pair &pr, const Params &pp, const std::string &csv_variant, bool rows) {
        const Run u = bench.run(pr.ku, pr.kind, true, pp), d = bench.run(pr.kd, pr.kind, false, pp);
        const Theory th = theory(pr.kind, pp);
        if (rows) {
            print_row(pr.uniform, branch_text(pr.kind, true, pp), u.ms, "-", "-", "-", "-",
                      verdict_text(u, n));
            print_row(pr.divergent, branch_text(pr.kind, false, pp), d.ms, pr.uniform,
                      ratio_text(u, d), th.text(), th.model, verdict_text(d, n));
        } else {
            std::printf("  k = %2d  uniform %9.3f ms  divergent %9.3f ms  %8s  theory %s  %s\n",
                        pp.k, u.ms, d.ms, ratio_text(u, d).c_str(), th.text().c_str(),
                        verdict_text(u.wrong ? u : d, n).c_str());
        }
        const bool ok = !u.wrong && !d.wrong;
        csv_row(csv_variant, pr.kind == kKWay ? pp.k : 2, pp, u, d, th, pr.uniform);
        if (ok) return Verdict{pr.variant, true, pr.divergent + "/" + pr.uniform + " verified"};
        return Verdict{pr.variant, false, (u.wrong ? pr.uniform : pr.divergent) + ": " +
                                              wrong_detail(u.wrong ? u : d, n)};
    }

    // The lecture's 32x: oneExpensive against evenOddUniform, the same turns on average with
    // every lane busy. A wrong evenOddUniform is evenodd's verdict; here it only hides the ratio.
    void versus_busy(const cl::Program &program, Pair &pr, const Params &p) {
        cl::Kernel busy(program, "evenOddUniform");
        const Run u = bench.run(busy, kEvenOdd, true, p), d = bench.run(pr.kd, kExpensive, false, p);
        const Theory th = theory_vs_busy(p);
        print_row(pr.divergent, branch_text(kExpensive, false, p), d.ms, "evenOddUniform",
                  ratio_text(u, d), th.text(), th.model,
                  u.wrong ? "no ratio: evenOddUniform is wrong" : verdict_text(d, n));
        csv_row("expensive_vs_busy", 2, p, u, d, th, "evenOddUniform");
    }

    // k = 1..32 for a kWay pair; a wrong k makes its variant's verdict v wrong.
    void kway_sweep(Pair &pr, const Params &p, Verdict &v) {
        std::printf("k-way sweep (%s vs %s):\n", pr.divergent.c_str(), pr.uniform.c_str());
        for (int k = 1; k <= kOps; ++k) {
            Params pk = p;
            pk.k = k;
            const Verdict s = measure(pr, pk, "kway_sweep", false);
            if (!s.ok && v.ok)
                v = {v.variant, false, "k sweep, k = " + std::to_string(k) + ", " + s.detail};
        }
        if (v.ok) v.detail += ", and the k sweep 1 to 32";
    }
};

}  // namespace

static int run(Lab &lab) {
    const Params p = params(lab);
    const std::size_t wg = work_group(lab, p), n = work_items(lab, wg);
    const int launches = lab.trials_or(5);

    cl::Program program = lab.program();
    std::vector<Pair> pairs = build_pairs(lab, program, wg);
    Divergence bench(lab.env, n, wg, launches, lab.rng);

    char what[200];
    std::snprintf(what, sizeof what, "%zu work-items in groups of %zu, %d turns each, k = %d, simd "
                  "%d, median of %d launches", n, wg, p.iters, p.k, p.simd, launches);
    lab.banner(what);
    print_row("kernel", "branch on", -1, "against", "slowdown", "theory",
              "model (what the ratio tests)", "result");
    Csv csv = lab.csv({"variant", "k", "n", "wg", "iters", "simd", "uniform_ms", "divergent_ms",
                       "slowdown", "theory", "theory_low", "model", "baseline", "verified"});
    Table table{bench, csv, n, wg};

    std::vector<Verdict> verdicts;
    for (auto &pr : pairs) {
        verdicts.push_back(table.measure(pr, p, pr.variant, true));
        if (pr.kind == kExpensive) table.versus_busy(program, pr, p);
    }
    // With --csv, k = 1..32 too; the sweep's outcome joins its variant's one verdict.
    for (std::size_t i = 0; i < pairs.size(); ++i)
        if (csv && pairs[i].kind == kKWay) table.kway_sweep(pairs[i], p, verdicts[i]);
    std::printf("theory: a %d-wide SIMT machine running a warp's paths one after another, in the "
                "model named; a CPU need not (see the handout)\n", p.simd);
    return lab.exit_code(verdicts);
}

int main(int argc, char **argv) { return run_lab(argc, argv, kLab, run); }
