// The work-group size of a lecture-style tree reduction: one element per work-item.
#pragma once
#include <cstddef>

#include "synclab/options.hpp"

namespace synclab {

// --wg, else -n, else min(256, device_max); -n and --wg must agree when both are given, and
// the size must be a power of two (the stride >>= 1 tree). Bad input throws UsageError.
std::size_t tree_work_group_size(const Options &o, std::size_t device_max);

}  // namespace synclab
