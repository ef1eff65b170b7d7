// Lab 10: Jacobi sweeps of the Laplace stencil (the Oxford lecture's Practical 3). One work-item
// per grid point, one work-group per block of the grid; the end of each launch is the barrier
// between sweeps, or, in the persistent kernel, lab 09's barrier between work-groups is.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <thread>

#include "synclab/bandwidth.hpp"
#include "declaration.hpp"
#include "omp_sweep.hpp"
#include "runs.hpp"
#include "settings.hpp"
#include "table.hpp"

using namespace synclab;

// The banner, the host's sweeps (the reference every kernel must equal, and its time in
// *host_ms) and the convergence the students watch; --dump written.
static std::vector<float> reference(Lab &lab, const Grid &g, const Settings &s, unsigned threads,
                                    double *host_ms) {
    char what[200];
    std::snprintf(what, sizeof what, "%zux%zu grid, %u sweeps, blocks of %s", g.I, g.J, s.sweeps,
                  s.block.text().c_str());
    lab.banner(what);
    *host_ms = time_host_sweeps(g, s.sweeps, threads, 1);
    std::vector<Convergence> log;
    std::vector<float> want = host_sweeps(g, s.sweeps, threads, &log, s.every);
    std::printf("%-8s %12s %12s\n", "sweep", "residual", "error");
    for (const Convergence &c : log)
        std::printf("%-8u %12.3e %12.3e\n", c.sweep, c.residual, c.error);
    if (!s.dump.empty()) write_dump(s.dump, g, want);
    return want;
}

// With the `shapes` variant, off Oclgrind: the copy probe (*copy_gbps, 0 when it went wrong)
// and, on a CPU, the sweeps a user would write in OpenMP; the kernels then timed as it is.
static OmpSweeps measured(Lab &lab, const std::vector<std::string> &chosen, const Grid &g,
                          const Settings &s, const std::vector<float> &want, Sweeper &sw,
                          double *copy_gbps) {
    OmpSweeps omp;
    if (std::find(chosen.begin(), chosen.end(), "shapes") == chosen.end() || lab.env.info.is_oclgrind())
        return omp;
    const Probe p = measure_copy(lab.env, g.start, sw.loaded(), lab.trials_or(5));
    *copy_gbps = p.verified ? p.gbps : 0;
    if (lab.env.info.is_cpu()) omp = time_openmp_sweeps(g, s.sweeps, lab.trials_or(5), want);
    sw.time_over(lab.trials_or(5));
    return omp;
}

static int run(Lab &lab) {
    const DeviceInfo &dev = lab.env.info;
    const Settings s = settings(lab);
    const Grid g(s.I, s.J, lab.rng);
    const cl::Program program = lab.program();
    auto kernel = [&](const char *name, Block b, std::size_t local_bytes) {
        return make_kernel(program, dev, name, b, local_bytes);
    };
    cl::Kernel naive = kernel("jacobiNaive", s.block, 0), tiled = kernel("jacobiTiled", s.block, tile_bytes(s.block));
    cl::Kernel persistent = kernel("jacobiPersistent", s.block, 0), rows = kernel("jacobiRows", s.block, 0);
    cl::Kernel rows4 = kernel("jacobiRows4", s.block, 0);
    // A persistent launch: up to 64 groups a compute unit; discovery keeps those resident.
    const std::size_t most_groups = std::max<std::size_t>(64, dev.compute_units * 64);
    Sweeper sw(lab.env, g);

    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    double host_ms = 0;
    const std::vector<float> want = reference(lab, g, s, threads, &host_ms);

    double copy_gbps = 0;
    const std::vector<std::string> chosen = lab.selected_variants();
    const OmpSweeps omp = measured(lab, chosen, g, s, want, sw, &copy_gbps);
    int width = 16;  // "kernel (variant)", or the longest "kernel (variant)" run here
    for (const auto &v : chosen)
        for (const auto &k : lab.decl.find(v)->kernels)
            width = std::max(width, int(k.size() + v.size() + 3));
    Table table(lab, s, g, copy_gbps, width);
    table.peers(host_ms, threads, omp);
    double relaunch_us = 0;
    auto report = [&table](const std::string &v, const std::string &name, Block b, const Run &r) {
        return table.report(v, name, b, r);
    };
    for (const std::string &v : chosen) {
        if (v == "naive") relaunch_us = report(v, "jacobiNaive", s.block, sw.relaunch(naive, s.block, s.sweeps, false, want));
        if (v == "tiled") report(v, "jacobiTiled", s.block, sw.relaunch(tiled, s.block, s.sweeps, true, want));
        if (v == "rows") report(v, "jacobiRows", s.block, sw.relaunch(rows, s.block, s.sweeps, false, want, s.rows));
        if (v == "rows4") report(v, "jacobiRows4", s.block, sw.relaunch(rows4, s.block, s.sweeps, false, want, s.rows, 4));
        if (v == "shapes") run_shapes(program, dev, s, want, sw, table);
        if (v == "temporal") run_temporal(program, dev, s, want, sw, table, copy_gbps);
        if (v == "persistent") run_persistent(lab, persistent, sw, s, want, table, most_groups, relaunch_us);
        if (v == "bands") run_bands(lab, program, sw, s, want, table, most_groups);
    }
    const double best_gbps = table.best_gbps();
    if (copy_gbps > 0) std::printf("%s\n", copy_line(best_gbps, copy_gbps, "--grid").c_str());
    if (omp.ok && best_gbps > 0)  // the ratio beside the runs it stands on
        std::printf("OpenMP sweep: %s; best sweep %.2fx its median\n", table.omp_runs().c_str(),
                    best_gbps / table.omp_gbps());
    const int code = lab.exit_code(table.verdicts());
    return omp.ran && !omp.ok ? std::max(code, 1) : code;  // a wrong peer is a wrong result
}

int main(int argc, char **argv) { return run_lab(argc, argv, kLab, run); }
