// Lab 09: barriers between work-groups. The same stepped workload synchronised four ways: one
// launch per step (the host or the queue is the barrier), a centralized and a decentralized
// barrier inside one launch, and the decentralized one among the groups an occupancy discovery
// found resident. Every wait is bounded: launched past what is resident, a barrier gives up.
#include <algorithm>
#include <cstdio>

#include "declaration.hpp"
#include "host_barrier.hpp"
#include "methods.hpp"
#include "synclab/lab.hpp"
#include "synclab/program_text.hpp"  // active_profile: a graded run
using namespace synclab;

static Workload workload(const Lab &lab) {
    const DeviceInfo &dev = lab.env.info;
    const cxxopts::ParseResult &x = lab.opt.extra;
    const bool og = dev.is_oclgrind(), cpu = dev.is_cpu();
    auto pick = [&](const char *name, unsigned oclgrind, unsigned cpu_v, unsigned gpu) {
        return x.count(name) ? x[name].as<unsigned>() : og ? oclgrind : cpu ? cpu_v : gpu;
    };
    Workload w;
    w.wg = lab.opt.wg ? lab.opt.wg : std::min<std::size_t>(og ? 16 : 64, dev.max_wg);
    w.n = lab.opt.n ? lab.opt.n : og ? 64 : 4096;
    w.steps = x["steps"].as<unsigned>();
    w.work = x["work"].as<unsigned>();
    // A spin poll costs about 1 ns on a CPU core, about 1 us on a GPU, far more on Oclgrind.
    w.budget = pick("budget", 1u << 18, 1u << 27, 1u << 21);
    w.skew = pick("skew", 0, 1u << 12, 1u << 10);
    // On a GPU the quiet window is 512 polls (0.75 ms on an H100 at 4224 groups of 64).
    // CPU: volatile polls of about 1 ns each, or 6-11 ns in a stress run's unoptimised build, so
    // there 2^21 keep the same quiet window (about 16 ms), longer than a descheduled thread's wait.
    // Oclgrind's schedule (--schedule) lets every newcomer in before a poll repeats itself long;
    // its patience (2^14 vain polls) must outlast the quiet window.
    w.grace = pick("grace", lab.opt.schedule ? 1u << 10 : 1u << 15,
                   lab.opt.stress ? 1u << 21 : 1u << 24, 1u << 9);
    if (w.n < 2 || w.n > (std::size_t(1) << 28))
        throw UsageError("-n " + std::to_string(w.n) + " is out of range: use -n 2 to 268435456");
    if (w.steps < 1 || w.steps > 100000)
        throw UsageError("--steps " + std::to_string(w.steps) + " is out of range: use 1 to 100000");
    if (w.budget < 16) throw UsageError("--budget must be at least 16 polls");
    if (lab.opt.exact)
        throw UsageError("--exact is for the labs that add floats; lab 09's integers are always "
                         "compared exactly: leave out --exact");
    // Last: a device limit makes the run "not checked" for the grader, a bad option never does.
    if (w.wg > dev.max_wg)
        throw Unsupported("--wg " + std::to_string(w.wg) + " is more than this device's largest "
                         "work-group: use --wg " + std::to_string(dev.max_wg) + " or less");
    return w;
}

// On a CPU: the same steps on the host, C++20's std::barrier between them, a thread per core
// (the OS runs every thread, so unlike a group that never started, none is waited for forever).
// A comparison, not a check: graded and stress runs leave it out. False when it went wrong.
static bool std_barrier_peer(Lab &lab, Steps &steps, const Workload &w, int width, double best_us) {
    const DeviceInfo &dev = lab.env.info;
    if (!dev.is_cpu() || dev.is_oclgrind() || active_profile() || lab.opt.stress) return true;
    const HostBarrier h = time_std_barrier(steps.input(), steps.want(w.steps, w.work), w,
                                           dev.compute_units, lab.trials_or(1));
    const double us = h.ms * 1000 / w.steps;
    std::printf("%-*s %7u %6u %10.3f %12.2f  %s\n", width, "std::barrier (host)", h.threads,
                h.threads, h.ms, us, h.ok ? "matches the reference" : ("WRONG: " + h.wrong).c_str());
    if (h.ok && best_us > 0)
        std::printf("std::barrier over %u host threads: %.2f us per step; the best barrier "
                    "inside one launch takes %.2fx that\n", h.threads, us, best_us / us);
    return h.ok;
}

static int run(Lab &lab) {
    const DeviceInfo &dev = lab.env.info;
    const Workload w = workload(lab);
    const std::string sweep = lab.opt.extra.count("sweep") ? lab.opt.extra["sweep"].as<std::string>() : "";
    if (!sweep.empty() && sweep != "groups" && sweep != "steps" && sweep != "occupancy")
        throw UsageError("unknown --sweep '" + sweep + "': use groups, steps or occupancy");
    const bool given = lab.opt.extra.count("groups") && lab.opt.groups;
    if (lab.opt.extra.count("groups") && !lab.opt.groups)
        throw UsageError("--groups 0 is no number of groups: leave it out to use the groups "
                         "discovered resident, or give 1 or more");
    Methods m(lab, w);  // builds every selected kernel (and c11 where it can be built)
    Steps steps(lab.env, w.n, lab.rng);
    const std::size_t probe = std::max<std::size_t>(64, std::size_t(dev.compute_units) * 64);
    const std::size_t occ = steps.discover(m.discovery, probe, w);
    // Without --groups: the barriers get the groups discovery found running at once; relaunch and
    // discovered get one group per chunk of the work, however many that is.
    // At least one group per compute unit is resident whatever discovery saw (POCL: a thread each).
    const std::size_t naive = given ? lab.opt.groups : std::max<std::size_t>(occ, dev.compute_units);
    const std::size_t natural = given ? lab.opt.groups : (w.n + w.wg - 1) / w.wg;  // a chunk each

    char what[300];
    std::snprintf(what, sizeof what, "n = %zu, %u steps, work %u, groups of %zu; discovery: %zu "
                  "of %zu groups resident at once (%u compute units), in %.3f ms%s", w.n, w.steps,
                  w.work, w.wg, occ, probe, dev.compute_units, steps.discovery_ms,
                  steps.discovery_tries == 1 ? ""
                  : occ ? " (a try before this one had a wait run out: the host is busy)"
                        : " (every try had a wait run out: the host is busy)");
    lab.banner(what);
    if (!sweep.empty()) return run_sweep(lab, m, steps, w, occ, sweep);

    Csv csv = lab.csv({"method", "groups", "parts", "steps", "work", "n", "wg", "ms",
                       "per_sync_us", "verified", "gave_up"});
    int width = 15;  // "kernel (method)", or the longest label
    for (const Method &mm : m.list)
        width = std::max({width, int(mm.label.size()), int(mm.kernel_name.size())});
    std::printf("%-*s %7s %6s %10s %12s  %s\n", width, "kernel (method)", "groups", "took", "ms",
                "us per step", "result");
    std::vector<Verdict> verdicts;
    double wait_us = 0, queue_us = 0, best_us = 0;
    for (Method &mm : m.list) {
        if (!mm.skipped.empty()) {
            std::printf("%-*s not run: %s\n", width, mm.kernel_name.c_str(), mm.skipped.c_str());
            lab.skipped(mm.variant, mm.skipped);
            continue;
        }
        const std::size_t groups = mm.how != How::InKernel || mm.discovered ? natural : naive;
        const Outcome o = run_median(steps, mm, groups, w, lab.trials_or(1));
        const double us = o.ms * 1000 / w.steps;
        if (mm.how == How::InKernel) lab.groups_met(mm.variant, o.parts);
        const std::string result = lab.result_text(mm.variant, o.ok(), o.text());  // c11: optional
        std::printf("%-*s %7zu %6zu %10.3f %12.2f  %s\n", width, mm.label.c_str(), o.launched, o.parts,
                    o.ms, us, result.c_str());
        if (mm.how == How::RelaunchWait) wait_us = us;
        if (mm.how == How::RelaunchQueue) queue_us = us;
        const bool graded_barrier = mm.how == How::InKernel && !lab.is_demonstration(mm.variant);
        if (graded_barrier && o.ok() && o.parts > 1 && (best_us == 0 || us < best_us)) best_us = us;
        csv("method", mm.name)("groups", o.launched)("parts", o.parts)("steps", w.steps)(
            "work", w.work)("n", w.n)("wg", w.wg)("ms", o.ms)("per_sync_us", us)(
            "verified", o.ok())("gave_up", o.gave_up);
        csv.row();
        // relaunch's two rows make one verdict: wrong when either is.
        if (!verdicts.empty() && verdicts.back().variant == mm.variant) {
            if (!o.ok()) verdicts.back() = {mm.variant, false, mm.label + ": " + result};
        } else {
            verdicts.push_back({mm.variant, o.ok(), mm.label + ": " + result});
        }
    }
    const bool peer_wrong = !std_barrier_peer(lab, steps, w, width, best_us);
    if (best_us > 0 && wait_us > 0)
        std::printf("best barrier inside one launch: %.2f us per step; relaunch with the host "
                    "waiting costs %.2gx that, back-to-back relaunch %.2gx%s\n", best_us,
                    wait_us / best_us, queue_us / best_us,
                    w.skew ? " (the barriers' groups held back by --skew; --sweep steps times "
                             "them in step)" : "");
    if (naive > occ && !dev.is_oclgrind())
        std::printf("%zu groups asked for, %zu found resident: a barrier over all of them waits "
                    "for groups that cannot start until it ends\n", naive, occ);
    const int code = lab.exit_code(verdicts);
    return peer_wrong ? std::max(code, 1) : code;  // a wrong peer is a wrong result
}

int main(int argc, char **argv) { return run_lab(argc, argv, kLab, run); }
