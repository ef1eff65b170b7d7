// For lab 06: the whole-number matrix, the V each kernel must leave (the host's exact answer),
// and one kernel launched over fresh NaN-filled outputs and checked entry by entry.
#pragma once
#include <random>
#include <string>
#include <vector>

#include "synclab/lab.hpp"

namespace synclab {

// Entries 1 or 2: every sum of the triangle, at most N(N-1), stays below 2^24 for N <= 4096,
// so it is exact in float in any order; and no entry is 0, so a dropped one shows.
constexpr std::size_t kMaxN = 4096;

// What a variant computes: all rows above the diagonal, only the odd ones (Variant I), the
// lecture's in-place tree over V (Variant II), or column sums across work-groups.
enum class Shape { kColumns, kOddRows, kTree, kGroups };
Shape shape_of(const std::string &variant);

// V[0..N] as the kernel must leave it (the tree leaves partial sums in V: see the kernel file).
std::vector<double> expected_v(const std::vector<float> &m, std::size_t n, Shape shape);

struct Launch {
    double ms = 0;
    std::size_t wrong = 0;  // entries of V (and partials) that differ
    std::string first;      // the first of them: "V[3] = nan, want 6"
};

class SumTriangle {
public:
    SumTriangle(Env &env, std::size_t n, std::mt19937_64 &rng);
    std::size_t n() const { return n_; }
    // One launch of `kernels` (one group of n work-items, or groups of wg and the final pass)
    // over V (and partial) filled with NaN, then every entry compared exactly.
    Launch run(std::vector<cl::Kernel> &kernels, Shape shape, std::size_t wg);

private:
    Env &env_;
    std::size_t n_;
    std::vector<float> m_;
    std::vector<double> want_[4];  // by Shape, made on first use
    cl::Buffer dm_, dv_, dpartial_;
};

// One variant's run: its kernels and how they are launched.
struct Run {
    std::string variant;
    Shape shape;
    std::vector<cl::Kernel> kernels;
};

// A variant's trials: how many went wrong, the first wrong one's first wrong entry, their times.
struct Tally {
    int wrong_trials = 0;
    std::string first;
    std::vector<double> ms;
};
Tally trials_of(SumTriangle &t, Run &r, std::size_t wg, int trials);

// N = 1, 2, 4 ... and the sizes either side of a 32-wide warp, up to `most`.
std::vector<std::size_t> triangle_sizes(std::size_t most);

}  // namespace synclab
