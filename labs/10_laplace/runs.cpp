// For lab 10: running one variant's kernels and reporting them (runs.hpp).
#include "runs.hpp"

#include <algorithm>
#include <cstdio>

#include "synclab/bandwidth.hpp"

namespace synclab {

std::size_t tile_bytes(Block b) { return (b.x + 2) * (b.y + 2) * sizeof(float); }

cl::Kernel make_kernel(const cl::Program &program, const DeviceInfo &dev, const char *name,
                              Block b, std::size_t local_bytes) {
    cl::Kernel k(program, name);
    check_launch(k, dev.device, b.x * b.y, local_bytes);
    return k;
}

// The `shapes` variant: every one-launch-per-sweep kernel at each block shape.
void run_shapes(const cl::Program &program, const DeviceInfo &dev, const Settings &s,
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
        cl::Kernel kt = make_kernel(program, dev, "jacobiTiled", b, tile_bytes(b));
        table.report(v, "jacobiTiled", b, sw.relaunch(kt, b, s.sweeps, true, want));
        cl::Kernel kr = make_kernel(program, dev, "jacobiRows", b, 0);
        table.report(v, "jacobiRows", b, sw.relaunch(kr, b, s.sweeps, false, want, s.rows));
        cl::Kernel kr4 = make_kernel(program, dev, "jacobiRows4", b, 0);
        table.report(v, "jacobiRows4", b, sw.relaunch(kr4, b, s.sweeps, false, want, s.rows, 4));
    }
}

// The temporal variant: fuse sweeps a pass; its sweeps a second beside the fastest one-sweep
// kernel's run before it, and the bandwidth a one-sweep kernel would need to keep up.
void run_temporal(const cl::Program &program, const DeviceInfo &dev, const Settings &s,
                         const std::vector<float> &want, Sweeper &sw, Table &table, double copy_gbps) {
    const std::size_t n = s.tile.x * s.tile.y;
    if (2 * s.fuse >= n)
        throw UsageError("temporal: --block " + s.tile.text() + " has " + std::to_string(n) +
                         " work-items; a pass needs more than twice its sweeps (at least 3): give a "
                         "larger --block, e.g. --block 32x4");
    const std::size_t local = 2 * s.fuse * n * sizeof(float);
    cl::Kernel k = make_kernel(program, dev, "jacobiTemporal", s.tile, local);
    std::printf("temporal: %u sweeps a pass (--fuse), tiles %zu columns wide writing %zu, bands of "
                "%u rows (--band)\n", s.fuse, n, n - 2 * s.fuse, s.band);
    const Run r = sw.temporal(k, s.tile, s.sweeps, s.fuse, s.band, want);
    const double us = table.report("temporal", "jacobiTemporal", s.tile, r);
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

void run_persistent(Lab &lab, cl::Kernel &persistent, Sweeper &sw, const Settings &s,
                    const std::vector<float> &want, Table &table, std::size_t most_groups,
                    double relaunch_us) {
    const DeviceInfo &dev = lab.env.info;
    const std::size_t blocks = (s.I + s.block.x - 1) / s.block.x * ((s.J + s.block.y - 1) / s.block.y);
    const std::size_t launch = std::min(blocks, most_groups);
    const Run r = sw.persistent(persistent, s.block, s.sweeps, launch, s.budget, s.grace, want,
                                expected(dev, launch));
    const double us = table.report("persistent", "jacobiPersistent", s.block, r);
    took_part(lab, "persistent", r, s);
    if (r.ok() && relaunch_us > 0)
        std::printf("persistent: %zu of %zu groups resident; %.2f us per sweep against %.2f "
                    "with one launch per sweep: %s %.1fx\n", r.parts, launch, us, relaunch_us,
                    us < relaunch_us ? "wins" : "loses", us < relaunch_us ? relaunch_us / us : us / relaunch_us);
}

// Groups of one work-item; on a CPU, one a thread is expected.
void run_bands(Lab &lab, const cl::Program &program, Sweeper &sw, const Settings &s,
               const std::vector<float> &want, Table &table, std::size_t most_groups) {
    const DeviceInfo &dev = lab.env.info;
    // here: a file from an older starter has no jacobiBands
    cl::Kernel bands = make_kernel(program, dev, "jacobiBands", Block{1, 1}, 0);
    const Run r = sw.persistent(bands, Block{1, 1}, s.sweeps, most_groups, s.budget, s.grace, want,
                                expected(dev, most_groups));
    table.report("bands", "jacobiBands", Block{1, 1}, r);
    took_part(lab, "bands", r, s);
    if (r.ok())
        std::printf("bands: %zu of %zu groups resident, a band of about %zu rows each\n",
                    r.parts, r.groups, (s.J + r.parts - 1) / r.parts);
}

}  // namespace synclab
