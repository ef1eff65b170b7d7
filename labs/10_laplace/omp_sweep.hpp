// For lab 10's main: the peer a user would write for a CPU instead of OpenCL, the same Jacobi
// sweeps under OpenMP (`parallel for` over rows, `simd` along a row), built by
// labs/cpu_peers.cmake with the widest vectors and OpenMP for its file alone.
#pragma once
#include <string>
#include <vector>

#include "jacobi.hpp"
#include "synclab/measure.hpp"

namespace synclab {

struct OmpSweeps {
    bool ran = false;
    std::string why_not;  // when it did not run: no OpenMP at build time
    unsigned threads = 0;
    double ms = 0;        // median of the trials, all sweeps
    Spread runs;          // the trials, ms: a ratio against the median is printed beside it
    std::string policy;   // how its threads wait between loops (openmp_wait_policy())
    bool ok = false;      // bit for bit the host's result
    std::string wrong;    // when not ok: how many points differ, and the first
};

// `sweeps` sweeps from g.start, each point as host_rows computes it; one warm-up, then the
// median of `trials` runs, the last run's grid compared with `want` bit for bit.
OmpSweeps time_openmp_sweeps(const Grid &g, unsigned sweeps, int trials,
                             const std::vector<float> &want);

}  // namespace synclab
