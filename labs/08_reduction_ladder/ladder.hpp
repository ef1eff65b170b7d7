// For lab 08: how each rung reads its input, the passes that take n floats down to one, and a
// rung run over all its passes, checked at every launch and timed.
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "synclab/device.hpp"

namespace synclab {

// How a rung's kernel is launched (its name and kernel are in declaration.hpp).
struct Rung {
    const char *variant;
    std::size_t per_item;  // elements a work-item loads; 0: grid-stride (v6 to v8)
    bool float4;
    // v8: one launch; the last group to take a ticket writes the total after the partials.
    bool single_pass = false;
};
// Rung "v1" to "v8"; std::logic_error for any other name.
const Rung &rung(const std::string &variant);

// One launch: m values in, `groups` partial sums out.
struct Pass {
    std::size_t m = 0, groups = 0;
    cl_uint spread = 0, step = 0, span = 0;  // v6 to v8 only
    std::size_t serial = 0;                  // terms one work-item adds in a row
};

// The launches that take n values down to one. Grid-stride rungs fill the device on the first
// pass (at most `groups` groups) and finish in one group when they can; v8 has that first pass
// alone.
std::vector<Pass> plan(const Rung &r, std::size_t n, std::size_t wg, std::size_t groups,
                       bool blocked);

// Group g's sum in a pass, as the host adds it (in double): which inputs each group takes
// follows the rung's contract in kernels/08_reduction_ladder.cl.
std::vector<double> group_sums(const Rung &r, const Pass &p, std::size_t wg,
                               const std::vector<double> &in);

// What every rung shares: the launch shape, the input on the device and its sum in double.
struct Ladder {
    std::size_t n = 0, wg = 0, groups = 0;
    bool blocked = false;
    int trials = 1;
    // --exact: whole-number input, and every group's sum of every pass compared exactly.
    bool exact = false;
    double want = 0, abs_sum = 0;
    std::vector<double> host;  // with exact: the input, for every group's sum
    cl::Buffer x;
    cl::Buffer tickets;  // v8's counter, zeroed before every run
    // Sums hx on the host and copies it to x.
    void load(Env &env, const std::vector<float> &hx);
};

struct Outcome {
    float value = NAN;
    double ms = 0;  // first pass's start to last pass's end
    std::string wrong_group;  // with exact: the first wrong group sum, e.g. "pass 1 group 0: ..."
};

// One rung measured: a warm-up and l.trials timed runs, each checked; stops at the first wrong.
struct Measured {
    std::vector<Pass> passes;
    double want = 0, tol = 0;
    bool ok = true;
    Outcome bad;    // the first wrong run's
    double ms = 0;  // median of the timed runs
    std::string wrong() const;  // what was wrong: "no result (NaN: ...)" or "x, want y (...)"
};
Measured measure_rung(Env &env, cl::Kernel &k, const Rung &r, Ladder &l);

}  // namespace synclab
