// For the lab scaffolding and every lab: host references in double precision, inputs, tolerances.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "synclab/cl.hpp"

namespace synclab {

// n numbers uniform in [0, 1).
std::vector<float> uniform(std::size_t n, std::mt19937_64 &rng);

// --exact (grading): whole numbers 1..kExactMost. Every sum of them stays a whole number below
// 2^24, exact in float whatever the order of the additions, so results are compared exactly; and
// no term is 0, so a dropped element always changes the sum.
constexpr int kExactMost = 3;
std::vector<float> whole_numbers(std::size_t n, std::mt19937_64 &rng);
// The inputs of a run: whole_numbers with --exact, else uniform.
std::vector<float> inputs(std::size_t n, bool exact, std::mt19937_64 &rng);
// With --exact: throws UsageError when `terms` terms of at most `most` each could add up to 2^24
// or more (where floats skip whole numbers); `option` and `value` name the input to shrink.
void check_exact_fits(std::size_t terms, double most, const std::string &option, std::size_t value);

struct Sum {
    double value = 0;    // exact enough: accumulated in double
    double abs_sum = 0;  // sum of |terms|, for the error bound
};

// Dot product of a[first, first+count) and b[first, first+count).
Sum dot_ref(const std::vector<float> &a, const std::vector<float> &b, std::size_t first,
            std::size_t count);

// Largest acceptable |device - reference| for a float sum of n terms whose |terms| add to
// abs_sum, added in a tree (log2 n levels) with up to `serial` terms added one after another
// by one work-item. Tight: a sum of n U(0,1) products answered by n/4 misses it.
double tolerance(std::size_t n, double abs_sum, std::size_t serial = 1);

// |got - want| <= tol, and false for NaN.
bool within(double got, double want, double tol);

// Every group's partial against its reference (each a sum of n_each terms): within
// tolerance(), or equal when `exact` (--exact's inputs).
struct PartialCheck {
    std::size_t wrong = 0;
    std::size_t first_wrong = static_cast<std::size_t>(-1);  // index of the first wrong group
};
PartialCheck check_partials(const std::vector<float> &got, const std::vector<Sum> &want,
                            std::size_t n_each, bool exact = false);

// Fills every work-group's local memory (local_bytes each) with NaN, so values left by a
// previous launch cannot make a racy kernel look right.
class LocalPoison {
public:
    LocalPoison(const cl::Context &ctx, const cl::Device &dev);
    void fill(const cl::CommandQueue &q, std::size_t groups, std::size_t wg,
              std::size_t local_bytes);
private:
    cl::Kernel kernel_;
};

}  // namespace synclab
