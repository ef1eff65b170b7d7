// For lab 05's main: its options read and checked, one line and exit 2 on bad input.
#pragma once
#include <cstddef>

#include "divergence.hpp"
#include "synclab/lab.hpp"

namespace synclab {

// -k, --iters and --simd, each checked against what the kernels and the host check can take.
Params params(const Lab &lab);
// --wg (default 64), a multiple of --simd so warps line up with the uniform blocks.
std::size_t work_group(Lab &lab, const Params &p);
// -n, a multiple of wg; by default enough for the device (a GPU full even with one lane busy).
std::size_t work_items(const Lab &lab, std::size_t wg);

}  // namespace synclab
