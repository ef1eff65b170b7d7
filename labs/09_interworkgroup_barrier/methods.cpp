// For lab 09: building the methods' kernels, and the sweeps (methods.hpp).
#include "methods.hpp"

#include <cstdio>
#include <map>

#include "synclab/program_text.hpp"

namespace synclab {

Methods::Methods(Lab &lab, const Workload &w) {
    const cl::Program program = lab.program();
    discovery = cl::Kernel(program, "discoverOccupancy");
    check_launch(discovery, lab.env.info.device, w.wg, 0);
    for (const std::string &v : lab.selected_variants()) {
        Method m{v, v, lab.kernel_name(v), "", How::InKernel, v == "discovered", {}, ""};
        m.label = m.kernel_name + " (" + v + ")";
        if (v == "c11") {
            const std::string std = synclab::c11_std(lab.env.info.device);
            cl_int err = CL_SUCCESS;
            if (std.empty()) {
                m.skipped = "an OpenCL 1.x device: no C11 atomics";
            } else {
                // The same file, built again as OpenCL C 2.0/3.0: a compiler that refuses the
                // version only skips this variant (the 1.2 build above has checked the file).
                try {
                    const cl::Program p3 = lab.program(std);
                    m.kernel = cl::Kernel(p3, m.kernel_name.c_str(), &err);
                } catch (const cl::Error &e) {  // exceptions on: a missing kernel throws
                    err = e.err();
                } catch (const BuildError &e) {
                    m.skipped = "the compiler refused " + std + ": " + e.first_error;
                }
                if (err != CL_SUCCESS && m.skipped.empty())
                    m.skipped = "its OpenCL C has no device-scope atomics (" + std +
                                " built without the kernel)";
            }
            if (!m.skipped.empty()) {
                list.push_back(m);
                continue;
            }
        } else {
            m.kernel = cl::Kernel(program, m.kernel_name.c_str());
        }
        check_launch(m.kernel, lab.env.info.device, w.wg, 0);
        if (v == "relaunch") {
            m.how = How::RelaunchWait;
            m.name = "relaunch_wait";
            m.label = m.kernel_name + " (host waits)";
            list.push_back(m);
            m.how = How::RelaunchQueue;
            m.name = "relaunch_queue";
            m.label = m.kernel_name + " (back to back)";
        }
        list.push_back(m);
    }
}

const Method *Methods::find(const std::string &name) const {
    for (const Method &m : list)
        if (m.name == name && m.skipped.empty()) return &m;
    return nullptr;
}

Outcome run_median(Steps &steps, const Method &mm, std::size_t groups, const Workload &w,
                   int trials) {
    std::vector<double> ms;
    Outcome o;
    for (int t = 0; t < trials && (t == 0 || o.ok()); ++t) {
        o = steps.run(const_cast<cl::Kernel &>(mm.kernel), mm.how, groups, w, mm.discovered);
        ms.push_back(o.ms);
    }
    o.ms = median(ms);
    return o;
}

// 1 to `most`: every count up to 16, then powers of two and `most` itself.
static std::vector<std::size_t> group_counts(std::size_t most) {
    std::vector<std::size_t> g;
    for (std::size_t i = 1; i <= most; i = i < 16 ? i + 1 : i * 2) g.push_back(i);
    if (g.back() != most) g.push_back(most);
    return g;
}

// Per-step cost over 3000 steps, where the launch and the discovery spread thin, and the
// relaunches against the best barrier inside one launch.
static void print_step_costs(std::map<std::string, std::map<unsigned, double>> &steps_ms) {
    double best = 0, wait = 0, queue = 0;
    for (auto &[name, t] : steps_ms) {
        const double us = t[3000] * 1000 / 3000;
        std::printf("%-15s %8.2f us per step over 3000 steps\n", name.c_str(), us);
        if (name == "relaunch_wait") wait = us;
        else if (name == "relaunch_queue") queue = us;
        else if (best == 0 || us < best) best = us;
    }
    if (best > 0)
        std::printf("best barrier inside one launch: relaunch with the host waiting costs "
                    "%.2gx as much per step, back-to-back relaunch %.2gx\n", wait / best,
                    queue / best);
}

// Occupancy: discovered vs compute units vs the largest count that does not give up, per --wg.
static void occupancy_sweep(Lab &lab, Methods &m, Steps &steps, const Workload &w, Csv &csv,
                            const std::string &sweep) {
    const Method *c = m.find("centralized");
    if (!c) throw UsageError("--sweep occupancy runs the centralized barrier: add it to --variant");
    for (std::size_t wg : {1, 16, 64, 256, 1024}) {
        if (wg > lab.env.info.max_wg) continue;
        Workload ww = w;
        ww.wg = wg;
        ww.steps = 4;
        const std::size_t probe = std::max<std::size_t>(64, lab.env.info.compute_units * 64);
        const std::size_t found = steps.discover(m.discovery, probe, ww);
        // Up from what discovery found until a barrier gives up (at most twice as many).
        std::size_t ok = 0, step = std::max<std::size_t>(1, found / 16);
        for (std::size_t g = std::max<std::size_t>(found, 2) - 1; g <= 2 * found + 2; g += step) {
            auto &k = const_cast<cl::Kernel &>(c->kernel);
            if (!steps.run(k, How::InKernel, g, ww).ok()) break;
            ok = g;
        }
        std::printf("wg %5zu: discovered %5zu, compute units %3u, largest that did not give up "
                    "%5zu, recall %.0f%%\n", wg, found, lab.env.info.compute_units, ok,
                    ok ? 100.0 * found / ok : 0.0);
        csv("sweep", sweep)("method", "centralized")("wg", wg)("discovered", found)(
            "compute_units", lab.env.info.compute_units)("largest_ok", ok);
        csv.row();
    }
}

int run_sweep(Lab &lab, Methods &m, Steps &steps, const Workload &w, std::size_t occ,
              const std::string &sweep) {
    Csv csv = lab.csv({"sweep", "method", "groups", "parts", "steps", "work", "n", "wg", "ms",
                       "per_sync_us", "sync_bytes", "verified", "gave_up", "discovered",
                       "compute_units", "largest_ok"});
    bool bad = false;
    const int trials = lab.trials_or(3);
    std::map<std::string, std::map<unsigned, double>> steps_ms;  // method -> steps -> ms
    // Measured in step unless --skew says otherwise: the barrier's own cost, not the hold-back.
    const bool skew_given = lab.opt.extra.count("skew") > 0;
    auto one = [&](const Method &mm, std::size_t groups, Workload ww) {
        if (!skew_given) ww.skew = 0;
        // The median of --trials runs (default 3): a busy host stalls a spinning group at times.
        const Outcome o = run_median(steps, mm, groups, ww, trials);
        if (sweep == "steps") steps_ms[mm.name][ww.steps] = o.ms;
        const double us = o.ms * 1000 / ww.steps;
        std::printf("%-15s groups %5zu took %5zu steps %5u work %4u %10.3f ms %10.2f us/step "
                    "%7zu B  %s\n", mm.name.c_str(), o.launched, o.parts, ww.steps, ww.work, o.ms,
                    us, sync_bytes(mm.name, o.parts), o.text().c_str());
        bad |= !o.ok() && !lab.is_demonstration(mm.variant);
        csv("sweep", sweep)("method", mm.name)("groups", o.launched)("parts", o.parts)(
            "steps", ww.steps)("work", ww.work)("n", w.n)("wg", ww.wg)("ms", o.ms)(
            "per_sync_us", us)("sync_bytes", sync_bytes(mm.name, o.parts))("verified", o.ok())(
            "gave_up", o.gave_up);
        csv.row();
        return o;
    };
    if (sweep == "groups") {  // thesis Appendix H (time) and J (memory) vs groups
        for (unsigned work : {w.work, w.work ? 0u : 64u})
            for (std::size_t g : group_counts(std::max<std::size_t>(occ, 1)))
                for (const Method &mm : m.list)
                    if (mm.skipped.empty() && mm.name != "nofence") {
                        Workload ww = w;
                        ww.work = work;
                        one(mm, g, ww);
                    }
    } else if (sweep == "steps") {  // thesis Appendix I: time vs iterations, per-step cost
        for (unsigned s : {1u, 10u, 100u, 300u, 1000u, 3000u})
            for (const Method &mm : m.list)
                if (mm.skipped.empty() && mm.name != "nofence") {
                    Workload ww = w;
                    ww.steps = s;
                    one(mm, std::max<std::size_t>(occ, 1), ww);
                }
        print_step_costs(steps_ms);
    } else {  // occupancy
        occupancy_sweep(lab, m, steps, w, csv, sweep);
    }
    return bad ? 1 : 0;
}

}  // namespace synclab
