// For lab 05: what each divergent kernel and its uniform twin compute (the host check), the SIMT
// theory of their slowdown, the table's branch text, and one kernel launched, timed and checked.
#pragma once
#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "synclab/lab.hpp"

namespace synclab {

constexpr int kOps = 32;  // cases in the kernels' switch: the largest -k

struct Params {
    int k, iters, simd;
};
enum Kind { kEvenOdd, kKWay, kExpensive };
// The pair a variant runs: "evenodd", "kway" or "expensive"; std::logic_error for any other.
Kind kind_of(const std::string &variant);

// The slowdown a simd-wide SIMT machine would show, and the model it comes from: what the
// measurement beside it tests. A range where the model bounds the ratio from both sides.
struct Theory {
    double low = 1, high = 1;
    std::string model;
    std::string text() const;  // "2x", or "1-32x" for a range
};
// A divergent kernel against its uniform twin: evenOdd and kWay, the paths a warp runs in turn;
// oneExpensive, between its longest warp (1x: the twin's heavy warps are as long) and the turns
// issued (32x: the twin's light warps cost one turn), as the twin's few heavy warps do or do
// not keep the machine busy.
Theory theory(Kind kind, const Params &p);
// oneExpensive against evenOddUniform: the same turns on average, every lane busy in the latter,
// so a warp's simd * iters turns against iters (the lecture's 32x).
Theory theory_vs_busy(const Params &p);
// The branch condition as the table shows it, with this run's numbers: "(id/32)%8".
std::string branch_text(Kind kind, bool uniform, const Params &p);

// What work-item id does: which operation, how many turns. A uniform twin is its divergent
// kernel deciding by block number id / simd in place of id.
struct Work {
    int op, steps;
};
Work work_of(Kind kind, bool uniform, std::size_t id, const Params &p);

using F4 = std::array<float, 4>;

// Host results. Items take their inputs from a pool of points, so each (operation, turns) is
// computed once per point and checking n items costs n look-ups.
class Reference {
public:
    Reference(std::size_t points, std::mt19937_64 &rng);
    std::size_t points() const { return pool_.size(); }
    const F4 &input(std::size_t j) const { return pool_[j]; }
    double norm(std::size_t j) const { return norm_[j]; }
    // Point j turned by operation w.op, w.steps times, in float as the kernels do.
    const F4 &result(std::size_t j, Work w, const Params &p);

private:
    std::vector<F4> pool_;
    std::vector<double> norm_;
    std::vector<F4> done_[kOps][3];  // by operation and turns: 1, iters, simd * iters
};

struct Run {
    double ms = 0;          // median kernel time
    std::size_t wrong = 0;  // items outside the tolerance
    std::size_t first = 0;  // the first of them
    F4 got{}, want{};
};
// What the table prints: "verified", or "WRONG: 3/4096 items, first out[7] = (...), host (...)".
std::string verdict_text(const Run &r, std::size_t n);
// d's time over u's, "1.98x"; "-" when u is wrong (a slowdown against a wrong baseline means
// nothing).
std::string ratio_text(const Run &u, const Run &d);
// One line of the table (ms < 0: the header, with "ms" in place of the time).
void print_row(const std::string &kernel, const std::string &branch, double ms,
               const std::string &against, const std::string &ratio, const std::string &theory,
               const std::string &model, const std::string &result);
// A wrong run in the verdict record: "3/4096 items wrong, first out[7] = (...), host (...)".
std::string wrong_detail(const Run &r, std::size_t n);

// n work-items in groups of wg, each given a random point of the pool, on the device and the host.
class Divergence {
public:
    Divergence(Env &env, std::size_t n, std::size_t wg, int launches, std::mt19937_64 &rng);
    // Output filled with NaN, one warm-up launch, `launches` timed ones (the median), then every
    // item checked against the host.
    Run run(cl::Kernel &kernel, Kind kind, bool uniform, const Params &p);

private:
    Env &env_;
    std::size_t n_, wg_;
    int launches_;
    Reference ref_;
    std::vector<cl_uint> pick_;  // item i's input: pool point pick_[i]
    cl::Buffer in_, out_;
};

}  // namespace synclab
