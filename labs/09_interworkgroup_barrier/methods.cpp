// For lab 09: building the methods' kernels, and the sweeps (methods.hpp).
#include "methods.hpp"

#include <cstdio>

namespace synclab {

namespace {
// The -cl-std a device's OpenCL version allows for C11 atomics, or "" for none.
std::string c11_std(const DeviceInfo &dev) {
    const std::string v = dev.device.getInfo<CL_DEVICE_VERSION>();  // "OpenCL 3.0 ..."
    if (v.rfind("OpenCL 2.", 0) == 0) return "-cl-std=CL2.0";
    if (v.rfind("OpenCL 3.", 0) == 0) return "-cl-std=CL3.0";
    return "";
}
}  // namespace

Methods::Methods(Lab &lab, const Workload &w) {
    const cl::Program program = lab.program();
    discovery = cl::Kernel(program, "discoverOccupancy");
    check_launch(discovery, lab.env.info.device, w.wg, 0);
    for (const std::string &v : lab.selected_variants()) {
        Method m{v, v, lab.kernel_name(v), "", How::InKernel, v == "discovered", {}, ""};
        m.label = m.kernel_name + " (" + v + ")";
        if (v == "c11") {
            const std::string std = c11_std(lab.env.info);
            cl_int err = CL_SUCCESS;
            if (std.empty()) {
                m.skipped = "an OpenCL 1.x device: no C11 atomics";
            } else {
                const cl::Program p3 = lab.program(std);
                m.kernel = cl::Kernel(p3, m.kernel_name.c_str(), &err);
                if (err != CL_SUCCESS)
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

int run_sweep(Lab &lab, Methods &m, Steps &steps, const Workload &w, std::size_t occ,
              const std::string &sweep) {
    Csv csv = lab.csv({"sweep", "method", "groups", "parts", "steps", "work", "n", "wg", "ms",
                       "per_sync_us", "sync_bytes", "verified", "gave_up", "discovered",
                       "compute_units", "largest_ok"});
    bool bad = false;
    // Measured in step unless --skew says otherwise: the barrier's own cost, not the hold-back.
    const bool skew_given = lab.opt.extra.count("skew") > 0;
    auto one = [&](const Method &mm, std::size_t groups, Workload ww) {
        if (!skew_given) ww.skew = 0;
        const Outcome o = steps.run(const_cast<cl::Kernel &>(mm.kernel), mm.how, groups, ww,
                                    mm.discovered);
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
            for (std::size_t g = 1; g <= std::max<std::size_t>(occ, 1); ++g)
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
    } else {  // occupancy: discovered vs compute units vs the largest count that does not give up
        const Method *c = m.find("centralized");
        if (!c) throw UsageError("--sweep occupancy runs the centralized barrier: add it to --variant");
        for (std::size_t wg : {1, 16, 64, 256, 1024}) {
            if (wg > lab.env.info.max_wg) continue;
            Workload ww = w;
            ww.wg = wg;
            ww.steps = 4;
            ww.budget = std::max(16u, w.budget / 16);  // a short wait: past the edge it gives up
            const std::size_t probe = std::max<std::size_t>(64, lab.env.info.compute_units * 64);
            const std::size_t found = steps.discover(m.discovery, probe, ww);
            // Up from what discovery found until a barrier gives up (at most twice as many).
            std::size_t ok = 0, step = std::max<std::size_t>(1, found / 16);
            for (std::size_t g = std::max<std::size_t>(found, 2) - 1; g <= 2 * found + 2; g += step) {
                const Outcome o = steps.run(const_cast<cl::Kernel &>(c->kernel), How::InKernel, g, ww);
                if (!o.ok()) break;
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
    return bad ? 1 : 0;
}

}  // namespace synclab
