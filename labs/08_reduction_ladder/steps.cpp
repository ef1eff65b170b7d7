// Lab 08's steps (steps.hpp): the ladder's shape, its rungs measured, and their table.
#include "steps.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "synclab/workgroup.hpp"

namespace synclab {

// The ladder's shape from the options and the device: work-group size, n, groups, layout.
Ladder shape_of(Lab &lab) {
    const Options &o = lab.opt;
    const DeviceInfo &dev = lab.env.info;
    Ladder l;
    // At least 2: a pass must shrink the partial sums, or the passes never end.
    // A GPU hides its memory's latency with more work-items in flight: groups of 512, 32 a compute
    // unit, put v8 above CUB's sum at 2^20 to 2^28 floats on an H100 (256 and 8 fell below it at
    // 2^28). A CPU keeps 256 and 8.
    const bool gpu = !dev.is_cpu() && !dev.is_oclgrind();
    Options shape = o;
    if (!shape.wg && gpu) shape.wg = std::min<std::size_t>(512, dev.max_wg);
    l.wg = pow2_work_group_size(shape, dev.max_wg, 2);
    // Large enough to measure bandwidth on a GPU; on a CPU, what a 2-core machine runs in a second.
    l.n = o.n                ? o.n
          : dev.is_oclgrind() ? 4096
          : dev.is_cpu()      ? std::min<std::size_t>(std::size_t(1) << 25,
                                                      std::max(2u, dev.compute_units) << 19)
                              : std::size_t(1) << 26;
    require_fits(dev, "-n", l.n, 1, sizeof(float));
    l.trials = lab.trials_or(5);
    l.exact = o.exact;
    if (l.exact) check_exact_fits(l.n, kExactMost, "-n", l.n);
    const std::size_t per_cu = o.extra.count("per-cu") ? o.extra["per-cu"].as<std::size_t>()
                               : gpu ? 32 : 8;
    if (per_cu < 1) throw UsageError("--per-cu must be at least 1");
    // --groups 0, like no --groups: per_cu groups on every compute unit.
    l.groups = o.extra.count("groups") && o.groups ? o.groups : per_cu * dev.compute_units;
    if (l.groups > max_elements(dev, sizeof(float)))
        throw UsageError("--groups " + std::to_string(l.groups) + " is more than this device can "
                         "hold partial sums for: use --groups " +
                         std::to_string(max_elements(dev, sizeof(float))) + " or less");
    const std::string layout_opt = o.extra["layout"].as<std::string>();
    if (layout_opt != "auto" && layout_opt != "interleaved" && layout_opt != "blocked")
        throw UsageError("unknown --layout '" + layout_opt + "': use interleaved, blocked or auto");
    l.blocked = layout_opt == "blocked" || (layout_opt == "auto" && dev.is_cpu());
    return l;
}

// Every selected rung measured; a float4 rung is skipped where Oclgrind's uninitialised-value
// check (on unless OCLGRIND_UNINITIALIZED=0) would crash on its loads (Oclgrind 21.10).
std::vector<std::pair<std::string, Measured>>
measure_rungs(Lab &lab, std::vector<std::pair<std::string, cl::Kernel>> &kernels, Ladder &l) {
    const char *uninit = std::getenv("OCLGRIND_UNINITIALIZED");
    const bool skip_float4 = lab.env.info.is_oclgrind() && uninit && std::string(uninit) != "0";
    const int vw = lab.decl.variant_width(4), kw = lab.decl.kernel_width(22);
    std::vector<std::pair<std::string, Measured>> rungs;
    for (auto &[variant, kernel] : kernels) {
        if (!rung(variant).float4 || !skip_float4) {
            rungs.emplace_back(variant, measure_rung(lab.env, kernel, rung(variant), l));
            continue;
        }
        std::printf("%-*s %-*s skipped: Oclgrind's uninitialised-value check crashes on float4 "
                    "loads; run with OCLGRIND_UNINITIALIZED=0 to include it\n", vw, variant.c_str(),
                    kw, lab.kernel_name(variant).c_str());
        lab.skipped(variant, "Oclgrind's uninitialised-value check crashes on float4 loads");
    }
    return rungs;
}

// The table: each rung's passes, groups, time, GB/s and its ratios to the bounds and peers; one
// verdict a rung, and the fastest verified one in *best.
std::vector<Verdict> print_rungs(Lab &lab, const std::vector<std::pair<std::string, Measured>> &rungs,
                                        const Ladder &l, Bounds &bounds, const SubgroupPart &part,
                                        std::pair<std::string, double> *best) {
    const DeviceInfo &dev = lab.env.info;
    const int vw = lab.decl.variant_width(4), kw = lab.decl.kernel_width(22);
    Csv csv = lab.csv({"rung", "kernel", "device", "n", "wg", "passes", "groups", "layout",
                       "trials", "median_ms", "gbps", "read_gbps", "pct_of_read", "copy_gbps",
                       "pct_of_copy", "clblast_gbps", "x_clblast", "host_gbps", "pct_of_host",
                       "verified"});
    std::printf("%-*s %-*s %6s %7s %11s %8s%s  %s\n", vw, "rung", kw, "kernel", "passes", "groups",
                "time ms", "GB/s", Bounds::header(), "result");
    std::vector<Verdict> verdicts;
    for (const auto &[variant, m] : rungs) {
        const std::string &name = lab.kernel_name(variant);
        std::printf("%-*s %-*s %6zu %7zu ", vw, variant.c_str(), kw, name.c_str(), m.passes.size(),
                    m.passes[0].groups);
        csv("rung", variant)("kernel", name)("device", dev.name)("n", l.n)("wg", l.wg)(
            "passes", m.passes.size())("groups", m.passes[0].groups)(
            "layout", l.blocked ? "blocked" : "interleaved")("trials", l.trials)(
            "verified", m.ok ? "yes" : "no");
        if (!m.ok) {
            std::printf("%11s %8s %7s %7s %8s %7s  WRONG: %s\n", "-", "-", "-", "-", "-", "-",
                        m.wrong().c_str());
            verdicts.push_back({variant, false, name + ": " + m.wrong()});
            bounds.csv_cells(csv, 0);
            csv.row();
            continue;
        }
        const double gbps = gb_per_s(reduce_bytes(l.n), m.ms);
        std::printf("%11.4f %8.1f", m.ms, gbps);
        bounds.print_ratios(gbps);
        std::printf("  verified\n");
        char detail[160];
        std::snprintf(detail, sizeof detail, "%s: verified, %.4f ms = %.1f GB/s", name.c_str(),
                      m.ms, gbps);
        const bool finish = variant >= "v5";  // v5 to v8 end with finish_group
        verdicts.push_back({variant, true, detail + (finish && !part.runs
                                                         ? "; its sub-group finish " + part.not_checked()
                                                         : std::string())});
        if (gbps > best->second) *best = {variant, gbps};
        csv("median_ms", m.ms)("gbps", gbps);
        bounds.csv_cells(csv, gbps);
        csv.row();
    }
    return verdicts;
}

}  // namespace synclab
