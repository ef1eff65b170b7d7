// Lab 10's results table (table.hpp).
#include "table.hpp"

#include <algorithm>
#include <cstdio>

#include "synclab/bandwidth.hpp"

namespace synclab {

Table::Table(Lab &lab, const Settings &s, const Grid &g, double copy_gbps, int width)
    : s_(s), g_(g), bytes_(copy_bytes(g.points())), copy_gbps_(copy_gbps), width_(width),
      csv_(lab.csv({"variant", "kernel", "I", "J", "block", "sweeps", "ms", "us_per_sweep", "gbps",
                    "copy_gbps", "pct_copy", "host_us_per_sweep", "groups", "parts", "verified",
                    "gave_up"})) {}

void Table::peers(double host_ms, unsigned threads, const OmpSweeps &omp) {
    std::printf("%-*s %8s %10s %12s %9s %8s  %s\n", width_, "kernel (variant)", "block", "ms",
                "us per sweep", "GB/s", "% copy", "result");
    host_us_ = host_ms * 1000 / s_.sweeps;
    std::printf("%-*s %8s %10.3f %12.2f %9.2f %8s  (%u threads)\n", width_, "host sweep", "-",
                host_ms, host_us_, gb_per_s(bytes_, host_us_ / 1000), "-", threads);
    omp_gbps_ = omp.ok ? gb_per_s(bytes_, omp.ms / s_.sweeps) : 0;
    omp_runs_ = gbps_spread(bytes_ * s_.sweeps, omp.runs);
    if (omp.ran)
        std::printf("%-*s %8s %10.3f %12.2f %9.2f %8s  %s (%u threads, %s; %s)\n", width_,
                    "OpenMP sweep", "-", omp.ms, omp.ms * 1000 / s_.sweeps, omp_gbps_, "-",
                    omp.ok ? "verified" : ("WRONG: " + omp.wrong).c_str(), omp.threads,
                    omp.policy.c_str(), omp_runs_.c_str());
    else if (!omp.why_not.empty())
        std::printf("OpenMP sweep: %s\n", omp.why_not.c_str());
}

double Table::report(const std::string &variant, const std::string &name, Block b, const Run &r) {
    const double us = r.ms * 1000 / s_.sweeps, gbps = r.ok() ? gb_per_s(bytes_, us / 1000) : 0;
    std::string result = r.text(g_.I);
    if (r.ok() && s_.tolerance >= 0) {
        const double err = max_diff(r.result, g_.exact);
        char t[120];
        std::snprintf(t, sizeof t, ", |u - exact| <= %.3g", err);
        result = err <= s_.tolerance ? result + t
                                     : "WRONG: not converged" + std::string(t + 1) + " is more than --tolerance";
    }
    char pct[16] = "-";
    if (copy_gbps_ > 0) std::snprintf(pct, sizeof pct, "%.1f", percent_of(gbps, copy_gbps_));
    std::printf("%-*s %8s %10.3f %12.2f %9.2f %8s  %s\n", width_, (name + " (" + variant + ")").c_str(),
                b.text().c_str(), r.ms, us, gbps, pct, result.c_str());
    const bool ok = result.rfind("verified", 0) == 0;
    if (ok && variant != "temporal" && gbps > best_gbps_) {  // temporal's bytes are not a sweep's
        best_gbps_ = gbps;
        best_name_ = name + " (" + variant + ")";
    }
    csv_("variant", variant)("kernel", name)("I", g_.I)("J", g_.J)("block", b.text())(
        "sweeps", s_.sweeps)("ms", r.ms)("us_per_sweep", us)("gbps", gbps)("copy_gbps", copy_gbps_)(
        "pct_copy", percent_of(gbps, copy_gbps_))("host_us_per_sweep", host_us_)("groups", r.groups)(
        "parts", r.parts)("verified", ok)("gave_up", r.gave_up);
    csv_.row();
    if (!verdicts_.empty() && verdicts_.back().variant == variant) {
        if (!ok && verdicts_.back().ok)
            verdicts_.back() = {variant, false, name + " " + b.text() + ": " + result};
    } else {
        verdicts_.push_back({variant, ok, name + ": " + result});
    }
    return us;
}

}  // namespace synclab
