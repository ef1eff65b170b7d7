// For lab 10's main: options and the grid dump (settings.hpp).
#include "settings.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace synclab {

// The lecture's shapes and their neighbours: wide and flat (32:1 and more) to tall and thin.
static const char *kAllShapes = "32x1,64x1,128x1,256x1,32x2,32x4,64x4,32x8,16x16,8x8,4x32,1x32";

static std::vector<Block> block_list(const std::string &text) {
    std::vector<Block> out;
    std::istringstream in(text == "all" ? kAllShapes : text);
    for (std::string item; std::getline(in, item, ',');) out.push_back(parse_block("--shapes", item));
    if (out.empty()) throw UsageError("--shapes '" + text + "' names no block: e.g. --shapes 32x1,8x8");
    return out;
}

// temporal's tile and sweeps a pass. On a GPU a tile of 256 work-items and 16 sweeps a pass (an
// H100 ran 16 at 1.19x rows4, 8 at 0.94x: a step's load, barrier and stores are paid once for all
// its sweeps), cut to the device's local memory; 4 on a CPU, 3 on Oclgrind. A default is cut to
// fit the tile and the sweeps, a --fuse that does not fit is refused. The band: long on a GPU
// (fuse rows above a band are swept twice), short on a CPU and Oclgrind, so that the grading's
// small grids have several bands.
static void temporal_settings(Settings &s, const cxxopts::ParseResult &x, const DeviceInfo &dev,
                              bool given) {
    const bool og = dev.is_oclgrind(), cpu = dev.is_cpu();
    s.tile = given || cpu || og ? s.block : Block{256, 1};
    const unsigned n = unsigned(std::min<std::size_t>(s.tile.x * s.tile.y, 2 * kFuseMax + 1));
    s.band = x.count("band") ? x["band"].as<unsigned>() : og ? 4 : cpu ? 16 : 256;
    if (s.band < 1 || s.band > 32768)
        throw UsageError("--band " + std::to_string(s.band) + " is out of range: use 1 to 32768 rows");
    if (!x.count("fuse")) {
        // two lines of the tile a sweep: 2 * fuse * tile floats of local memory
        const auto fits = unsigned(dev.local_mem / (2 * sizeof(float) * s.tile.x * s.tile.y));
        s.fuse = std::max(1u, std::min({og ? 3u : cpu ? 4u : std::min(kFuseMax, fits), (n - 1) / 2,
                                        s.sweeps}));
        return;
    }
    s.fuse = x["fuse"].as<unsigned>();
    if (s.fuse < 1 || s.fuse > kFuseMax)
        throw UsageError("--fuse " + std::to_string(s.fuse) + " is out of range: use 1 to " +
                         std::to_string(kFuseMax) + " sweeps a pass");
    if (2 * s.fuse >= n)
        throw UsageError("--fuse " + std::to_string(s.fuse) + " needs a block of more than " +
                         std::to_string(2 * s.fuse) + " work-items (--block " + s.tile.text() +
                         " has " + std::to_string(s.tile.x * s.tile.y) + "): give a larger --block "
                         "or a smaller --fuse");
}

Settings settings(const Lab &lab) {
    const DeviceInfo &dev = lab.env.info;
    const cxxopts::ParseResult &x = lab.opt.extra;
    const bool og = dev.is_oclgrind(), cpu = dev.is_cpu();
    Settings s;
    if (lab.opt.wg && x.count("block"))
        throw UsageError("--wg " + std::to_string(lab.opt.wg) + " and --block both give the work-group: "
                         "use --block BXxBY alone (--wg N is the block Nx1)");
    if (lab.opt.n) throw UsageError("-n is one number; lab 10's grid is 2D: use --grid 256x256");
    lab.reject_groups("the grid and --block give the work-groups");
    if (lab.opt.exact)
        throw UsageError("--exact is for the labs that add random floats; lab 10 is always compared "
                         "bit for bit: leave out --exact");
    // On a CPU 1024x1024: on a smaller grid a launch over many threads costs more than moving the
    // grid's data, and the copy probe would time the launch, not the memory.
    const Block grid = x.count("grid") ? parse_block("--grid", x["grid"].as<std::string>())
                       : og ? Block{18, 11} : cpu ? Block{1024, 1024} : Block{4096, 4096};
    s.I = grid.x;
    s.J = grid.y;
    s.block = x.count("block") ? parse_block("--block", x["block"].as<std::string>())
              : lab.opt.wg ? Block{lab.opt.wg, 1}
              : og ? Block{8, 4} : cpu ? Block{16, 4} : Block{32, 4};
    s.sweeps = x.count("sweeps") ? x["sweeps"].as<unsigned>() : og ? 3 : cpu ? 40 : 200;
    // On a GPU two rows a work-item keep more work-items in flight (rows4 at 97-98 % of the copy
    // probe on an H100 at 8192x8192, 89-91 % at four); a CPU walks longer columns.
    s.rows = x.count("rows") ? x["rows"].as<unsigned>() : cpu || og ? 4 : 2;
    s.every = x.count("every") ? x["every"].as<unsigned>() : std::max(1u, s.sweeps / 4);
    s.shapes = x.count("shapes") ? block_list(x["shapes"].as<std::string>())
               : cpu || og ? std::vector<Block>{s.block} : block_list("all");
    if (x.count("tolerance")) s.tolerance = x["tolerance"].as<double>();
    if (x.count("dump")) s.dump = x["dump"].as<std::string>();
    // A spin poll costs about 1 ns on a CPU core, about 1 us on a GPU, far more on Oclgrind.
    s.budget = x.count("budget") ? x["budget"].as<unsigned>() : og ? 1u << 18 : cpu ? 1u << 27 : 1u << 21;
    // Oclgrind's schedule (--schedule) lets every newcomer in before a poll repeats itself long;
    // its patience (2^14 vain polls) must outlast the quiet window.
    const unsigned og_grace = lab.opt.schedule ? 1u << 10 : 1u << 15;
    // On a CPU the poll closes once every compute unit's group came (main.cpp, expected()): a long
    // quiet window (2^23 polls, about 10 ms) costs nothing then, and outlasts a thread a busy host
    // keeps off its core for a few milliseconds (2^19 let 1 of 2 groups in beside two busy loops).
    s.grace = x.count("grace") ? x["grace"].as<unsigned>() : og ? og_grace : cpu ? 1u << 23 : 1u << 12;

    temporal_settings(s, x, dev, x.count("block") || lab.opt.wg);
    if (s.I < 3 || s.J < 3 || s.I > 32768 || s.J > 32768)
        throw UsageError("--grid " + grid.text() + " is out of range: use 3 to 32768 points each way "
                         "(3x3 has one interior point)");
    require_fits(dev, "--grid", s.I, s.J, sizeof(float));
    if (s.sweeps < 1 || s.sweeps > 1000000)
        throw UsageError("--sweeps " + std::to_string(s.sweeps) + " is out of range: use 1 to 1000000");
    if (s.rows < 1 || s.rows > 4096)
        throw UsageError("--rows " + std::to_string(s.rows) + " is out of range: use 1 to 4096");
    if (s.budget < 16) throw UsageError("--budget must be at least 16 polls");
    if (x.count("tolerance") && !(s.tolerance >= 0))
        throw UsageError("--tolerance must be 0 or more, e.g. --tolerance 1e-5");
    if (!s.dump.empty() && !std::ofstream(s.dump))
        throw UsageError("--dump " + s.dump + " cannot be written: name a file in a folder that exists");
    // Last: a device limit makes the run "not checked" for the grader, a bad option never does.
    for (const Block &b : s.shapes)
        if (b.x * b.y > dev.max_wg && x.count("shapes") && s.shapes.size() == 1)
            throw Unsupported("--shapes " + b.text() + " has more work-items than this device's "
                             "largest work-group (" + std::to_string(dev.max_wg) + ")");
    if (s.block.x * s.block.y > dev.max_wg)
        throw Unsupported("--block " + s.block.text() + " is " + std::to_string(s.block.x * s.block.y) +
                         " work-items, more than this device's largest work-group: use at most " +
                         std::to_string(dev.max_wg));
    return s;
}

void write_dump(const std::string &file, const Grid &g, const std::vector<float> &u) {
    std::ofstream out(file);
    out << "i,j,u\n";
    for (std::size_t j = 0; j < g.J; ++j) {
        for (std::size_t i = 0; i < g.I; ++i) out << i << ',' << j << ',' << u[i + j * g.I] << '\n';
        out << '\n';
    }
}

}  // namespace synclab
