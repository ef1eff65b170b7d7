// Lab 08: the reduction ladder (after Harris). Seven kernels sum the same n floats; each is
// checked against the host and timed over all its passes, and its GB/s is set against a copy
// kernel's on the same device: the bandwidth this memory-bound job could reach.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "synclab/bandwidth.hpp"
#include "synclab/lab.hpp"
#include "synclab/partials.hpp"
#include "synclab/workgroup.hpp"
#include "synclab/subgroups.hpp"

using namespace synclab;

static const LabSpec spec{
    "lab08_reduction_ladder",
    "The reduction ladder v1..v7 (after Harris), each rung's GB/s as a share of a copy kernel's "
    "measured bandwidth, and on a CPU device of the host's own threads. Without -n and "
    "--trials: 2^26 floats and 5 trials (4096 and 1 on Oclgrind).",
    "08_reduction_ladder.cl",
    {"v1", "v2", "v3", "v4", "v5", "v6", "v7"},
    {},
    [](cxxopts::Options &p) {
        p.add_options()
            ("per-cu", "v6/v7: work-groups per compute unit (unless --groups gives the total)",
             cxxopts::value<std::size_t>()->default_value("8"))
            ("layout", "v6/v7: which elements a work-item adds: interleaved (neighbours read "
                       "neighbours: GPUs), blocked (each its own run: CPUs), or auto",
             cxxopts::value<std::string>()->default_value("auto"));
    },
};

struct Rung {
    const char *variant, *kernel;
    std::size_t per_item;  // elements a work-item loads; 0: grid-stride (v6, v7)
    bool float4;
};
static const Rung kRungs[] = {
    {"v1", "reduce_v1_interleaved", 1, false}, {"v2", "reduce_v2_strided", 1, false},
    {"v3", "reduce_v3_sequential", 1, false},  {"v4", "reduce_v4_first_add", 2, false},
    {"v5", "reduce_v5_unrolled", 2, false},    {"v6", "reduce_v6_grid_stride", 0, false},
    {"v7", "reduce_v7_float4", 0, true},
};


// One launch: m values in, `groups` partial sums out.
struct Pass {
    std::size_t m = 0, groups = 0;
    cl_uint spread = 0, step = 0, span = 0;  // v6/v7 only
    std::size_t serial = 0;                  // terms one work-item adds in a row
};

// The launches that take n values down to one. Grid-stride rungs fill the device on the first
// pass (at most `groups` groups) and finish in one group when they can.
static std::vector<Pass> plan(const Rung &r, std::size_t n, std::size_t wg, std::size_t groups,
                              bool blocked) {
    std::vector<Pass> passes;
    std::size_t m = n;
    do {
        Pass p;
        p.m = m;
        if (r.per_item) {
            p.groups = groups_for(m, wg * r.per_item);
            p.serial = r.per_item;
        } else {
            const std::size_t units = r.float4 ? m / 4 : m;  // what one load brings in
            const std::size_t per = passes.empty() ? 1 : 32;
            p.groups = std::clamp<std::size_t>(groups_for(units, wg * per), 1, groups);
            const std::size_t items = p.groups * wg;
            const std::size_t each = (units + items - 1) / items;  // 0 when no whole float4
            p.spread = static_cast<cl_uint>(blocked ? each : 1);
            p.step = static_cast<cl_uint>(blocked ? 1 : items);
            p.span = static_cast<cl_uint>(blocked ? each : units);
            p.serial = r.float4 ? each / 2 + 8 : each;  // two float4 sums, lanes, tail
        }
        passes.push_back(p);
        m = p.groups;
    } while (m > 1);
    return passes;
}

struct Outcome {
    float value = NAN;
    double ms = 0;  // first pass's start to last pass's end
};

// Every pass of one rung, output buffers refilled with NaN first (`nans`, at least as long): a
// kernel that writes nothing leaves NaN. (A write, not clEnqueueFillBuffer, which Oclgrind's
// uninitialised-value check does not count as initialising.)
static Outcome run_passes(Env &env, cl::Kernel &k, const Rung &r, const std::vector<Pass> &passes,
                          const cl::Buffer &x, cl::Buffer (&part)[2], std::size_t wg,
                          const std::vector<float> &nans) {
    for (auto &b : part)
        env.queue.enqueueWriteBuffer(b, CL_FALSE, 0, passes[0].groups * sizeof(float), nans.data());
    std::vector<cl::Event> ev(passes.size());
    for (std::size_t i = 0; i < passes.size(); ++i) {
        const Pass &p = passes[i];
        k.setArg(0, i == 0 ? x : part[(i - 1) % 2]);
        k.setArg(1, part[i % 2]);
        k.setArg(2, static_cast<cl_uint>(p.m));
        cl_uint arg = 3;
        if (!r.per_item) {
            k.setArg(arg++, p.spread);
            k.setArg(arg++, p.step);
            k.setArg(arg++, p.span);
        }
        k.setArg(arg, cl::Local(wg * sizeof(float)));
        env.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(p.groups * wg),
                                       cl::NDRange(wg), nullptr, &ev[i]);
    }
    Outcome o;
    env.queue.enqueueReadBuffer(part[(passes.size() - 1) % 2], CL_TRUE, 0, sizeof(float), &o.value);
    const auto start = ev.front().getProfilingInfo<CL_PROFILING_COMMAND_START>();
    const auto end = ev.back().getProfilingInfo<CL_PROFILING_COMMAND_END>();
    o.ms = static_cast<double>(end - start) * 1e-6;
    return o;
}

static int run(Lab &lab) {
    const Options &o = lab.opt;
    const DeviceInfo &dev = lab.env.info;
    // At least 2: a pass must shrink the partial sums, or the passes never end.
    const std::size_t wg = pow2_work_group_size(o, dev.max_wg, 2);
    const std::size_t n = o.n ? o.n : dev.is_oclgrind() ? 4096 : std::size_t(1) << 26;
    const cl_ulong max_alloc = dev.device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
    const std::size_t max_n = std::min<std::size_t>(max_alloc / sizeof(float), (1u << 31) - 1);
    if (n > max_n)
        throw UsageError("-n " + std::to_string(n) + " floats do not fit one buffer on this device " +
                         "(or the kernels' uint indices): use -n " + std::to_string(max_n) +
                         " or less");
    const int trials = lab.trials_or(5);
    const std::size_t per_cu = o.extra["per-cu"].as<std::size_t>();
    if (per_cu < 1) throw UsageError("--per-cu must be at least 1");
    const std::size_t groups =
        o.extra.count("groups") && o.groups ? o.groups : per_cu * dev.compute_units;
    if (groups > max_n)
        throw UsageError("--groups " + std::to_string(groups) + " is more than this device can "
                         "hold partial sums for: use --groups " + std::to_string(max_n) + " or less");
    const std::string layout_opt = o.extra["layout"].as<std::string>();
    if (layout_opt != "auto" && layout_opt != "interleaved" && layout_opt != "blocked")
        throw UsageError("unknown --layout '" + layout_opt + "': use interleaved, blocked or auto");
    const bool blocked = layout_opt == "blocked" || (layout_opt == "auto" && dev.is_cpu());

    // One build for every rung; the sub-group finish where the device has sub-groups.
    const SubgroupSupport sg = subgroup_support(dev.device);
    std::string define = "-D WG=" + std::to_string(wg);
    if (sg.builtins) define += " -D WITH_SUBGROUPS " + sg.build_options;
    cl::Program program = lab.program(define);
    std::vector<std::pair<const Rung *, cl::Kernel>> kernels;
    for (const auto &variant : lab.selected_variants())
        for (const Rung &r : kRungs)
            if (variant == r.variant) {
                cl::Kernel k(program, r.kernel);
                check_launch(k, dev.device, wg, wg * sizeof(float));
                kernels.emplace_back(&r, k);
            }

    std::printf("%s on %s / %s (%u CUs): n = %zu floats (%.1f MiB), --wg %zu, median of %d "
                "trial(s) after 1 warm-up, seed %llu\n",
                spec.name.c_str(), dev.platform.c_str(), dev.name.c_str(), dev.compute_units, n,
                reduce_bytes(n) / 1048576.0, wg, trials, static_cast<unsigned long long>(lab.seed));
    std::printf("v5-v7 finish: %s; v6/v7: up to %zu groups, %s layout\n",
                sg.builtins ? ("sub_group_reduce_add (" + sg.how + ")").c_str()
                            : "unrolled tree with barriers (no sub-groups here)",
                groups, blocked ? "blocked" : "interleaved");

    const std::vector<float> hx = uniform(n, lab.rng);
    double want = 0, abs_sum = 0;
    for (float v : hx) {
        want += v;
        abs_sum += std::fabs(v);
    }
    cl::Buffer x(lab.env.context, CL_MEM_READ_ONLY, n * sizeof(float));
    lab.env.queue.enqueueWriteBuffer(x, CL_TRUE, 0, n * sizeof(float), hx.data());

    // The bound, measured: read n floats and write n floats.
    const CopyProbe copy = measure_copy(lab.env, hx, x, trials, wg);
    if (!copy.verified) throw UsageError("the copy kernel copied wrongly on " + dev.name +
                                         ": this device cannot be measured; try another --device");
    std::printf("bound: copy kernel, %.1f MiB read + written in %.4f ms = %.1f GB/s\n",
                copy.bytes / 2 / 1048576.0, copy.ms, copy.gbps);
    // A CPU device's peer: the same sum by the host's own threads.
    HostPeer host;
    if (dev.is_cpu()) {
        host = time_host_sum(hx, trials);
        const bool ok = close(host.value, want, tolerance(n, abs_sum, host_serial(n, host.threads)));
        std::printf("host peer: %u std::threads, %.4f ms = %.1f GB/s (%.1f%% of copy), %s\n",
                    host.threads, host.ms, host.gbps, percent_of(host.gbps, copy.gbps),
                    ok ? "verified" : "WRONG");
        if (!ok) host.gbps = 0;  // no percentages against a wrong peer
    }

    std::ostream *csv = lab.csv();
    std::string csv_name = dev.name;
    std::replace(csv_name.begin(), csv_name.end(), ',', ';');
    if (csv)
        *csv << "rung,kernel,device,n,wg,passes,groups,layout,trials,median_ms,gbps,copy_gbps,"
                "pct_of_copy,host_gbps,pct_of_host,verified\n";
    std::printf("%-4s %-22s %6s %7s %11s %8s %7s %7s  %s\n", "rung", "kernel", "passes", "groups",
                "time ms", "GB/s", "% copy", "% host", "result");

    std::vector<std::pair<std::string, bool>> verdicts;
    const Rung *best = nullptr;
    double best_gbps = 0;
    cl::Buffer part[2];
    const std::size_t most_groups = std::max(groups_for(n, wg), groups);
    for (auto &b : part) b = cl::Buffer(lab.env.context, CL_MEM_READ_WRITE, most_groups * sizeof(float));
    const std::vector<float> nans(most_groups, std::numeric_limits<float>::quiet_NaN());
    // Oclgrind 21.10's uninitialised-value checker (on unless OCLGRIND_UNINITIALIZED=0) crashes
    // on float4 loads.
    const char *uninit = std::getenv("OCLGRIND_UNINITIALIZED");
    const bool skip_float4 = dev.is_oclgrind() && uninit && std::string(uninit) != "0";
    for (auto &[rung, kernel] : kernels) {
        if (rung->float4 && skip_float4) {
            std::printf("%-4s %-22s skipped: Oclgrind's uninitialised-value check crashes on float4 "
                        "loads; run with OCLGRIND_UNINITIALIZED=0 to include it\n",
                        rung->variant, rung->kernel);
            continue;
        }
        const std::vector<Pass> passes = plan(*rung, n, wg, groups, blocked);
        std::size_t serial = 0;
        for (const Pass &p : passes) serial += p.serial + 1;
        const double tol = tolerance(n, abs_sum, serial);
        // Launch 0 is the warm-up; every launch is checked.
        std::vector<double> ms;
        Outcome bad;
        bool ok = true;
        for (int t = 0; t <= trials && ok; ++t) {
            const Outcome out = run_passes(lab.env, kernel, *rung, passes, x, part, wg, nans);
            ok = close(out.value, want, tol);
            if (!ok) bad = out;
            if (t > 0) ms.push_back(out.ms);
        }
        verdicts.emplace_back(rung->variant, ok);
        std::printf("%-4s %-22s %6zu %7zu ", rung->variant, rung->kernel, passes.size(),
                    passes[0].groups);
        if (!ok) {
            std::printf("%11s %8s %7s %7s  ", "-", "-", "-", "-");
            if (std::isnan(bad.value))
                std::printf("WRONG: no result (NaN: y[group] never written; not written yet?)\n");
            else
                std::printf("WRONG: %.7g, want %.7g (off by %.3g, tolerance %.3g)\n", bad.value,
                            want, std::fabs(bad.value - want), tol);
            if (csv)
                *csv << rung->variant << "," << rung->kernel << "," << csv_name << "," << n
                     << "," << wg << "," << passes.size() << "," << passes[0].groups << ","
                     << (blocked ? "blocked" : "interleaved") << "," << trials
                     << ",,," << copy.gbps << ",,,,no\n";
            continue;
        }
        const double t = median(ms);
        const double gbps = gb_per_s(reduce_bytes(n), t);
        std::printf("%11.4f %8.1f %7.1f ", t, gbps, percent_of(gbps, copy.gbps));
        if (host.gbps > 0) std::printf("%7.1f  verified\n", percent_of(gbps, host.gbps));
        else std::printf("%7s  verified\n", "-");
        if (gbps > best_gbps) best = rung, best_gbps = gbps;
        if (csv) {
            *csv << rung->variant << "," << rung->kernel << "," << csv_name << "," << n << ","
                 << wg << "," << passes.size() << "," << passes[0].groups << ","
                 << (blocked ? "blocked" : "interleaved") << "," << trials << "," << t << ","
                 << gbps << "," << copy.gbps << "," << percent_of(gbps, copy.gbps) << ",";
            if (host.gbps > 0) *csv << host.gbps << "," << percent_of(gbps, host.gbps);
            else *csv << ",";
            *csv << ",yes\n";
        }
    }
    if (best) {
        std::printf("best: %s at %.1f GB/s, %.1f%% of the copy bandwidth", best->variant, best_gbps,
                    percent_of(best_gbps, copy.gbps));
        if (host.gbps > 0) std::printf(", %.1f%% of the host peer", percent_of(best_gbps, host.gbps));
        std::printf("\n");
    }
    return lab.exit_code(verdicts);
}

int main(int argc, char **argv) { return run_lab(argc, argv, spec, run); }
