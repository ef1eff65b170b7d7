#include "triangle.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace synclab {

Shape shape_of(const std::string &variant) {
    if (variant == "odd") return Shape::kOddRows;
    if (variant == "tree") return Shape::kTree;
    if (variant == "groups") return Shape::kGroups;
    if (variant == "nobarrier" || variant == "localfence" || variant == "triangle")
        return Shape::kColumns;
    throw std::logic_error("lab 06 has no variant '" + variant + "'");
}

std::vector<double> expected_v(const std::vector<float> &m, std::size_t n, Shape shape) {
    std::vector<double> v(n + 1, 0.0);
    for (std::size_t j = 0; j < n; ++j)
        for (std::size_t i = 0; i < j; ++i)
            if (shape != Shape::kOddRows || i % 2) v[j] += m[i * n + j];
    for (std::size_t j = 0; j < n; ++j) v[n] += v[j];
    if (shape == Shape::kTree)  // the tree's levels, in the kernel's order
        for (std::size_t s = 1; s < n; s *= 2)
            for (std::size_t j = 0; j + s < n; j += 2 * s) v[j] += v[j + s];
    return v;
}

SumTriangle::SumTriangle(Env &env, std::size_t n, std::mt19937_64 &rng)
    : env_(env), n_(n), m_(n * n),
      dm_(env.context, CL_MEM_READ_ONLY, n * n * sizeof(float)),
      dv_(env.context, CL_MEM_READ_WRITE, (n + 1) * sizeof(float)),
      dpartial_(env.context, CL_MEM_READ_WRITE, n * sizeof(float)) {
    std::uniform_int_distribution<int> d(1, 2);
    for (auto &x : m_) x = static_cast<float>(d(rng));
    env.queue.enqueueWriteBuffer(dm_, CL_TRUE, 0, m_.size() * sizeof(float), m_.data());
}

static std::string describe(const char *name, std::size_t at, float got, double want) {
    char buf[120];
    std::snprintf(buf, sizeof buf, "%s[%zu] = %g, want %.0f", name, at, got, want);
    return buf;
}

Launch SumTriangle::run(std::vector<cl::Kernel> &kernels, Shape shape, std::size_t wg) {
    const int n = static_cast<int>(n_);
    const std::size_t groups = shape == Shape::kGroups ? (n_ + wg - 1) / wg : 1;
    fill_nan(env_, dv_, n_ + 1);
    if (shape == Shape::kGroups) fill_nan(env_, dpartial_, groups);
    cl::Kernel &k = kernels.front();
    k.setArg(0, dm_);
    k.setArg(1, dv_);
    Launch r;
    cl::Event ev;
    if (shape == Shape::kGroups) {
        k.setArg(2, dpartial_);
        k.setArg(3, n);
        env_.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(groups * wg),
                                        cl::NDRange(wg), nullptr, &ev);
        cl::Kernel &fin = kernels.at(1);  // the final pass: one group of wg
        cl::Event ev2;
        fin.setArg(0, dpartial_);
        fin.setArg(1, dv_);
        fin.setArg(2, n);
        fin.setArg(3, static_cast<int>(groups));
        fin.setArg(4, cl::Local(wg * sizeof(float)));
        env_.queue.enqueueNDRangeKernel(fin, cl::NullRange, cl::NDRange(wg), cl::NDRange(wg),
                                        nullptr, &ev2);
        ev2.wait();
        r.ms = event_ms(ev2);
    } else {
        k.setArg(2, n);
        env_.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(n_), cl::NDRange(n_),
                                        nullptr, &ev);
    }
    ev.wait();
    r.ms += event_ms(ev);

    auto &want = want_[static_cast<int>(shape)];
    if (want.empty()) want = expected_v(m_, n_, shape == Shape::kGroups ? Shape::kColumns : shape);
    std::vector<float> v(n_ + 1);
    env_.queue.enqueueReadBuffer(dv_, CL_TRUE, 0, v.size() * sizeof(float), v.data());
    for (std::size_t j = 0; j <= n_; ++j)
        if (!(v[j] == want[j]) && r.wrong++ == 0) r.first = describe("V", j, v[j], want[j]);
    if (shape == Shape::kGroups) {  // every group's partial: the sum of its slice of V
        std::vector<float> p(groups);
        env_.queue.enqueueReadBuffer(dpartial_, CL_TRUE, 0, groups * sizeof(float), p.data());
        for (std::size_t g = 0; g < groups; ++g) {
            double s = 0;
            for (std::size_t j = g * wg; j < std::min(n_, (g + 1) * wg); ++j) s += want[j];
            if (!(p[g] == s) && r.wrong++ == 0) r.first = describe("partial", g, p[g], s);
        }
    }
    return r;
}

Tally trials_of(SumTriangle &t, Run &r, std::size_t wg, int trials) {
    Tally y;
    for (int k = 0; k < trials; ++k) {
        const Launch l = t.run(r.kernels, r.shape, wg);
        y.ms.push_back(l.ms);
        if (l.wrong && y.wrong_trials++ == 0)
            y.first = std::to_string(l.wrong) + (l.wrong == 1 ? " entry" : " entries") +
                      " wrong, first " + l.first;
    }
    return y;
}

std::vector<std::size_t> triangle_sizes(std::size_t most) {
    std::vector<std::size_t> out;
    for (std::size_t n : {1, 2, 4, 8, 11, 16, 31, 32, 33, 48, 64, 96, 128, 192, 256, 384, 512,
                          768, 1024, 1536, 2048, 3072, 4096})
        if (n <= most) out.push_back(n);
    return out;
}

}  // namespace synclab
