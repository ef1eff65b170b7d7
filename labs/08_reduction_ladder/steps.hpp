// For lab 08's main: the steps of its run, each one thing, in the order main takes them.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "bounds.hpp"
#include "ladder.hpp"
#include "synclab/lab.hpp"
#include "synclab/subgroup_part.hpp"

namespace synclab {

// The ladder's shape from the options and the device: work-group size, n, groups, layout.
Ladder shape_of(Lab &lab);

// Every selected rung measured, each a kernel of the one build.
std::vector<std::pair<std::string, Measured>>
measure_rungs(Lab &lab, std::vector<std::pair<std::string, cl::Kernel>> &kernels, Ladder &l);

// The table of the rungs against the bounds and peers: one verdict a rung, the fastest verified
// rung and its GB/s in *best.
std::vector<Verdict> print_rungs(Lab &lab, const std::vector<std::pair<std::string, Measured>> &rungs,
                                 const Ladder &l, Bounds &bounds, const SubgroupPart &part,
                                 std::pair<std::string, double> *best);

}  // namespace synclab
