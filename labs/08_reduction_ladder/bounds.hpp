// For lab 08's main: what every rung is set against, measured in the same run on the same
// buffer: the read and copy probes (bounds), CLBlast's sum and, on a CPU device, the host's own
// sums (peers, whose fastest runs count among the read probes); printed once above the table,
// then as each row's ratios and, for the host peers, as rows of their own.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "synclab/bandwidth.hpp"
#include "clblast_peer.hpp"
#include "cpu_peers.hpp"
#include "ladder.hpp"
#include "synclab/measure.hpp"

namespace synclab {

struct Bounds {
    // read: the bound, the fastest checked read of the whole buffer (on a CPU a host peer's
    // fastest run may be it: then read.kernel names the peer and read.shape is empty).
    Probe read, copy;
    std::vector<std::pair<std::string, double>> reads;  // every read that was a candidate, GB/s
    LibraryPeer blas;
    std::vector<HostPeer> host;  // on a CPU device: OpenMP, std::threads; each checked
    const HostPeer *fastest_host() const;  // the fastest verified (by median), or nullptr
    // The table's ratio columns for a rung at `gbps`: % read, % copy, x CLBlast, % host.
    void print_ratios(double gbps) const;
    void csv_cells(Csv &csv, double gbps) const;  // the same, as CSV cells
    static const char *header();                  // their column titles
    // The host peers' rows under the rungs (vw, kw: the rung and kernel columns' widths).
    void print_host_rows(int vw, int kw) const;
    bool host_all_right() const;  // no host peer computed a wrong sum
    // After the rungs, before their table: on a CPU the read probe once more (the bound is the
    // fastest read before or after) and the bound line naming the read it took; CLBlast's line.
    void after_rungs(Env &env, const Ladder &l, const std::vector<float> &hx);
    // The line under the table for the best rung.
    std::string best(const std::string &rung, double gbps) const;
};

// Measures and prints every bound and peer for l's input hx (already in l.x), before the rungs.
// A probe that computes wrongly is a UsageError: the device cannot be measured.
Bounds measure_bounds(Env &env, const Ladder &l, const std::vector<float> &hx);

}  // namespace synclab
