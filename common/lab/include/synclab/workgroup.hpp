// For the tree-reduction labs (01-04, 08): the work-group size of a lecture-style tree reduction: one element per work-item.
#pragma once
#include <cstddef>

#include "synclab/options.hpp"

namespace synclab {

// --wg, else min(256, device_max); it must be a power of two (the stride >>= 1 trees) of at
// least `least`. Bad input throws UsageError.
std::size_t pow2_work_group_size(const Options &o, std::size_t device_max, std::size_t least = 1);

// As above, with one element per work-item: -n may stand for --wg, and the two must agree.
std::size_t tree_work_group_size(const Options &o, std::size_t device_max);

}  // namespace synclab
