#include "bounds.hpp"

#include <cstdio>

#include "synclab/errors.hpp"
#include "synclab/reference.hpp"

namespace synclab {

// The copy's figure is a copy's bound (lab 10's), shown beside: a reduction may pass it.
static void print_probe(const Probe &p, bool read, const char *when = "") {
    std::printf("%s probe %s%s, %zu groups of %zu, %s: %.1f MiB %s in %.4f ms = %.1f GB/s\n",
                read ? "bound: read" : "beside it: copy", p.kernel.c_str(), when, p.shape.groups, p.shape.wg,
                p.shape.blocked ? "blocked" : "interleaved", p.bytes / 1048576.0,
                read ? "read" : "read and written (counted both)", p.ms, p.gbps);
}

// The read bound: the fastest checked read of the whole buffer so far (the OpenCL read probe's,
// or a host peer's fastest run).
static void take_read(Bounds &b, const std::string &what, const Probe &p) {
    b.reads.emplace_back(what, p.gbps);
    if (p.gbps > b.read.gbps) b.read = p;
}

// On a CPU the host's own loops read the same buffer, and may read it faster than any OpenCL
// kernel: each verified peer's fastest run is one more read probe. They read the rungs' buffer
// itself, mapped: its pages (huge or not) and placement are the rungs' too.
static void host_peers(Env &env, Bounds &b, const Ladder &l) {
    auto *x = static_cast<const float *>(env.queue.enqueueMapBuffer(
        l.x, CL_TRUE, CL_MAP_READ, 0, l.n * sizeof(float)));
    b.host = {time_openmp_sum({x, l.n}, l.trials), time_threads_sum({x, l.n}, l.trials)};
    env.queue.enqueueUnmapMemObject(l.x, const_cast<float *>(x));
    env.queue.finish();
    for (HostPeer &p : b.host) {
        if (p.name == "OpenMP" && !openmp_built_in()) {
            std::printf("host peer OpenMP: %s\n", p.wrong.c_str());
            continue;
        }
        check_peer(p, l.n, l.want, l.abs_sum);
        std::printf("host peer %s (%s): %s, fastest %.4f ms; %s\n", p.name.c_str(),
                    p.how.c_str(), p.verified ? "verified" : ("WRONG: " + p.wrong).c_str(),
                    p.fastest_ms, p.runs_text().c_str());
        if (!p.verified) continue;  // a wrong sum is no read of the buffer
        Probe read = b.read;
        read.kernel = p.name;
        read.shape = {};  // no OpenCL launch: a host peer's fastest run
        read.ms = p.fastest_ms;
        read.gbps = p.fastest_gbps;
        take_read(b, p.name, read);
    }
}

Bounds measure_bounds(Env &env, const Ladder &l, const std::vector<float> &hx) {
    const DeviceInfo &dev = env.info;
    Bounds b;
    // Grading runs (--exact) check, they do not compare: the probes and CLBlast would only add
    // builds (on POCL, of every probe kernel for each group size) to every sandboxed run.
    if (l.exact) {
        const char *why = "not run with --exact (a run that checks, not one that compares)";
        std::printf("bound: the read and copy probes are %s\n", why);
        b.blas.why_not = why;
        return b;
    }
    // A reduction reads n floats: the read probe is its bound. The copy (read + written) beside it.
    const Probe read = measure_read(env, hx, l.x, l.trials, l.wg);
    b.copy = measure_copy(env, hx, l.x, l.trials, l.wg);
    if (!read.verified || !b.copy.verified)
        throw UsageError(std::string("the ") + (read.verified ? "copy" : "read") + " probe "
                         "went wrong on " + dev.name + ": this device cannot be measured; try "
                         "another --device");
    print_probe(read, true);
    print_probe(b.copy, false);
    take_read(b, read.kernel, read);
    if (dev.is_cpu() && !dev.is_oclgrind()) host_peers(env, b, l);
    if (dev.is_oclgrind()) b.blas.why_not = "not run on Oclgrind (its times mean nothing)";
    else b.blas = time_clblast_sum(env, l.x, l.n, l.trials);
    // CLBlast's order of additions is its own: the loosest tolerance, n terms in a row.
    if (b.blas.ran && !within(b.blas.value, l.want, tolerance(l.n, l.abs_sum, l.n))) {
        char wrong[120];
        std::snprintf(wrong, sizeof wrong, "CLBlastSsum WRONG: %.9g, want %.9g; no ratios against it",
                      b.blas.value, l.want);
        b.blas.why_not = wrong;
        b.blas.ran = false;
    }
    return b;
}

void Bounds::after_rungs(Env &env, const Ladder &l, const std::vector<float> &hx) {
    const DeviceInfo &dev = env.info;
    // A shared CPU's load comes and goes while the rungs run: the read probe again after them, so
    // that the bound is the fastest read before or after, not one busy moment's.
    if (dev.is_cpu() && !dev.is_oclgrind() && !l.exact) {
        const Probe again = measure_read(env, hx, l.x, l.trials, l.wg);
        if (!again.verified)
            throw UsageError("the read probe went wrong on " + dev.name + " after the rungs: this "
                             "device cannot be measured; try another --device");
        print_probe(again, true, " (again, after the rungs)");
        take_read(*this, again.kernel + " after the rungs", again);
        std::string each;
        for (const auto &[what, gbps] : reads) {
            char one[80];
            std::snprintf(one, sizeof one, "%s%s %.1f", each.empty() ? "" : ", ", what.c_str(), gbps);
            each += one;
        }
        std::printf("bound: read = %.1f GB/s by %s (%s), the fastest of %zu checked reads of the "
                    "whole buffer: %s GB/s; on a CPU the host's own loops may read faster than its "
                    "OpenCL kernels, so they count\n", read.gbps, read.kernel.c_str(),
                    read.shape.groups ? "the OpenCL probe" : "a host peer's fastest run",
                    reads.size(), each.c_str());
    }
    if (blas.ran)
        std::printf("CLBlast: CLBlastSsum of the same buffer, %.4f ms = %.1f GB/s (%.1f%% of read)%s, "
                    "verified\n", blas.ms, blas.gbps, percent_of(blas.gbps, read.gbps),
                    blas.last_kernel_only ? " (its last kernel only: this driver does not time "
                                            "markers, so CLBlast looks faster than it is)" : "");
    else
        std::printf("CLBlast: %s\n", blas.why_not.c_str());
}

const HostPeer *Bounds::fastest_host() const {
    const HostPeer *best = nullptr;
    for (const HostPeer &p : host)
        if (p.verified && (!best || p.gbps > best->gbps)) best = &p;
    return best;
}

bool Bounds::host_all_right() const {
    for (const HostPeer &p : host)
        if (!p.verified && !(p.name == "OpenMP" && !openmp_built_in())) return false;
    return true;
}

const char *Bounds::header() { return "  % read  % copy xCLBlast  % host"; }

void Bounds::print_ratios(double gbps) const {
    if (read.verified) std::printf(" %7.1f %7.1f ", percent_of(gbps, read.gbps), percent_of(gbps, copy.gbps));
    else std::printf(" %7s %7s ", "-", "-");
    if (blas.ran) std::printf("%7.2fx ", gbps / blas.gbps);
    else std::printf("%8s ", "-");
    // '*': the peer's runs spread wide, the ratio with them (its row says how wide).
    if (const HostPeer *h = fastest_host())
        std::printf(h->runs.wide() ? "%6.1f*" : "%7.1f", percent_of(gbps, h->gbps));
    else std::printf("%7s", "-");
}

void Bounds::print_host_rows(int vw, int kw) const {
    for (const HostPeer &p : host) {
        if (p.name == "OpenMP" && !openmp_built_in()) continue;
        std::printf("%-*s %-*s %6s %7s ", vw, "peer", kw, p.name.c_str(), "-", "-");
        if (!p.verified) {
            std::printf("%11s %8s %7s %7s %8s %7s  WRONG: %s\n", "-", "-", "-", "-", "-", "-",
                        p.wrong.c_str());
            continue;
        }
        std::printf("%11.4f %8.1f", p.ms, p.gbps);
        print_ratios(p.gbps);
        std::printf("  verified (%s)\n", p.runs_text().c_str());
    }
    const HostPeer *h = fastest_host();
    if (h && h->runs.wide())
        std::printf("%% host *: against %s, whose runs spread wide (%s)\n",
                    h->name.c_str(), h->runs_text().c_str());
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
    if (const HostPeer *h = fastest_host()) {
        csv("host_gbps", h->gbps);
        if (gbps > 0) csv("pct_of_host", percent_of(gbps, h->gbps));
    }
}

std::string Bounds::best(const std::string &rung, double gbps) const {
    char more[160];
    std::snprintf(more, sizeof more, "best: %s at %.1f GB/s", rung.c_str(), gbps);
    std::string s = read.verified ? best_line(rung, gbps, read.gbps, copy.gbps) : more;
    if (blas.ran) {
        std::snprintf(more, sizeof more, "; %.2fx CLBlast", gbps / blas.gbps);
        s += more;
    }
    if (const HostPeer *h = fastest_host()) {
        std::snprintf(more, sizeof more, "; %.2fx the fastest host peer (%s, ", gbps / h->gbps,
                      h->name.c_str());
        s += more + h->runs_text() + ")";
    }
    return s;
}

}  // namespace synclab
