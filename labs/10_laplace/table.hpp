// For lab 10's main: the results table. Each run of a kernel becomes a row (time, GB/s, its
// share of the copy probe, the result), a CSV row and the variant's verdict.
#pragma once
#include <string>
#include <vector>

#include "jacobi.hpp"
#include "omp_sweep.hpp"
#include "settings.hpp"

namespace synclab {

class Table {
public:
    // bytes: a sweep's traffic; copy_gbps: the copy probe's (0: none); width: the first column's.
    Table(Lab &lab, const Settings &s, const Grid &g, double copy_gbps, int width);
    // The header, then the host's sweep and, where it ran, OpenMP's, as the table's first rows.
    void peers(double host_ms, unsigned threads, const OmpSweeps &omp);
    // One run's row; returns its microseconds per sweep. A variant with several rows (shapes)
    // keeps its first failure as its verdict.
    double report(const std::string &variant, const std::string &name, Block b, const Run &r);
    const std::vector<Verdict> &verdicts() const { return verdicts_; }
    // The fastest verified run of one sweep a pass (all but temporal's), and its row's name.
    double best_gbps() const { return best_gbps_; }
    const std::string &best_name() const { return best_name_; }
    double omp_gbps() const { return omp_gbps_; }
    // "median 10.2 GB/s over 5 runs, 9.4-14.5 GB/s[; spread wide: not a stable ratio]"
    const std::string &omp_runs() const { return omp_runs_; }

private:
    const Settings &s_;
    const Grid &g_;
    const std::uint64_t bytes_;  // a sweep: each point read once, written once
    const double copy_gbps_;
    const int width_;
    Csv csv_;
    double host_us_ = 0, best_gbps_ = 0, omp_gbps_ = 0;
    std::string omp_runs_, best_name_;
    std::vector<Verdict> verdicts_;
};

}  // namespace synclab
