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
#include "settings.hpp"
#include "table.hpp"

using namespace synclab;

static std::size_t tile(Block b) { return (b.x + 2) * (b.y + 2) * sizeof(float); }

static cl::Kernel make_kernel(const cl::Program &program, const DeviceInfo &dev, const char *name,
                              Block b, std::size_t local_bytes) {
    cl::Kernel k(program, name);
    check_launch(k, dev.device, b.x * b.y, local_bytes);
    return k;
}

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

// The `shapes` variant: every one-launch-per-sweep kernel at each block shape.
static void run_shapes(const cl::Program &program, const DeviceInfo &dev, const Settings &s,
                       const std::vector<float> &want, Sweeper &sw, Table &table) {
    const std::string v = "shapes";
    for (const Block b : s.shapes) {
        if (b.x * b.y > dev.max_wg) {  // --shapes all, or one of a list: said, not dropped
            std::printf("shape %s skipped: more work-items than this device's largest "
                        "work-group (%zu)\n", b.text().c_str(), dev.max_wg);
            continue;
        }
        cl::Kernel kn = make_kernel(program, dev, "jacobiNaive", b, 0);
        table.report(v, "jacobiNaive", b, sw.relaunch(kn, b, s.sweeps, false, want));
        cl::Kernel kt = make_kernel(program, dev, "jacobiTiled", b, tile(b));
        table.report(v, "jacobiTiled", b, sw.relaunch(kt, b, s.sweeps, true, want));
        cl::Kernel kr = make_kernel(program, dev, "jacobiRows", b, 0);
        table.report(v, "jacobiRows", b, sw.relaunch(kr, b, s.sweeps, false, want, s.rows));
        cl::Kernel kr4 = make_kernel(program, dev, "jacobiRows4", b, 0);
        table.report(v, "jacobiRows4", b, sw.relaunch(kr4, b, s.sweeps, false, want, s.rows, 4));
    }
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

// The temporal variant: fuse sweeps a pass; its sweeps a second beside the fastest one-sweep
// kernel's run before it, and the bandwidth a one-sweep kernel would need to keep up.
static void run_temporal(const cl::Program &program, const DeviceInfo &dev, const Settings &s,
                         const std::vector<float> &want, Sweeper &sw, Table &table, double copy_gbps) {
    const std::size_t n = s.block.x * s.block.y;
    if (2 * s.fuse >= n)
        throw UsageError("temporal: --block " + s.block.text() + " has " + std::to_string(n) +
                         " work-items; a pass needs more than twice its sweeps (at least 3): give a "
                         "larger --block, e.g. --block 32x4");
    const std::size_t local = 2 * s.fuse * n * sizeof(float);
    cl::Kernel k = make_kernel(program, dev, "jacobiTemporal", s.block, local);
    std::printf("temporal: %u sweeps a pass (--fuse), tiles %zu columns wide writing %zu, bands of "
                "%u rows (--band)\n", s.fuse, n, n - 2 * s.fuse, s.band);
    const Run r = sw.temporal(k, s.block, s.sweeps, s.fuse, s.band, want);
    const double us = table.report("temporal", "jacobiTemporal", s.block, r);
    if (!r.ok() || us <= 0) return;
    const double rate = 1e6 / us, bytes = double(copy_bytes(want.size()));
    char copy[80] = "";
    if (copy_gbps > 0) std::snprintf(copy, sizeof copy, " (device copy: %.2f GB/s)", copy_gbps);
    std::printf("temporal: %.0f sweeps/s, as fast as a one-sweep kernel moving %.2f GB/s%s", rate,
                bytes * rate * 1e-9, copy);
    const double best = table.best_gbps() * 1e9 / bytes;  // sweeps a second
    if (best > 0)
        std::printf("; %s %.0f sweeps/s: %.2fx\n", table.best_name().c_str(), best, rate / best);
    else
        std::printf("; run it beside rows4 (--variant rows4,temporal) for the ratio\n");
}

// The groups a persistent launch of `launch` can have resident at once, for discovery's poll
// (0: unknown, the poll closes when quiet). On POCL's CPU device a group runs on one thread to its
// end, one thread a compute unit: a spinning group holds its thread, so no more than those.
static unsigned expected(const DeviceInfo &dev, std::size_t launch) {
    if (!dev.is_cpu() || dev.is_oclgrind()) return 0;
    return unsigned(std::min<std::size_t>(launch, dev.compute_units));
}

// After a persistent launch: Oclgrind's note on groups that never met, and on a CPU, why fewer
// groups took part than it has compute units (the sweeps then ran on fewer threads).
static void took_part(const Lab &lab, const std::string &v, const Run &r, const Settings &s) {
    lab.groups_met(v, r.parts);
    const DeviceInfo &dev = lab.env.info;
    const std::size_t most = std::min<std::size_t>(r.groups, dev.compute_units);
    if (!dev.is_cpu() || dev.is_oclgrind() || r.parts == 0 || r.parts >= most) return;
    std::printf("%s: %zu of %zu groups took part, fewer than this device's %u compute units: "
                "discovery's poll closed after %u polls (--grace) with no newcomer before the "
                "other threads ran - the host is busy (other programs hold the cores); the sweeps ran "
                "on %zu group%s. Run again on a quieter machine, or give a larger --grace\n",
                v.c_str(), r.parts, r.groups, dev.compute_units, s.grace, r.parts,
                r.parts == 1 ? "" : "s");
}

static int run(Lab &lab) {
    const DeviceInfo &dev = lab.env.info;
    const Settings s = settings(lab);
    const Grid g(s.I, s.J, lab.rng);
    const cl::Program program = lab.program();
    auto kernel = [&](const char *name, Block b, std::size_t local_bytes) {
        return make_kernel(program, dev, name, b, local_bytes);
    };
    cl::Kernel naive = kernel("jacobiNaive", s.block, 0), tiled = kernel("jacobiTiled", s.block, tile(s.block));
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
        if (v == "persistent") {
            const std::size_t blocks = (g.I + s.block.x - 1) / s.block.x * ((g.J + s.block.y - 1) / s.block.y);
            const std::size_t launch = std::min(blocks, most_groups);
            const Run r = sw.persistent(persistent, s.block, s.sweeps, launch, s.budget, s.grace, want,
                                        expected(dev, launch));
            const double us = report(v, "jacobiPersistent", s.block, r);
            took_part(lab, v, r, s);
            if (r.ok() && relaunch_us > 0)
                std::printf("persistent: %zu of %zu groups resident; %.2f us per sweep against %.2f "
                            "with one launch per sweep: %s %.1fx\n", r.parts, launch, us, relaunch_us,
                            us < relaunch_us ? "wins" : "loses", us < relaunch_us ? relaunch_us / us : us / relaunch_us);
        }
        if (v == "bands") {  // groups of one work-item; on a CPU, one a thread is expected
            cl::Kernel bands = kernel("jacobiBands", Block{1, 1}, 0);  // here: a file from an older starter has none
            const Run r = sw.persistent(bands, Block{1, 1}, s.sweeps, most_groups, s.budget, s.grace, want,
                                        expected(dev, most_groups));
            report(v, "jacobiBands", Block{1, 1}, r);
            took_part(lab, v, r, s);
            if (r.ok())
                std::printf("bands: %zu of %zu groups resident, a band of about %zu rows each\n",
                            r.parts, r.groups, (g.J + r.parts - 1) / r.parts);
        }
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
