// Lab 07: atomics, voting and locks. Work-items that update one counter with count++ lose
// updates, atomic_inc does not; then the rest of the atomic family, a float sum built from
// compare-and-swap, a global spin lock, a work-group vote and a barrier that also counts.
#include <cstdio>

#include "atomics.hpp"
#include "declaration.hpp"
#include "synclab/lab.hpp"
#include "synclab/reference.hpp"
#include "synclab/subgroup_part.hpp"
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
    // Enough groups to fill the device; Oclgrind runs one group at a time and sees every race.
    s.groups = lab.groups_or(dev.is_oclgrind() ? 2 : 0);
    s.trials = lab.trials_or(dev.is_oclgrind() ? 1 : 5);
    s.spins = x["spins"].as<int>();
    s.held = x.count("held") > 0;
    s.iters = x["iters"].as<int>();
    s.need_every = x["need-every"].as<int>();
    if (dev.is_oclgrind() && !x.count("iters")) s.iters = 8;
    if (s.spins < 1) throw UsageError("--spins " + std::to_string(s.spins) + " must be at least 1: use --spins 1000000");
    if (s.iters < 0 || s.iters > (1 << 20))
        throw UsageError("--iters " + std::to_string(s.iters) + " is out of range: use 0 to 1048576");
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
    char defines[160];
    std::snprintf(defines, sizeof defines, "-D SPIN_BUDGET=%d -D BINS=%d -D SLOTS=%d", s.spins,
                  lab07::kBins, lab07::kSlots);
    // Build and check every kernel before printing anything: a bad --wg is one line.
    cl::Program program = lab.program(defines);
    // The sub-group vote lives in a build of its own, compiled on every device (against
    // stand-ins where there are no sub-groups): a mistake in it is a compile error everywhere.
    SubgroupPart sg = build_subgroup_part(lab, defines);
    std::vector<std::string> variants;
    bool skipped = false;  // vote_subgroup, where there are no sub-groups
    for (const auto &v : lab.selected_variants()) {
        if (v == "vote_subgroup" && !sg.runs) {
            if (lab.opt.variant == v)
                throw Unsupported("--variant vote_subgroup cannot run on " + dev.name + ": " +
                                  sg.support.why_not + " (it compiles); pick a device whose "
                                  "--list-devices row says subgroups yes (POCL 4 or later)");
            skipped = true;
            continue;
        }
        variants.push_back(v);
        for (const auto &name : lab.decl.find(v)->kernels)
            check_launch(cl::Kernel(v == "vote_subgroup" ? sg.program : program, name.c_str()),
                         dev.device, s.wg, v == "floatsum" ? s.wg * sizeof(float) : 2 * sizeof(int));
    }

    char what[200];
    std::snprintf(what, sizeof what, "%zu group(s) x %zu work-items, %d trial(s), spins at most %d%s",
                  s.groups, s.wg, s.trials, s.spins, s.held ? ", the lock held and never released" : "");
    lab.banner(what);
    Csv csv = lab.csv(lab07::csv_columns());
    lab07::Part part{lab, s, program, csv, sg.runs ? &sg.program : nullptr};

    std::vector<Verdict> verdicts;
    for (const auto &v : variants) {
        if (v == "plain" || v == "atomic") verdicts.push_back(part.counts(v));
        else if (v == "family") verdicts.push_back(part.family(v));
        else if (v == "lock" || v == "lock_nofence") verdicts.push_back(part.lock(v));
        else if (v == "floatsum") verdicts.push_back(part.floatsum(v));
        else if (v == "vote" || v == "vote_subgroup") verdicts.push_back(part.vote(v));
        else verdicts.push_back(part.syncreduce(v));
    }
    if (skipped) {
        std::printf("%-14s skipped: %s\n", "voteSubgroup", sg.not_checked().c_str());
        lab.skipped("vote_subgroup", sg.not_checked());
    }
    return lab.exit_code(verdicts);
}

int main(int argc, char **argv) { return run_lab(argc, argv, kLab, run); }
