// For lab 08's main: what every rung is set against, measured in the same run on the same
// buffer: the read and copy probes (bounds), CLBlast's sum and, on a CPU device, the host's
// threads (peers); printed once above the table, then as each row's ratios.
#pragma once
#include <string>
#include <vector>

#include "synclab/bandwidth.hpp"
#include "clblast_peer.hpp"
#include "ladder.hpp"
#include "synclab/measure.hpp"

namespace synclab {

struct Bounds {
    Probe read, copy;
    LibraryPeer blas;
    HostPeer host;  // host.gbps 0: none (not a CPU device, or its sum was wrong)
    // The table's ratio columns for a rung at `gbps`: % read, % copy, x CLBlast, % host.
    void print_ratios(double gbps) const;
    void csv_cells(Csv &csv, double gbps) const;  // the same, as CSV cells
    static const char *header();                  // their column titles
    // The line under the table for the best rung.
    std::string best(const std::string &rung, double gbps) const;
};

// Measures and prints every bound and peer for l's input hx (already in l.x). A probe that
// computes wrongly is a UsageError: the device cannot be measured.
Bounds measure_bounds(Env &env, const Ladder &l, const std::vector<float> &hx);

}  // namespace synclab
