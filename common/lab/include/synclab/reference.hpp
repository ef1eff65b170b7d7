// For the lab scaffolding and every lab: host references in double precision, inputs, tolerances.
#pragma once
#include <cstdint>
#include <random>
#include <vector>

#include "synclab/cl.hpp"

namespace synclab {

// n numbers uniform in [0, 1).
std::vector<float> uniform(std::size_t n, std::mt19937_64 &rng);

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
bool close(double got, double want, double tol);

// Every group's partial against its reference (each a sum of n_each terms).
struct PartialCheck {
    std::size_t wrong = 0;
    std::size_t first_wrong = static_cast<std::size_t>(-1);  // index of the first wrong group
};
PartialCheck check_partials(const std::vector<float> &got, const std::vector<Sum> &want,
                            std::size_t n_each);

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
