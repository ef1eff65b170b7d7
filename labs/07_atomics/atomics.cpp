// Lab 07's parts (atomics.hpp): the host side of each kernel's contract, checked exactly.
#include "atomics.hpp"
#include "declaration.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <map>
#include <numeric>
#include <optional>

#include "synclab/reference.hpp"

using namespace synclab;

namespace lab07 {

// The kernel column of every table: as wide as the longest kernel name.
const int kNameWidth = kLab.kernel_width(14);

namespace {

template <class T> cl::Buffer buffer(Env &env, std::vector<T> v) {
    return cl::Buffer(env.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, v.size() * sizeof(T),
                      v.data());
}

template <class T> std::vector<T> read(Env &env, const cl::Buffer &b, std::size_t count) {
    std::vector<T> v(count);
    env.queue.enqueueReadBuffer(b, CL_TRUE, 0, count * sizeof(T), v.data());
    return v;
}

double launch(Env &env, cl::Kernel &k, const Setup &s) {
    cl::Event e;
    env.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(s.n), cl::NDRange(s.wg), nullptr,
                                   &e);
    e.wait();
    return event_ms(e);
}

// Sets the arguments in order; cl::Local and ints pass through.
template <class... A> void args(cl::Kernel &k, const A &...a) {
    cl_uint i = 0;
    (k.setArg(i++, a), ...);
}

// The per-kernel line: what went wrong (the first trial that did), or "verified".
struct Tally {
    int wrong_trials = 0;
    std::string first;
    std::vector<double> ms;
    void add(double t, const std::string &error) {
        ms.push_back(t);
        if (!error.empty() && wrong_trials++ == 0) first = error;
    }
    std::string text(int trials) const {
        return wrong_trials ? "WRONG in " + std::to_string(wrong_trials) + "/" +
                                  std::to_string(trials) + " trials: " + first
                            : "verified";
    }
};

std::string mismatch(const std::string &what, long got, long want) {
    return what + " is " + std::to_string(got) + ", not " + std::to_string(want);
}

uint32_t expensive(uint32_t v, int iters) {
    for (int k = 0; k < iters; ++k) v = (v ^ (v >> 13)) * 1664525u + 1013904223u;
    return v;
}

// What one float-sum launch got wrong, "" for nothing: `gave` work-items gave up where a right
// loop cannot, `spent` tries counted for c adds, the sum got against want within tol.
std::string floatsum_error(int gave, double spent, double c, double got, double want, double tol) {
    char err[200] = "";
    if (gave)
        std::snprintf(err, sizeof err, "%d work-item(s) gave up, where a right loop cannot "
                      "(%.0f on the word: at most %.0f tries each, %.0f in all)", gave, c, c,
                      c * (c + 1) / 2);
    else if (spent < c)
        std::snprintf(err, sizeof err, "%.0f tries counted for %.0f adds: every add must "
                      "end in addDone", spent, c);
    if (!*err && !within(got, want, tol))
        std::snprintf(err, sizeof err, "sum %.9g, want %.9g (tolerance %.3g)", got, want, tol);
    return err;
}

}  // namespace

const std::vector<std::string> &csv_columns() {
    static const std::vector<std::string> c{"variant", "kernel", "groups", "wg", "trials",
                                            "wrong_trials", "updates", "lost_global",
                                            "lost_local", "median_ms", "gave_up_trials",
                                            "tries_per_add"};
    return c;
}

// Verdict of a variant from its kernels' tallies; a row and a line per kernel.
static Verdict conclude(Part &p, const std::string &variant, const std::vector<std::string> &names,
                        const std::vector<Tally> &tallies) {
    Verdict v{variant, true, ""};
    for (std::size_t i = 0; i < names.size(); ++i) {
        const Tally &t = tallies[i];
        const int ran = int(t.ms.size());  // fewer than --trials where a wrong one ended them
        std::printf("%-*s median %9.4f ms  %s\n", kNameWidth, names[i].c_str(), median(t.ms),
                    t.text(ran).c_str());
        p.csv("variant", variant)("kernel", names[i])("groups", p.s.groups)("wg", p.s.wg)(
            "trials", ran)("wrong_trials", t.wrong_trials)("median_ms", median(t.ms));
        p.csv.row();
        if (t.wrong_trials && v.ok) v = {variant, false, names[i] + ": " + t.text(ran)};
    }
    if (v.ok) v.detail = std::to_string(names.size()) + " kernel(s) verified in " +
                         std::to_string(p.s.trials) + " trial(s)";
    return v;
}

Verdict Part::counts(const std::string &variant) {
    Env &env = lab.env;
    const auto &names = lab.decl.find(variant)->kernels;
    const bool demo = lab.is_demonstration(variant);
    Verdict v{variant, true, ""};
    std::map<std::string, double> ms_of;
    for (const auto &name : names) {
        cl::Kernel k(builds.program, name.c_str());
        const bool local = name != "countGlobal";
        long lost_g = 0, lost_l = 0;
        int some_g = 0, some_l = 0;
        std::vector<double> ms;
        for (int t = 0; t < s.trials; ++t) {
            cl::Buffer total = buffer(env, std::vector<int>{0});
            cl::Buffer group = buffer(env, std::vector<int>(s.groups, -1));
            args(k, total, group, cl::Local(sizeof(int)));
            ms.push_back(launch(env, k, s));
            const long lg = long(s.n) - read<int>(env, total, 1)[0];
            long ll = 0;
            if (local)
                for (int c : read<int>(env, group, s.groups)) ll += long(s.wg) - c;
            lost_g += lg, lost_l += ll, some_g += lg != 0, some_l += ll != 0;
        }
        if (!lost_g && !lost_l) ms_of[name] = median(ms);  // right answers only
        const double updates = double(s.n) * s.trials;
        std::printf("%-*s median %9.4f ms  global: %ld of %.0f updates lost (%d/%d trials)",
                    kNameWidth, name.c_str(), median(ms), lost_g, updates, some_g, s.trials);
        if (local) std::printf("  local: %ld lost (%d/%d trials)", lost_l, some_l, s.trials);
        const bool wrong = lost_g || lost_l;
        std::printf("  %s\n", !wrong ? "verified" : demo ? "WRONG (expected: the read-add-write is not atomic)"
                                                         : "WRONG");
        csv("variant", variant)("kernel", name)("groups", s.groups)("wg", s.wg)("trials", s.trials)(
            "wrong_trials", std::max(some_g, some_l))("updates", updates)("lost_global", lost_g)(
            "median_ms", median(ms));
        if (local) csv("lost_local", lost_l);
        csv.row();
        if (wrong && v.ok)
            v = {variant, false, name + ": " + std::to_string(lost_g) + " global and " +
                                     std::to_string(lost_l) + " local updates lost in " +
                                     std::to_string(s.trials) + " trial(s)"};
    }
    if (v.ok) v.detail = "no update lost in " + std::to_string(s.trials) + " trial(s)";
    if (ms_of.count("countGlobal") && ms_of.count("countTwoLevel") && ms_of["countTwoLevel"] > 0)
        std::printf("contention: countGlobal / countTwoLevel = %.2fx (one global counter for all "
                    "%zu work-items vs one global atomic per group)\n",
                    ms_of["countGlobal"] / ms_of["countTwoLevel"], s.n);
    return v;
}

Verdict Part::family(const std::string &variant) {
    Env &env = lab.env;
    const auto &names = lab.decl.find(variant)->kernels;
    const int n = int(s.n);
    std::vector<Tally> tallies(names.size());
    for (int t = 0; t < s.trials; ++t) {
        std::vector<int> in(s.n);
        for (auto &x : in) x = int(lab.rng() % (1u << 20));
        cl::Buffer inb = buffer(env, in);
        for (std::size_t ki = 0; ki < names.size(); ++ki) {
            const std::string &name = names[ki];
            std::vector<int> out;
            if (name == "histogram") out.assign(kBins, 0);
            else if (name == "extremes") out = {INT_MAX, INT_MIN};
            else if (name == "firstClaim") {
                out.assign(kSlots + s.n, -7);
                std::fill(out.begin(), out.begin() + kSlots, -1);
            } else if (name == "append") out.assign(1 + s.n, 0);
            else if (name == "countdown") out = {n, -1, 0};
            else out.assign(1 + s.n, -7), out[0] = -1;  // pushList
            cl::Buffer outb = buffer(env, out);
            cl::Kernel k(builds.program, name.c_str());
            args(k, inb, outb);
            const double ms = launch(env, k, s);
            const std::vector<int> got = read<int>(env, outb, out.size());
            std::string err;
            if (name == "histogram") {
                std::vector<int> want(kBins, 0);
                for (int x : in) ++want[x % kBins];
                for (int b = 0; b < kBins && err.empty(); ++b)
                    if (got[b] != want[b]) err = mismatch("bin " + std::to_string(b), got[b], want[b]);
            } else if (name == "extremes") {
                const auto [lo, hi] = std::minmax_element(in.begin(), in.end());
                if (got[0] != *lo - (1 << 19)) err = mismatch("the minimum", got[0], *lo - (1 << 19));
                else if (got[1] != *hi - (1 << 19)) err = mismatch("the maximum", got[1], *hi - (1 << 19));
            } else if (name == "firstClaim") {
                std::vector<int> wanted(kSlots, 0);
                for (int x : in) wanted[x % kSlots] = 1;
                const int winners = int(std::count(got.begin() + kSlots, got.end(), 1));
                const int flags = int(std::count(got.begin() + kSlots, got.end(), 0)) + winners;
                int claimed = 0;
                for (int sl = 0; sl < kSlots && err.empty(); ++sl) {
                    const int o = got[sl];
                    claimed += o != -1;
                    if (!wanted[sl] && o != -1) err = "slot " + std::to_string(sl) + " nobody wanted has owner " + std::to_string(o);
                    if (wanted[sl] && (o < 0 || o >= n || in[o] % kSlots != sl || got[kSlots + o] != 1))
                        err = "slot " + std::to_string(sl) + " has owner " + std::to_string(o) + ", not one of the work-items that asked and won";
                }
                if (err.empty() && flags != n) err = mismatch("work-items that wrote a won flag (0 or 1)", flags, n);
                if (err.empty() && winners != claimed) err = mismatch("winners", winners, claimed);
            } else if (name == "append") {
                std::vector<int> want;
                for (int x : in) if (x & 1) want.push_back(x);
                if (got[0] != int(want.size())) err = mismatch("the list's length", got[0], long(want.size()));
                else {
                    std::vector<int> list(got.begin() + 1, got.begin() + 1 + got[0]);
                    std::sort(list.begin(), list.end());
                    std::sort(want.begin(), want.end());
                    if (list != want) err = "the list does not hold the odd inputs, each once";
                }
            } else if (name == "countdown") {
                if (got[0] != 0) err = mismatch("the countdown", got[0], 0);
                else if (got[2] != 1) err = mismatch("work-items that were last", got[2], 1);
                else if (got[1] < 0 || got[1] >= n) err = "the last one out wrote id " + std::to_string(got[1]);
            } else {  // pushList
                std::vector<char> seen(s.n, 0);
                int at = got[0], steps = 0;
                for (; at != -1 && steps <= n && err.empty(); ++steps, at = got[1 + at])
                    if (at < 0 || at >= n || seen[at]++) err = "the list reaches id " + std::to_string(at) + " twice or out of range";
                if (err.empty() && steps != n) err = mismatch("ids on the list", steps, n);
            }
            tallies[ki].add(ms, err);
        }
    }
    return conclude(*this, variant, names, tallies);
}

Verdict Part::lock(const std::string &variant) {
    Env &env = lab.env;
    const std::string &name = lab.kernel_name(variant);
    cl::Kernel k(builds.of(variant), name.c_str());
    Tally tally;
    int gave_up = 0;
    for (int t = 0; t < s.trials; ++t) {
        std::vector<int> value(s.groups);
        for (auto &x : value) x = 1 + int(lab.rng() % 1000);
        cl::Buffer vb = buffer(env, value), lockb = buffer(env, std::vector<int>{s.held ? 1 : 0}),
                   rec = buffer(env, std::vector<int>{0, 0}),
                   log = buffer(env, std::vector<int>(s.groups, -1)),
                   gave = buffer(env, std::vector<int>{0});
        args(k, vb, lockb, rec, log, gave);
        const double ms = launch(env, k, s);
        const int g = read<int>(env, gave, 1)[0];
        const std::vector<int> r = read<int>(env, rec, 2), l = read<int>(env, log, s.groups);
        std::string err;
        if (g) {
            gave_up += g;
            err = std::to_string(g) + "/" + std::to_string(s.groups) + " group(s) gave up";
        } else if (r[1] != int(s.groups)) err = mismatch("the count", r[1], long(s.groups));
        else if (r[0] != std::accumulate(value.begin(), value.end(), 0))
            err = mismatch("the sum", r[0], std::accumulate(value.begin(), value.end(), 0));
        else {
            // Each logged sum is the previous plus one group's value, each value used once.
            std::vector<int> steps(s.groups);
            for (std::size_t i = 0; i < s.groups; ++i) steps[i] = l[i] - (i ? l[i - 1] : 0);
            std::sort(steps.begin(), steps.end());
            std::sort(value.begin(), value.end());
            if (steps != value) err = "the log's steps are not the groups' values: a holder read a stale record";
        }
        tally.add(ms, err);
        // On Oclgrind each trial is a schedule of its own and one wrong decides the verdict; a lock
        // that deadlocks would spend the detector's whole budget again in every later one.
        if (!err.empty() && env.info.is_oclgrind()) break;
    }
    if (gave_up)
        std::printf("%s: %d group(s) in all gave up after --spins %d tries each: the lock was "
                    "never released (or was held longer than that)\n",
                    name.c_str(), gave_up, s.spins);
    return conclude(*this, variant, {name}, {tally});
}

std::optional<Verdict> Part::floatsum(const std::string &variant) {
    Env &env = lab.env;
    const auto &names = lab.decl.find(variant)->kernels;
    std::vector<Tally> tallies(names.size());
    std::vector<int> gave_up(names.size(), 0);
    std::vector<double> tries(names.size(), 0);
    for (int t = 0; t < s.trials; ++t) {
        const std::vector<float> x = inputs(s.n, lab.opt.exact, lab.rng);
        double want = 0, abs_sum = 0;
        for (float f : x) want += f, abs_sum += std::abs(f);
        cl::Buffer xb = buffer(env, x);
        for (std::size_t ki = 0; ki < names.size(); ++ki) {
            cl::Kernel k(builds.program, names[ki].c_str());
            cl::Buffer sum = buffer(env, std::vector<float>{0.f}),
                       status = buffer(env, std::vector<int>{0, 0, 0});
            args(k, xb, sum, cl::Local(s.wg * sizeof(float)), status);
            const double ms = launch(env, k, s);
            const double got = read<float>(env, sum, 1)[0];
            const std::vector<int> st = read<int>(env, status, 3);
            // c work-items on the word: a correct loop tries at most c times each, c(c+1)/2 in
            // all; within both budgets, giving up proves the loop wrong.
            const double c = ki == 0 ? double(s.n) : double(s.groups);
            const bool cannot_give_up = c <= s.spins && c * (c + 1) / 2 < double(s.cas_budget);
            const double spent = double(st[1]) * kCasChunk + st[2];
            if (st[0] && !cannot_give_up) {
                ++gave_up[ki];
                tallies[ki].ms.push_back(ms);
                continue;
            }
            // The compare-and-swap adds in whatever order the work-items come: up to all n one
            // after another; the tree's group sums, one after another.
            const double tol = lab.opt.exact ? 0 : tolerance(s.n, abs_sum, size_t(c));
            const std::string err = floatsum_error(st[0], spent, c, got, want, tol);
            if (err.empty()) tries[ki] += spent / c;
            tallies[ki].add(ms, err);
        }
    }
    Verdict v{variant, true, ""};
    std::string skipped;
    for (std::size_t i = 0; i < names.size(); ++i) {
        const Tally &t = tallies[i];
        const int measured = s.trials - gave_up[i];
        std::string text = t.text(measured);
        if (gave_up[i]) {
            const std::string wrong = t.wrong_trials ? text + "; " : "";
            char why[320];
            std::snprintf(why, sizeof why, "gave up in %d/%d trials: a work-item reached --spins %d "
                          "tries, or the launch its --cas-budget of %lld, with %zu work-items on "
                          "one word (a right loop may take up to n tries each, n(n+1)/2 in all): "
                          "not measured", gave_up[i], s.trials, s.spins, s.cas_budget,
                          i == 0 ? s.n : s.groups);
            text = wrong + why;
            if (skipped.empty()) skipped = names[i] + " " + why;
        }
        std::printf("%-*s median %9.4f ms  %s", kNameWidth, names[i].c_str(), median(t.ms), text.c_str());
        if (measured && !t.wrong_trials) std::printf("  (%.2f tries per add)", tries[i] / measured);
        std::printf("\n");
        csv("variant", variant)("kernel", names[i])("groups", s.groups)("wg", s.wg)(
            "trials", s.trials)("wrong_trials", t.wrong_trials)("median_ms", median(t.ms))(
            "gave_up_trials", gave_up[i]);
        if (measured && !t.wrong_trials) csv("tries_per_add", tries[i] / measured);
        csv.row();
        if (t.wrong_trials && v.ok) v = {variant, false, names[i] + ": " + t.text(measured)};
    }
    if (!tallies[0].wrong_trials && !tallies[1].wrong_trials && !gave_up[0] && !gave_up[1] &&
        median(tallies[1].ms) > 0)
        std::printf("cost: floatSumCAS / floatSumTree = %.2fx\n",
                    median(tallies[0].ms) / median(tallies[1].ms));
    if (v.ok && !skipped.empty()) {  // not wrong, and not measured: said, never a pass
        lab.skipped(variant, skipped);
        return std::nullopt;
    }
    if (v.ok) v.detail = std::to_string(names.size()) + " kernel(s) verified in " +
                         std::to_string(s.trials) + " trial(s)";
    return v;
}

Verdict Part::vote(const std::string &variant) {
    Env &env = lab.env;
    const bool ballot = variant == "vote_ballot", sub = ballot || variant == "vote_subgroup";
    const auto &names = lab.decl.find(variant)->kernels;
    std::vector<Tally> tallies(names.size());
    for (int t = 0; t < s.trials; ++t) {
        std::vector<uint32_t> x(s.n), want(s.n);
        std::vector<int> need(s.n, 0), votes(2 * s.groups, 0);
        for (auto &v : x) v = uint32_t(lab.rng());
        for (std::size_t g = 0; g < s.groups; ++g) {
            // One group in need_every has one work-item that needs it; with three or more
            // groups, the last one needs it everywhere (its all-vote is 1).
            if (g % s.need_every == 0) need[g * s.wg + lab.rng() % s.wg] = 1;
            if (s.groups >= 3 && g == s.groups - 1)
                std::fill(need.begin() + g * s.wg, need.begin() + (g + 1) * s.wg, 1);
            const auto first = need.begin() + g * s.wg, last = first + s.wg;
            votes[2 * g] = ballot ? int(std::count(first, last, 1))
                                  : int(std::find(first, last, 1) != last);
            votes[2 * g + 1] = std::find(first, last, 0) == last;
        }
        for (std::size_t i = 0; i < s.n; ++i) want[i] = need[i] ? expensive(x[i], s.iters) : x[i];
        cl::Buffer xb = buffer(env, x), nb = buffer(env, need);
        // voteSubgroup and voteBallot fold their sub-groups' votes into any (or count) = 0 and
        // all = 1.
        std::vector<int> start(2 * s.groups, -1);
        if (sub)
            for (std::size_t j = 0; j < start.size(); ++j) start[j] = j % 2;
        for (std::size_t ki = 0; ki < names.size(); ++ki) {
            cl::Kernel k(builds.of(variant), names[ki].c_str());
            cl::Buffer out = buffer(env, std::vector<uint32_t>(s.n, 0)), vb = buffer(env, start);
            args(k, xb, nb, out, vb, cl_int(s.iters), cl::Local(2 * sizeof(int)));
            const double ms = launch(env, k, s);
            const auto got = read<uint32_t>(env, out, s.n);
            const auto gv = read<int>(env, vb, 2 * s.groups);
            std::string err;
            for (std::size_t i = 0; i < s.n && err.empty(); ++i)
                if (got[i] != want[i]) err = "out[" + std::to_string(i) + "] is wrong";
            for (std::size_t j = 0; j < gv.size() && err.empty(); ++j)
                if (gv[j] != votes[j])
                    err = mismatch(std::string(j % 2    ? "the all-vote"
                                               : ballot ? "the count"
                                                        : "the any-vote") + " of group " +
                                       std::to_string(j / 2), gv[j], votes[j]);
            tallies[ki].add(ms, err);
        }
    }
    const Verdict v = conclude(*this, variant, names, tallies);
    if (!sub && !tallies[0].wrong_trials && !tallies[1].wrong_trials && median(tallies[0].ms) > 0)
        std::printf("vote: alwaysTake / voteSkip = %.2fx (one group in %d needs the branch, %d "
                    "turns)\n", median(tallies[1].ms) / median(tallies[0].ms), s.need_every, s.iters);
    return v;
}

Verdict Part::syncreduce(const std::string &variant) {
    Env &env = lab.env;
    const std::string &name = lab.kernel_name(variant);
    cl::Kernel k(builds.of(variant), name.c_str());
    Tally tally;
    for (int t = 0; t < s.trials; ++t) {
        // Groups in turn: all true, all false, half at random, exactly one true.
        std::vector<int> pred(s.n, 0);
        for (std::size_t g = 0; g < s.groups; ++g)
            for (std::size_t j = 0; j < s.wg; ++j)
                pred[g * s.wg + j] = g % 4 == 0 ? 1 : g % 4 == 1 ? 0 : g % 4 == 2 ? int(lab.rng() & 1) : 0;
        for (std::size_t g = 3; g < s.groups; g += 4) pred[g * s.wg + lab.rng() % s.wg] = 1;
        cl::Buffer pb = buffer(env, pred), rb = buffer(env, std::vector<int>(3 * s.n, -1));
        args(k, pb, rb, cl::Local(sizeof(int)));
        const double ms = launch(env, k, s);
        const auto got = read<int>(env, rb, 3 * s.n);
        std::string err;
        for (std::size_t g = 0; g < s.groups && err.empty(); ++g) {
            const int c = int(std::count(pred.begin() + g * s.wg, pred.begin() + (g + 1) * s.wg, 1));
            const int want[3] = {c, c == int(s.wg), c > 0};
            for (std::size_t i = g * s.wg; i < (g + 1) * s.wg && err.empty(); ++i)
                for (int w = 0; w < 3 && err.empty(); ++w)
                    if (got[3 * i + w] != want[w])
                        err = mismatch(std::string(w == 0 ? "the count" : w == 1 ? "the and" : "the or") +
                                           " work-item " + std::to_string(i) + " got", got[3 * i + w], want[w]);
        }
        tally.add(ms, err);
    }
    return conclude(*this, variant, {name}, {tally});
}

}  // namespace lab07
