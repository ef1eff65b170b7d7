// Lab 07: atomics, voting and locks. Work-items that update one counter with count++ lose
// updates, atomic_inc does not; then the rest of the atomic family, a float sum built from
// compare-and-swap, a global spin lock (also with OpenCL 2.0 fences), a work-group vote (also
// with a sub-group ballot) and a barrier that also counts (also with OpenCL 2.0's built-ins).
#include <climits>
#include <cstdio>

#include "atomics.hpp"
#include "declaration.hpp"
#include "synclab/lab.hpp"
#include "synclab/reference.hpp"
#include "synclab/workgroup.hpp"

using namespace synclab;
using lab07::Setup;

// The lab's own options and the sizes, each checked against what the kernels can take.
static Setup setup(Lab &lab) {
    const Options &o = lab.opt;
    const DeviceInfo &dev = lab.env.info;
    const cxxopts::ParseResult &x = o.extra;
    Setup s;
    s.wg = pow2_work_group_size(o, dev.max_wg);
    if (o.n) throw UsageError("-n is not used by lab 07: give --groups and --wg");
    // Enough groups to fill the device; on Oclgrind two, which meet (oclgrind_groups) for hbcheck.
    s.groups = lab.groups_or(dev.is_oclgrind() ? 2 : 0);
    s.trials = lab.trials_or(dev.is_oclgrind() ? 1 : 5);
    s.spins = x["spins"].as<int>();
    s.held = x.count("held") > 0;
    s.iters = x["iters"].as<int>();
    s.need_every = x["need-every"].as<int>();
    if (dev.is_oclgrind() && !x.count("iters")) s.iters = 8;
    // On Oclgrind a right lock is held for a few simulated instructions while the others spin
    // (four groups at once, a thread each, on however many cores): 65536 tries leave room for a
    // holder descheduled on a loaded machine, where a lock never released would spin a million
    // simulated tries (seconds) before it gives up.
    if (dev.is_oclgrind() && !x.count("spins")) s.spins = 65536;
    if (s.spins < 1) throw UsageError("--spins " + std::to_string(s.spins) + " must be at least 1: use --spins 1000000");
    if (s.iters < 0 || s.iters > (1 << 20))
        throw UsageError("--iters " + std::to_string(s.iters) + " is out of range: use 0 to 1048576");
    const long long budget = x["cas-budget"].as<long long>();
    s.cas_budget = budget / lab07::kCasChunk * lab07::kCasChunk;
    if (s.cas_budget < lab07::kCasChunk || budget / lab07::kCasChunk > INT_MAX)
        throw UsageError("--cas-budget " + std::to_string(budget) + " is out of range: use 1024 to "
                         "2^41 tries (default 2^31)");
    if (s.need_every < 1)
        throw UsageError("--need-every " + std::to_string(s.need_every) + " must be at least 1: use --need-every 16");
    if (s.groups > (std::size_t(1) << 30) / s.wg)
        throw UsageError("--groups " + std::to_string(s.groups) + " x --wg " + std::to_string(s.wg) +
                         " is more than 2^30 work-items: use fewer --groups");
    s.n = s.groups * s.wg;
    require_fits(dev, "--groups", s.groups, 3 * s.wg, sizeof(int));
    if (o.exact) check_exact_fits(s.n, kExactMost, "--groups", s.groups);
    return s;
}

static int run(Lab &lab) {
    const Setup s = setup(lab);
    const DeviceInfo &dev = lab.env.info;
    char defines[200];
    std::snprintf(defines, sizeof defines, "-D SPIN_BUDGET=%d -D BINS=%d -D SLOTS=%d -D CAS_CHUNK=%d "
                  "-D CAS_BUDGET=%lld", s.spins, lab07::kBins, lab07::kSlots, lab07::kCasChunk,
                  s.cas_budget / lab07::kCasChunk);
    // Build and check every kernel before printing anything: a bad --wg is one line. The
    // sub-group part and the OpenCL 2.0 part are built where this device has what they need.
    lab07::Builds builds = lab07::build(lab, s, defines);
    std::vector<std::string> variants, skipped;
    for (const auto &v : lab.selected_variants()) {
        const auto why = builds.why_not.find(v);
        if (why == builds.why_not.end()) variants.push_back(v);
        else if (lab.opt.variant != v) skipped.push_back(v);
        else if (builds.at_this_wg.count(v))
            throw Unsupported("--variant " + v + " cannot run at --wg " + std::to_string(s.wg) +
                              " on " + dev.name + ": " + why->second);
        else
            throw Unsupported("--variant " + v + " cannot run on " + dev.name + ": " + why->second +
                              "; pick a device whose --list-devices row has it (POCL 5: see the "
                              "handout)");
    }

    char what[200];
    std::snprintf(what, sizeof what, "%zu group(s) x %zu work-items, %d trial(s), spins at most %d%s",
                  s.groups, s.wg, s.trials, s.spins, s.held ? ", the lock held and never released" : "");
    lab.banner(what);
    Csv csv = lab.csv(lab07::csv_columns());
    lab07::Part part{lab, s, builds, csv};

    std::vector<Verdict> verdicts;
    for (const auto &v : variants) {
        if (v == "plain" || v == "atomic") verdicts.push_back(part.counts(v));
        else if (v == "family") verdicts.push_back(part.family(v));
        else if (v.rfind("lock", 0) == 0) verdicts.push_back(part.lock(v));
        else if (v == "floatsum") {
            if (auto verdict = part.floatsum(v)) verdicts.push_back(*verdict);
        } else if (v.rfind("vote", 0) == 0) verdicts.push_back(part.vote(v));
        else verdicts.push_back(part.syncreduce(v));
    }
    for (const auto &v : skipped) {
        std::printf("%-*s skipped: %s\n", kLab.kernel_width(14), lab.kernel_name(v).c_str(),
                    builds.why_not[v].c_str());
        lab.skipped(v, builds.why_not[v]);
    }
    return lab.exit_code(verdicts);
}

int main(int argc, char **argv) { return run_lab(argc, argv, kLab, run); }
