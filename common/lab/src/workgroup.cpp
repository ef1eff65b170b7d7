#include "synclab/workgroup.hpp"

#include <algorithm>
#include <string>

#include "synclab/errors.hpp"

namespace synclab {

std::size_t pow2_work_group_size(const Options &o, std::size_t device_max, std::size_t least) {
    const std::size_t wg = o.wg ? o.wg : std::min<std::size_t>(256, device_max);
    if (wg < least || (wg & (wg - 1)))
        throw UsageError("work-group size " + std::to_string(wg) + " is not a power of two" +
                         (least > 1 ? " of at least " + std::to_string(least) : std::string()) +
                         ", which the stride >>= 1 tree needs: use --wg 64, 128 or 256");
    return wg;
}

std::size_t tree_work_group_size(const Options &o, std::size_t device_max) {
    if (o.n && o.wg && o.n != o.wg)
        throw UsageError("-n " + std::to_string(o.n) + " and --wg " + std::to_string(o.wg) +
                         " differ: here each work-item takes one element, so give one of them "
                         "(use --groups for more work-groups)");
    Options one = o;
    if (!one.wg) one.wg = o.n;
    return pow2_work_group_size(one, device_max);
}

}  // namespace synclab
