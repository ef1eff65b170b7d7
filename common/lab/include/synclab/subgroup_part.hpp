// For labs 04 and 08: the part of a kernel file under #ifdef WITH_SUBGROUPS, built for real
// where the device has sub-groups, and elsewhere compiled against stand-ins for the built-ins
// (never run), so that a mistake in it is a compile error on every device.
#pragma once
#include <string>

#include "synclab/lab.hpp"
#include "synclab/subgroups.hpp"

namespace synclab {

struct SubgroupPart {
    SubgroupSupport support;
    bool runs = false;    // its kernels may run on this device at this work-group size
    cl::Program program;  // the real build, where the device has sub-groups
    std::size_t wg = 0;
    // Where it cannot run: "not checked on this device (<what it lacks>): compiles", or "not
    // checked at --wg N (<why>): compiles; use a larger --wg" below support.smallest_wg.
    std::string not_checked() const;
};

// Builds the lab's kernel file with `options` plus -D WITH_SUBGROUPS: with the device's own
// sub-groups where it has them, else with subgroup_standin_options(). It runs only at work-groups
// of `wg` from support.smallest_wg up. A build error throws BuildError naming the student's
// file:line (exit 2), said to be in the sub-group part when it came from the stand-in build.
SubgroupPart build_subgroup_part(const Lab &lab, const std::string &options, std::size_t wg);

}  // namespace synclab
