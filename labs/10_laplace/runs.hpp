// For lab 10's main: running one variant's kernels (the block shapes, the temporal sweep, the
// persistent sweeps) and reporting them in the table.
#pragma once
#include <string>
#include <vector>

#include "settings.hpp"
#include "table.hpp"

namespace synclab {

// The local memory of jacobiTiled's tile for block b: the block and its one-point halo.
std::size_t tile_bytes(Block b);

// The kernel `name`, checked to launch in groups of b with local_bytes of local memory.
cl::Kernel make_kernel(const cl::Program &program, const DeviceInfo &dev, const char *name,
                       Block b, std::size_t local_bytes);

// The `shapes` variant: every one-launch-per-sweep kernel at each block shape.
void run_shapes(const cl::Program &program, const DeviceInfo &dev, const Settings &s,
                const std::vector<float> &want, Sweeper &sw, Table &table);

// The temporal variant: fuse sweeps a pass, beside the fastest one-sweep kernel run before it.
void run_temporal(const cl::Program &program, const DeviceInfo &dev, const Settings &s,
                  const std::vector<float> &want, Sweeper &sw, Table &table, double copy_gbps);

// The persistent sweep (every sweep in one launch, lab 09's barrier between groups), told
// against one launch a sweep (relaunch_us, 0: not run), and the bands (a group a band).
void run_persistent(Lab &lab, cl::Kernel &persistent, Sweeper &sw, const Settings &s,
                    const std::vector<float> &want, Table &table, std::size_t most_groups,
                    double relaunch_us);
void run_bands(Lab &lab, const cl::Program &program, Sweeper &sw, const Settings &s,
               const std::vector<float> &want, Table &table, std::size_t most_groups);

}  // namespace synclab
