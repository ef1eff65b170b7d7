// For lab 10: the grid and its harmonic problem, the host's sweeps (the exact reference and the
// multithreaded peer), and the kernels launched, timed and checked: one launch per sweep, or all
// sweeps in one launch with a barrier between work-groups.
#pragma once
#include <algorithm>
#include <array>
#include <random>
#include <string>
#include <vector>

#include "synclab/lab.hpp"
#include "synclab/timing.hpp"

namespace synclab {

struct Block {
    std::size_t x = 0, y = 0;
    std::string text() const { return std::to_string(x) + "x" + std::to_string(y); }
};
// "32x4" -> {32, 4}; throws UsageError naming `option` on anything else.
Block parse_block(const std::string &option, const std::string &text);

// An I x J grid, point (i, j) at i + j*I. The boundary holds x^2 - y^2 at x = i*h, y = 0.5 + j*h
// (h = 1 / (max(I, J) - 1)), harmonic for the 5-point stencil too, so the converged interior is
// x^2 - y^2 again; the interior starts random in [-1, 1].
struct Grid {
    std::size_t I = 0, J = 0;
    std::vector<float> start;   // the boundary values, the interior's first guess
    std::vector<float> exact;   // x^2 - y^2 everywhere (rounded to float)
    Grid(std::size_t I, std::size_t J, std::mt19937_64 &rng);
    std::size_t points() const { return I * J; }
};

// One Jacobi sweep u1 -> u2 on the host, rows [j0, j1), as the kernels compute it.
void host_rows(const Grid &g, const float *u1, float *u2, std::size_t j0, std::size_t j1);
// The convergence the students watch: every `every` sweeps, the largest change one sweep made
// (the residual, a quarter of the 5-point Laplacian) and the largest error against x^2 - y^2.
struct Convergence {
    unsigned sweep = 0;
    double residual = 0, error = 0;
};
// `sweeps` sweeps from g.start on `threads` threads (each a band of rows; one sweep's bands
// joined before the next). Bit for bit what the kernels give. With `log`, the convergence every
// `every` sweeps and after the last.
std::vector<float> host_sweeps(const Grid &g, unsigned sweeps, unsigned threads,
                               std::vector<Convergence> *log = nullptr, unsigned every = 1);
// The largest |a - b| over all points.
double max_diff(const std::vector<float> &a, const std::vector<float> &b);

// One kernel run, timed and checked against the host's result.
struct Run {
    double ms = 0;              // events: first launch's start to last launch's end (median_run:
                                // the median of the runs')
    std::size_t wrong = 0, first = 0;
    float got = 0, want = 0;
    bool gave_up = false;       // persistent: a barrier's wait ran out of budget
    std::size_t groups = 0, parts = 0, arrived = 0;
    unsigned stuck = 0;
    std::string stalled_before;  // persistent: a first try's give-up, when a second try ran
    std::vector<float> result;
    bool ok() const { return !gave_up && wrong == 0; }
    std::string text(std::size_t I) const;
};

// `trials` runs of once(), timed as the OpenMP sweep is: every run checked, and the first that is
// not ok() is the outcome. Else the first run, with the median time of all, the fewest groups
// any run had take part (parts), and the first second-try note any run left. A verified run's
// grid is the host's bit for bit, so the first run's stands for every run's.
template <class Once>
Run median_run(int trials, Once once) {
    Run r = once();
    std::vector<double> ms{r.ms};
    for (int t = 1; t < trials && r.ok(); ++t) {
        Run next = once();
        if (!next.ok()) return next;
        ms.push_back(next.ms);
        r.parts = std::min(r.parts, next.parts);
        if (r.stalled_before.empty()) r.stalled_before = std::move(next.stalled_before);
    }
    r.ms = median(ms);
    return r;
}

class Sweeper {
public:
    Sweeper(Env &env, const Grid &g);
    // One launch per sweep, back to back. Tiled kernels get a (bx + 2) x (by + 2) tile; with
    // rows > 0 each work-item sweeps that many points of a column (jacobiRows), of `cols`
    // columns side by side (jacobiRows4: 4).
    Run relaunch(cl::Kernel &k, Block b, unsigned sweeps, bool tiled,
                 const std::vector<float> &want, unsigned rows = 0, unsigned cols = 1);
    // All sweeps in one launch of up to `launch` groups of b; discovery keeps those resident. A
    // launch that gives up is tried once more (a busy host), and counts when that one does too.
    // `expect` > 0: the groups that can be resident at once (a CPU's threads): the poll closes
    // once that many came, and a launch that only discovers goes first, so that every thread
    // is awake when ours begins (a CPU's idle threads take milliseconds to wake, far longer
    // than the poll stays open). 0: the poll closes once no newcomer came for `grace` polls.
    Run persistent(cl::Kernel &k, Block b, unsigned sweeps, std::size_t launch, unsigned budget,
                   unsigned grace, const std::vector<float> &want, unsigned expect = 0);
    // `fuse` sweeps a pass (jacobiTemporal), the last pass the rest: groups of b, each a tile
    // b.x * b.y columns wide writing its middle b.x * b.y - 2 * fuse, down a band of `band` rows.
    Run temporal(cl::Kernel &k, Block b, unsigned sweeps, unsigned fuse, unsigned band,
                 const std::vector<float> &want);
    // The first buffer, holding the grid's start (what the copy probe copies).
    const cl::Buffer &loaded() { reset(); return a_; }
    // From here on each run above is made `trials` times (median_run), as the OpenMP sweep is
    // timed: a CPU's first run can begin before all its threads are awake.
    void time_over(int trials) { trials_ = std::max(1, trials); }

private:
    Run relaunch_once(cl::Kernel &k, Block b, unsigned sweeps, bool tiled,
                      const std::vector<float> &want, unsigned rows, unsigned cols);
    Run temporal_once(cl::Kernel &k, Block b, unsigned sweeps, unsigned fuse, unsigned band,
                      const std::vector<float> &want);
    Run persistent_once(cl::Kernel &k, Block b, unsigned sweeps, std::size_t launch, unsigned budget,
                        unsigned grace, const std::vector<float> &want, unsigned expect);
    void reset();
    // The result is in b_ after an odd number of launches (`passes`), else in a_.
    Run check(Run r, unsigned passes, const std::vector<float> &want);
    Env &env_;
    const Grid &g_;
    cl::Buffer a_, b_, ctl_, flags_, seen_;
    std::array<cl_uint, 4> ctl_start_{};  // what persistent_once() writes to ctl_, flags_ and
    std::vector<cl_uint> zeros_;          // seen_ before a launch, kept until the queue wrote them
    std::size_t flag_groups_ = 0;
    int trials_ = 1;
};

// The host's multithreaded peer, timed: the median of `trials` runs of `sweeps` sweeps.
double time_host_sweeps(const Grid &g, unsigned sweeps, unsigned threads, int trials);

}  // namespace synclab
