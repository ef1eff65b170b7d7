#include "divergence.hpp"
#include "declaration.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace synclab {

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

Kind kind_of(const std::string &variant) {
    if (variant == "evenodd") return kEvenOdd;
    if (variant == "kway") return kKWay;
    if (variant == "expensive") return kExpensive;
    throw std::logic_error("lab 05 has no variant '" + variant + "'");
}

Work work_of(Kind kind, bool uniform, std::size_t id, const Params &p) {
    const std::size_t who = uniform ? id / p.simd : id;
    switch (kind) {
    case kEvenOdd: return {int(who % 2), p.iters};
    case kKWay: return {int(who % p.k), p.iters};
    default: return who % p.simd == 0 ? Work{0, p.simd * p.iters} : Work{1, 1};
    }
}

// One warp of simd work-items in oneExpensive: the heavy path (simd * iters turns), and the light
// one (1 turn) when the warp has a light item at all.
static double heavy_turns(const Params &p) { return double(p.simd) * p.iters; }
static double light_turns(const Params &p) { return p.simd > 1 ? 1.0 : 0.0; }

Theory theory(Kind kind, const Params &p) {
    switch (kind) {
    case kEvenOdd: {
        const double t = std::min(2, p.simd);
        return {t, t, "paths per warp"};
    }
    case kKWay: {
        const double t = std::min(p.k, p.simd);
        return {t, t, "paths per warp"};
    }
    default: {
        // Divergent: every warp runs both paths. Uniform: one warp in simd runs the heavy path,
        // the others the light one.
        const double heavy = heavy_turns(p), light = light_turns(p);
        const double issued = (heavy + light) * p.simd / (heavy + light * (p.simd - 1));
        return {(heavy + light) / heavy, issued, "longest warp .. turns issued"};
    }
    }
}

Theory theory_vs_busy(const Params &p) {
    const double t = (heavy_turns(p) + light_turns(p)) / p.iters;
    return {t, t, "same turns, all lanes busy"};
}

std::string Theory::text() const {
    char s[32];
    if (std::lround(low) == std::lround(high)) std::snprintf(s, sizeof s, "%.0fx", high);
    else std::snprintf(s, sizeof s, "%.0f-%.0fx", low, high);
    return s;
}

std::string branch_text(Kind kind, bool uniform, const Params &p) {
    const std::string who = uniform ? "(id/" + std::to_string(p.simd) + ")" : "id";
    switch (kind) {
    case kEvenOdd: return who + "%2";
    case kKWay: return who + "%" + std::to_string(p.k);
    default: return who + "%" + std::to_string(p.simd) + "==0";
    }
}

Reference::Reference(std::size_t points, std::mt19937_64 &rng) : pool_(points), norm_(points) {
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

const F4 &Reference::result(std::size_t j, Work w, const Params &p) {
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

static std::string first_wrong(const Run &r) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "first out[%zu] = (%.4g %.4g %.4g %.4g), host (%.4g %.4g %.4g %.4g)", r.first,
                  r.got[0], r.got[1], r.got[2], r.got[3], r.want[0], r.want[1], r.want[2],
                  r.want[3]);
    return buf;
}

std::string ratio_text(const Run &u, const Run &d) {
    if (u.wrong || u.ms <= 0) return "-";
    char s[32];
    std::snprintf(s, sizeof s, "%.2fx", d.ms / u.ms);
    return s;
}

void print_row(const std::string &kernel, const std::string &branch, double ms,
               const std::string &against, const std::string &ratio, const std::string &theory,
               const std::string &model, const std::string &result) {
    char t[32] = "       ms";
    if (ms >= 0) std::snprintf(t, sizeof t, "%9.3f", ms);
    static const int kw = kLab.kernel_width(20);  // kernel and against: kernel names
    std::printf("%-*s %-15s %s  %-*s %8s %7s  %-28s  %s\n", kw, kernel.c_str(), branch.c_str(), t,
                kw, against.c_str(), ratio.c_str(), theory.c_str(), model.c_str(), result.c_str());
}

std::string verdict_text(const Run &r, std::size_t n) {
    if (!r.wrong) return "verified";
    return "WRONG: " + std::to_string(r.wrong) + "/" + std::to_string(n) + " items, " +
           first_wrong(r);
}

std::string wrong_detail(const Run &r, std::size_t n) {
    return std::to_string(r.wrong) + "/" + std::to_string(n) + " items wrong, " + first_wrong(r);
}

Divergence::Divergence(Env &env, std::size_t n, std::size_t wg, int launches,
                       std::mt19937_64 &rng)
    : env_(env), n_(n), wg_(wg), launches_(launches), ref_(1024, rng), pick_(n),
      in_(env.context, CL_MEM_READ_ONLY, n * sizeof(F4)),
      out_(env.context, CL_MEM_WRITE_ONLY, n * sizeof(F4)) {
    // Inputs: every item a random point of the pool (drawn after the pool, for --seed).
    std::uniform_int_distribution<cl_uint> point(0, cl_uint(ref_.points() - 1));
    std::vector<F4> in(n);
    for (std::size_t i = 0; i < n; ++i) in[i] = ref_.input(pick_[i] = point(rng));
    env.queue.enqueueWriteBuffer(in_, CL_TRUE, 0, n * sizeof(F4), in.data());
}

// A turn's float rounding may differ from the host's by a few ulps of the point's size.
Run Divergence::run(cl::Kernel &kernel, Kind kind, bool uniform, const Params &p) {
    fill_nan(env_, out_, 4 * n_);
    kernel.setArg(0, in_);
    kernel.setArg(1, out_);
    kernel.setArg(2, p.iters);
    kernel.setArg(3, p.k);
    kernel.setArg(4, p.simd);
    Run r;
    r.ms = median_of_launches(launches_, [&] {
        cl::Event ev;
        env_.queue.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(n_), cl::NDRange(wg_),
                                        nullptr, &ev);
        return event_ms(ev);
    });
    std::vector<F4> out(n_);
    env_.queue.enqueueReadBuffer(out_, CL_TRUE, 0, n_ * sizeof(F4), out.data());

    for (std::size_t i = 0; i < n_; ++i) {
        const Work w = work_of(kind, uniform, i, p);
        const F4 &want = ref_.result(pick_[i], w, p);
        const double tol = 4.0 * w.steps * FLT_EPSILON * ref_.norm(pick_[i]) + 1e-30;
        bool ok = true;
        for (int c = 0; c < 4; ++c) ok &= within(out[i][c], want[c], tol);
        if (!ok && r.wrong++ == 0) {
            r.first = i;
            r.got = out[i];
            r.want = want;
        }
    }
    return r;
}

}  // namespace synclab
