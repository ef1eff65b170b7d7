// For lab 10's main: its options read and checked (one line and exit 2 on bad input), and the
// grid dump the heat map is drawn from.
#pragma once
#include <string>
#include <vector>

#include "jacobi.hpp"

namespace synclab {

struct Settings {
    std::size_t I = 0, J = 0;
    Block block;
    unsigned sweeps = 0, every = 0, rows = 0;
    std::vector<Block> shapes;
    double tolerance = -1;  // < 0: no convergence check
    std::string dump;
    unsigned budget = 0, grace = 0;
    // temporal: its tile (--block, else 256x1 on a GPU and the block elsewhere), sweeps a pass (at
    // most kFuseMax, fewer than half the tile's work-items, at most --sweeps) and the rows a group
    // walks down.
    Block tile;
    unsigned fuse = 0, band = 0;
};

// The kernel's FUSE_MAX: its stages' registers are unrolled up to it.
constexpr unsigned kFuseMax = 16;

Settings settings(const Lab &lab);

// CSV "i,j,u", one row per point, a blank line after each grid row (gnuplot's pm3d reads it so).
void write_dump(const std::string &file, const Grid &g, const std::vector<float> &u);

}  // namespace synclab
