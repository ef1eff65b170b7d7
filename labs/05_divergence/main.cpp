// Lab 05: divergence. A SIMT machine runs the work-items of a warp (32 on NVIDIA) in lock-step;
// when they branch differently, the warp runs every branch taken, one after another. Each divergent
// kernel is timed against a uniform twin that does the same work with its branches chosen per warp.
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>

#include "synclab/lab.hpp"

using namespace synclab;

constexpr int kOps = 32;  // cases in the kernels' switch: the largest --k

// The kernels' operations: operation j turns by the angle with this cosine and sine
// (the OPj lines of kernels/05_divergence.cl).
static const float kTurn[kOps][2] = {
    {0.955336511f, 0.295520216f},   {0.924909055f, 0.380188406f},
    {0.886994898f, 0.461779177f},   {0.841901004f, 0.539632022f},
    {0.789992213f, 0.61311686f},    {0.731688857f, 0.681638777f},
    {0.667462826f, 0.744643092f},   {0.597833991f, 0.801619947f},
    {0.523365974f, 0.852108002f},   {0.444661528f, 0.895698667f},
    {0.362357765f, 0.932039082f},   {0.277120888f, 0.96083504f},
    {0.189640835f, 0.981853545f},   {0.100625731f, 0.994924366f},
    {0.0107961167f, 0.999941707f},  {-0.0791208893f, 0.996865034f},
    {-0.168397442f, 0.985719204f},  {-0.25631091f, 0.966594398f},
    {-0.342149645f, 0.939645469f},  {-0.42521885f, 0.90509057f},
    {-0.504846096f, 0.863209367f},  {-0.580386877f, 0.814340889f},
    {-0.65122968f, 0.758880734f},   {-0.716801047f, 0.697277725f},
    {-0.776570261f, 0.630030632f},  {-0.830053508f, 0.557683706f},
    {-0.876817882f, 0.480822623f},  {-0.916484833f, 0.400069475f},
    {-0.948733211f, 0.316077977f},  {-0.973302066f, 0.22952795f},
    {-0.989992499f, 0.141120002f},  {-0.998669386f, 0.0515697673f},
};

static const LabSpec spec{
    "lab05_divergence",
    "Divergence: equal work branched per work-item (id % 2, id % k, one item in simd expensive) "
    "timed against the same branches taken per warp.",
    "05_divergence.cl",
    {"evenodd", "kway", "expensive"},
    {},
    [](cxxopts::Options &p) {
        p.add_options()
            ("k,ways", "k: branches of the k-way switch (1 to 32); with --csv, k = 1..32 are all "
                       "timed",
             cxxopts::value<int>()->default_value("8"))
            ("iters", "turns per work-item (the expensive one does simd x this)",
             cxxopts::value<int>()->default_value("1024"))
            ("simd", "SIMT width: the uniform twins branch per block of this many work-items and "
                     "the theory assumes it (32 on NVIDIA)",
             cxxopts::value<int>()->default_value("32"));
    },
};

using F4 = std::array<float, 4>;
struct Params {
    int k, iters, simd;
};
enum Kind { kEvenOdd, kKWay, kExpensive };

// What work-item id does: which operation, how many turns. A uniform twin is its divergent
// kernel deciding by block number id / simd in place of id.
struct Work {
    int op, steps;
};
static Work work_of(Kind kind, bool uniform, std::size_t id, const Params &p) {
    const std::size_t who = uniform ? id / p.simd : id;
    switch (kind) {
    case kEvenOdd: return {int(who % 2), p.iters};
    case kKWay: return {int(who % p.k), p.iters};
    default: return who % p.simd == 0 ? Work{0, p.simd * p.iters} : Work{1, 1};
    }
}

// The slowdown a simd-wide SIMT machine would show: the number of paths a warp runs in turn.
static double theory(Kind kind, const Params &p) {
    switch (kind) {
    case kEvenOdd: return std::min(2, p.simd);
    case kKWay: return std::min(p.k, p.simd);
    default: {
        // Divergent: every warp runs the long path and the short one. Uniform: one warp in simd.
        const double heavy = double(p.simd) * p.iters, light = 1;
        return (heavy + light) / (heavy / p.simd + light * (p.simd - 1) / p.simd);
    }
    }
}

// The branch condition as the table shows it, with this run's numbers.
static std::string branch_text(Kind kind, bool uniform, const Params &p) {
    const std::string who = uniform ? "(id/" + std::to_string(p.simd) + ")" : "id";
    switch (kind) {
    case kEvenOdd: return who + "%2";
    case kKWay: return who + "%" + std::to_string(p.k);
    default: return who + "%" + std::to_string(p.simd) + "==0";
    }
}

// Host results. Items take their inputs from a pool of points, so each (operation, turns) is
// computed once per point and checking n items costs n look-ups.
class Reference {
public:
    Reference(std::size_t points, std::mt19937_64 &rng) : pool_(points), norm_(points) {
        const auto u = uniform(4 * points, rng);
        for (std::size_t j = 0; j < points; ++j) {
            double sq = 0;
            for (int c = 0; c < 4; ++c) {
                pool_[j][c] = 2 * u[4 * j + c] - 1;
                sq += double(pool_[j][c]) * pool_[j][c];
            }
            norm_[j] = std::sqrt(sq);
        }
    }
    const F4 &input(std::size_t j) const { return pool_[j]; }
    double norm(std::size_t j) const { return norm_[j]; }
    // Point j turned by operation w.op, w.steps times, in float as the kernels do.
    const F4 &result(std::size_t j, Work w, const Params &p) {
        auto &memo = done_[w.op][w.steps == 1 ? 0 : w.steps == p.iters ? 1 : 2];
        if (memo.empty()) {
            const float c = kTurn[w.op][0], s = kTurn[w.op][1];
            for (F4 q : pool_) {
                for (int t = 0; t < w.steps; ++t)
                    q = {c * q[0] - s * q[1], s * q[0] + c * q[1], c * q[2] - s * q[3],
                         s * q[2] + c * q[3]};
                memo.push_back(q);
            }
        }
        return memo[j];
    }

private:
    std::vector<F4> pool_;
    std::vector<double> norm_;
    std::vector<F4> done_[kOps][3];  // by operation and turns: 1, iters, simd * iters
};

struct Run {
    double ms = 0;               // median kernel time
    std::size_t wrong = 0;       // items outside the tolerance
    std::size_t first = 0;       // the first of them
    F4 got{}, want{};
};

struct Setup {
    Env &env;
    cl::Buffer in, out;
    std::vector<cl_uint> pick;  // item i's input: pool point pick[i]
    Reference &ref;
    std::size_t n, wg;
    int launches;
};

// Output poisoned with NaN, one warm-up launch, `launches` timed ones (median), then every item
// checked: a turn's float rounding may differ from the host's by a few ulps of the point's size.
static Run run(Setup &s, cl::Kernel &kernel, Kind kind, bool uniform, const Params &p) {
    cl::CommandQueue &q = s.env.queue;
    std::vector<F4> out(s.n, F4{NAN, NAN, NAN, NAN});
    q.enqueueWriteBuffer(s.out, CL_FALSE, 0, s.n * sizeof(F4), out.data());
    kernel.setArg(0, s.in);
    kernel.setArg(1, s.out);
    kernel.setArg(2, p.iters);
    kernel.setArg(3, p.k);
    kernel.setArg(4, p.simd);
    std::vector<double> ms;
    for (int l = 0; l <= s.launches; ++l) {
        cl::Event ev;
        q.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(s.n), cl::NDRange(s.wg), nullptr,
                               &ev);
        if (l > 0) ms.push_back(event_ms(ev));
    }
    q.enqueueReadBuffer(s.out, CL_TRUE, 0, s.n * sizeof(F4), out.data());

    Run r;
    r.ms = median(ms);
    for (std::size_t i = 0; i < s.n; ++i) {
        const Work w = work_of(kind, uniform, i, p);
        const F4 &want = s.ref.result(s.pick[i], w, p);
        const double tol = 4.0 * w.steps * FLT_EPSILON * s.ref.norm(s.pick[i]) + 1e-30;
        bool ok = true;
        for (int c = 0; c < 4; ++c) ok &= close(out[i][c], want[c], tol);
        if (!ok && r.wrong++ == 0) {
            r.first = i;
            r.got = out[i];
            r.want = want;
        }
    }
    return r;
}

static std::string verdict(const Run &r, std::size_t n) {
    if (!r.wrong) return "verified";
    char buf[240];
    std::snprintf(buf, sizeof buf,
                  "WRONG: %zu/%zu items, first out[%zu] = (%.4g %.4g %.4g %.4g), host (%.4g %.4g "
                  "%.4g %.4g)",
                  r.wrong, n, r.first, r.got[0], r.got[1], r.got[2], r.got[3], r.want[0],
                  r.want[1], r.want[2], r.want[3]);
    return buf;
}

static int body(Lab &lab) {
    const Options &o = lab.opt;
    const DeviceInfo &dev = lab.env.info;
    Params p{o.extra["ways"].as<int>(), o.extra["iters"].as<int>(), o.extra["simd"].as<int>()};
    // Oclgrind interprets every instruction: keep its default run to seconds.
    if (dev.is_oclgrind() && !o.extra.count("iters")) p.iters = 16;
    if (p.k < 1 || p.k > kOps)
        throw UsageError("-k " + std::to_string(p.k) + " is out of range: use -k 1 to 32 (the "
                         "kernels' switch has 32 cases)");
    if (p.iters < 1 || p.iters > (1 << 20))
        throw UsageError("--iters " + std::to_string(p.iters) + " is out of range: use 1 to 1048576");
    if (p.simd < 1 || p.simd > 256)
        throw UsageError("--simd " + std::to_string(p.simd) + " is out of range: use 1 to 256 "
                         "(32 on NVIDIA, 64 on AMD wavefronts)");
    lab.reject_groups("give the number of work-items with -n");
    const std::size_t wg = o.wg ? o.wg : std::min<std::size_t>(64, dev.max_wg);
    if (wg % p.simd)
        throw UsageError("--wg " + std::to_string(wg) + " is not a multiple of --simd " +
                         std::to_string(p.simd) + ", so warps would not line up with the uniform "
                         "blocks: use --wg " + std::to_string(p.simd * 2));
    // Enough items that even one warp in simd busy keeps a GPU full; a CPU runs one at a time.
    std::size_t n = o.n ? o.n
                  : dev.is_oclgrind() ? 1024
                  : std::size_t(dev.compute_units) * (dev.is_cpu() ? 2048 : 32768);
    if (!o.n) n = (n + wg - 1) / wg * wg;
    const std::size_t most = (std::size_t(1) << 30) / wg * wg;
    if (n % wg || n > most)
        throw UsageError("-n " + std::to_string(n) + " must be a multiple of the work-group size " +
                         std::to_string(wg) + " and at most 2^30: use -n " +
                         std::to_string(std::min((n / wg + 1) * wg, most)));
    const int launches = lab.trials_or(5);

    struct Pair {
        std::string variant;
        Kind kind;
        const char *divergent, *uniform;
        cl::Kernel kd, ku;
    };
    std::vector<Pair> pairs;
    cl::Program program = lab.program();
    for (const auto &v : lab.selected_variants()) {
        Pair pr = v == "evenodd" ? Pair{v, kEvenOdd, "evenOdd", "evenOddUniform", {}, {}}
                : v == "kway"    ? Pair{v, kKWay, "kWay", "kWayUniform", {}, {}}
                                 : Pair{v, kExpensive, "oneExpensive", "oneExpensiveUniform", {}, {}};
        pr.kd = cl::Kernel(program, pr.divergent);
        pr.ku = cl::Kernel(program, pr.uniform);
        check_launch(pr.kd, dev.device, wg, 0);
        check_launch(pr.ku, dev.device, wg, 0);
        pairs.push_back(pr);
    }

    // Inputs: every item a random point of the pool.
    Reference ref(1024, lab.rng);
    Setup s{lab.env, cl::Buffer(lab.env.context, CL_MEM_READ_ONLY, n * sizeof(F4)),
            cl::Buffer(lab.env.context, CL_MEM_WRITE_ONLY, n * sizeof(F4)), {}, ref, n, wg, launches};
    {
        std::uniform_int_distribution<cl_uint> point(0, 1023);
        std::vector<F4> in(n);
        s.pick.resize(n);
        for (std::size_t i = 0; i < n; ++i) in[i] = ref.input(s.pick[i] = point(lab.rng));
        lab.env.queue.enqueueWriteBuffer(s.in, CL_TRUE, 0, n * sizeof(F4), in.data());
    }

    std::printf("%s on %s / %s: %zu work-items in groups of %zu, %d turns each, k = %d, "
                "simd %d, median of %d launches, seed %llu\n",
                spec.name.c_str(), dev.platform.c_str(), dev.name.c_str(), n, wg, p.iters, p.k,
                p.simd, launches, static_cast<unsigned long long>(lab.seed));
    std::printf("%-20s %-18s %10s %9s %8s\n", "kernel", "branch on", "ms", "slowdown", "theory");
    std::ostream *csv = lab.csv();
    if (csv)
        *csv << "variant,k,n,wg,iters,simd,uniform_ms,divergent_ms,slowdown,theory,verified\n";

    // Times a pair; prints its two rows when `rows`, else one sweep line.
    auto measure = [&](Pair &pr, const Params &pp, const std::string &csv_variant, bool rows) {
        const Run u = run(s, pr.ku, pr.kind, true, pp), d = run(s, pr.kd, pr.kind, false, pp);
        const double slow = u.ms > 0 ? d.ms / u.ms : 0, th = theory(pr.kind, pp);
        // A slowdown against a wrong baseline means nothing.
        char ratio[16] = "       -";
        if (!u.wrong) std::snprintf(ratio, sizeof ratio, "%7.2fx", slow);
        if (rows) {
            std::printf("%-20s %-18s %10.3f %8s %7.0fx  %s\n", pr.uniform,
                        branch_text(pr.kind, true, pp).c_str(), u.ms, "1.00x", 1.0,
                        verdict(u, n).c_str());
            std::printf("%-20s %-18s %10.3f %8s %7.0fx  %s\n", pr.divergent,
                        branch_text(pr.kind, false, pp).c_str(), d.ms, ratio, th,
                        verdict(d, n).c_str());
        } else {
            std::printf("  k = %2d  uniform %9.3f ms  divergent %9.3f ms  %8s  theory %2.0fx  %s\n",
                        pp.k, u.ms, d.ms, ratio, th, verdict(u.wrong ? u : d, n).c_str());
        }
        const bool ok = !u.wrong && !d.wrong;
        if (csv)
            *csv << csv_variant << "," << (pr.kind == kKWay ? pp.k : 2) << "," << n << "," << wg << "," << pp.iters << ","
                 << pp.simd << "," << u.ms << "," << d.ms << "," << slow << "," << th << ","
                 << (ok ? 1 : 0) << "\n";
        return ok;
    };

    std::vector<std::pair<std::string, bool>> verdicts;
    for (auto &pr : pairs) verdicts.emplace_back(pr.variant, measure(pr, p, pr.variant, true));
    for (auto &pr : pairs) {
        if (!csv || pr.kind != kKWay) continue;
        std::printf("k-way sweep (%s vs %s):\n", pr.divergent, pr.uniform);
        for (int k = 1; k <= kOps; ++k) {
            Params pk = p;
            pk.k = k;
            verdicts.emplace_back("kway", measure(pr, pk, "kway_sweep", false));
        }
    }
    std::printf("theory: the paths a %d-wide SIMT group runs one after another; a CPU need not "
                "(see the handout)\n", p.simd);
    return lab.exit_code(verdicts);
}

int main(int argc, char **argv) { return run_lab(argc, argv, spec, body); }
