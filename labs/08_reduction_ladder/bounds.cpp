#include "bounds.hpp"

#include <cstdio>

#include "synclab/errors.hpp"
#include "synclab/reference.hpp"

namespace synclab {

Bounds measure_bounds(Env &env, const Ladder &l, const std::vector<float> &hx) {
    const DeviceInfo &dev = env.info;
    Bounds b;
    // Grading runs (--exact) check, they do not compare: the probes and CLBlast would only add
    // builds (on POCL, of every probe kernel for each group size) to every sandboxed run.
    if (l.exact) {
        const char *why = "not run with --exact (a run that checks, not one that compares)";
        std::printf("bound: the read and copy probes are %s\n", why);
        b.blas.why_not = why;
        std::printf("CLBlast: %s\n", why);
        return b;
    }
    // A reduction reads n floats: the read probe is its bound. The copy (read + written) beside it.
    b.read = measure_read(env, hx, l.x, l.trials, l.wg);
    b.copy = measure_copy(env, hx, l.x, l.trials, l.wg);
    if (!b.read.verified || !b.copy.verified)
        throw UsageError(std::string("the ") + (b.read.verified ? "copy" : "read") + " probe "
                         "went wrong on " + dev.name + ": this device cannot be measured; try "
                         "another --device");
    // The copy's figure is a copy's bound (lab 10's), shown beside: a reduction may pass it.
    for (const Probe *p : {&b.read, &b.copy})
        std::printf("%s probe, float4 grid-stride, %zu groups of %zu, %s: %.1f MiB %s in "
                    "%.4f ms = %.1f GB/s\n", p == &b.read ? "bound: read" : "beside it: copy", p->shape.groups,
                    p->shape.wg, p->shape.blocked ? "blocked" : "interleaved",
                    p->bytes / 1048576.0, p == &b.read ? "read" : "read and written (counted both)",
                    p->ms, p->gbps);
    if (dev.is_oclgrind()) b.blas.why_not = "not run on Oclgrind (its times mean nothing)";
    else b.blas = time_clblast_sum(env, l.x, l.n, l.trials);
    // CLBlast's order of additions is its own: the loosest tolerance, n terms in a row.
    if (b.blas.ran && !close(b.blas.value, l.want, tolerance(l.n, l.abs_sum, l.n))) {
        std::printf("CLBlast: CLBlastSsum WRONG: %.9g, want %.9g; no ratios against it\n",
                    b.blas.value, l.want);
        b.blas.ran = false;
    } else if (b.blas.ran) {
        std::printf("CLBlast: CLBlastSsum of the same buffer, %.4f ms = %.1f GB/s (%.1f%% of read)%s, "
                    "verified\n", b.blas.ms, b.blas.gbps, percent_of(b.blas.gbps, b.read.gbps),
                    b.blas.last_kernel_only ? " (its last kernel only: this driver does not time "
                                              "markers, so CLBlast looks faster than it is)" : "");
    } else {
        std::printf("CLBlast: %s\n", b.blas.why_not.c_str());
    }
    if (dev.is_cpu()) {
        b.host = time_host_sum(hx, l.trials);
        const bool ok = close(b.host.value, l.want,
                              tolerance(l.n, l.abs_sum, host_serial(l.n, b.host.threads)));
        std::printf("host peer: %u std::threads, %.4f ms = %.1f GB/s (%.1f%% of read), %s\n",
                    b.host.threads, b.host.ms, b.host.gbps, percent_of(b.host.gbps, b.read.gbps),
                    ok ? "verified" : "WRONG");
        if (!ok) b.host.gbps = 0;  // no percentages against a wrong peer
    }
    return b;
}

const char *Bounds::header() { return "  % read  % copy xCLBlast  % host"; }

void Bounds::print_ratios(double gbps) const {
    if (read.verified) std::printf(" %7.1f %7.1f ", percent_of(gbps, read.gbps), percent_of(gbps, copy.gbps));
    else std::printf(" %7s %7s ", "-", "-");
    if (blas.ran) std::printf("%7.2fx ", gbps / blas.gbps);
    else std::printf("%8s ", "-");
    if (host.gbps > 0) std::printf("%7.1f", percent_of(gbps, host.gbps));
    else std::printf("%7s", "-");
}

void Bounds::csv_cells(Csv &csv, double gbps) const {
    if (read.verified) {
        csv("read_gbps", read.gbps)("copy_gbps", copy.gbps);
        if (gbps > 0)
            csv("pct_of_read", percent_of(gbps, read.gbps))("pct_of_copy", percent_of(gbps, copy.gbps));
    }
    if (blas.ran) {
        csv("clblast_gbps", blas.gbps);
        if (gbps > 0) csv("x_clblast", gbps / blas.gbps);
    }
    if (host.gbps > 0) {
        csv("host_gbps", host.gbps);
        if (gbps > 0) csv("pct_of_host", percent_of(gbps, host.gbps));
    }
}

std::string Bounds::best(const std::string &rung, double gbps) const {
    char more[120];
    std::snprintf(more, sizeof more, "best: %s at %.1f GB/s", rung.c_str(), gbps);
    std::string s = read.verified ? best_line(rung, gbps, read.gbps, copy.gbps) : more;
    if (blas.ran) {
        std::snprintf(more, sizeof more, "; %.2fx CLBlast", gbps / blas.gbps);
        s += more;
    }
    if (host.gbps > 0) {
        std::snprintf(more, sizeof more, "; %.1f%% of the host peer", percent_of(gbps, host.gbps));
        s += more;
    }
    return s;
}

}  // namespace synclab
