#include "synclab/reference.hpp"

#include <cfloat>
#include <cmath>
#include <limits>

#include "synclab/errors.hpp"
#include "synclab/kernels.hpp"

namespace synclab {

std::vector<float> uniform(std::size_t n, std::mt19937_64 &rng) {
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    std::vector<float> v(n);
    for (auto &x : v) x = u(rng);
    return v;
}

std::vector<float> whole_numbers(std::size_t n, std::mt19937_64 &rng) {
    std::uniform_int_distribution<int> d(1, kExactMost);
    std::vector<float> v(n);
    for (auto &x : v) x = static_cast<float>(d(rng));
    return v;
}

std::vector<float> inputs(std::size_t n, bool exact, std::mt19937_64 &rng) {
    return exact ? whole_numbers(n, rng) : uniform(n, rng);
}

void check_exact_fits(std::size_t terms, double most, const std::string &option, std::size_t value) {
    constexpr double kExactLimit = 16777216.0;  // 2^24: above it floats skip whole numbers
    if (static_cast<double>(terms) * most < kExactLimit) return;
    const auto largest = static_cast<std::size_t>((kExactLimit - 1) / most);
    throw UsageError("--exact with " + option + " " + std::to_string(value) + ": the sum could reach "
                     "2^24, where float skips whole numbers: use " + option + " " +
                     std::to_string(largest * value / terms) + " or less, or leave out --exact");
}

Sum dot_ref(const std::vector<float> &a, const std::vector<float> &b, std::size_t first,
            std::size_t count) {
    Sum s;
    for (std::size_t i = first; i < first + count; ++i) {
        // The device multiplies in float; so do we, then add exactly enough in double.
        const double t = static_cast<double>(a[i] * b[i]);
        s.value += t;
        s.abs_sum += std::fabs(t);
    }
    return s;
}

double tolerance(std::size_t n, double abs_sum, std::size_t serial) {
    // Each float addition is off by at most FLT_EPSILON/2 of its result, and every term passes
    // through about log2(n) + serial additions. A factor of 2 covers fused or reordered adds.
    const double depth = std::ceil(std::log2(static_cast<double>(n) + 1.0)) + serial + 1;
    return 2.0 * (FLT_EPSILON / 2) * depth * abs_sum + 16 * FLT_MIN;
}

bool within(double got, double want, double tol) { return std::fabs(got - want) <= tol; }

PartialCheck check_partials(const std::vector<float> &got, const std::vector<Sum> &want,
                            std::size_t n_each, bool exact) {
    PartialCheck c;
    for (std::size_t g = 0; g < want.size(); ++g) {
        const double tol = exact ? 0 : tolerance(n_each, want[g].abs_sum);
        if (g < got.size() && within(got[g], want[g].value, tol)) continue;
        if (!c.wrong) c.first_wrong = g;
        ++c.wrong;
    }
    return c;
}

static const char *kPoisonSource = R"CL(
__kernel void poisonLocal(__local float *scratch, uint count)
{
    for (uint i = get_local_id(0); i < count; i += get_local_size(0))
        scratch[i] = NAN;
    barrier(CLK_LOCAL_MEM_FENCE);
}
)CL";

LocalPoison::LocalPoison(const cl::Context &ctx, const cl::Device &dev)
    : kernel_(build_source(ctx, dev, kPoisonSource, "synclab/poison.cl"), "poisonLocal") {}

void LocalPoison::fill(const cl::CommandQueue &q, std::size_t groups, std::size_t wg,
                       std::size_t local_bytes) {
    kernel_.setArg(0, cl::Local(local_bytes));
    kernel_.setArg(1, static_cast<cl_uint>(local_bytes / sizeof(float)));
    q.enqueueNDRangeKernel(kernel_, cl::NullRange, cl::NDRange(groups * wg), cl::NDRange(wg));
}

}  // namespace synclab
