// Lab 05's options read and checked (settings.hpp): one line and exit 2 on bad input.
#include "settings.hpp"

#include <algorithm>

namespace synclab {

// -k, --iters and --simd, each checked against what the kernels and the host check can take.
Params params(const Lab &lab) {
    const cxxopts::ParseResult &x = lab.opt.extra;
    Params p{x["ways"].as<int>(), x["iters"].as<int>(), x["simd"].as<int>()};
    // Oclgrind interprets every instruction: keep its default run to seconds.
    if (lab.env.info.is_oclgrind() && !x.count("iters")) p.iters = 16;
    if (lab.opt.exact)
        throw UsageError("--exact is for the labs that add numbers; lab 05 turns points, checked "
                         "within a tolerance: leave out --exact");
    if (p.k < 1 || p.k > kOps)
        throw UsageError("-k " + std::to_string(p.k) + " is out of range: use -k 1 to 32 (the "
                         "kernels' switch has 32 cases)");
    if (p.iters < 1 || p.iters > (1 << 20))
        throw UsageError("--iters " + std::to_string(p.iters) +
                         " is out of range: use 1 to 1048576");
    if (p.simd < 1 || p.simd > 256)
        throw UsageError("--simd " + std::to_string(p.simd) + " is out of range: use 1 to 256 "
                         "(32 on NVIDIA, 64 on AMD wavefronts)");
    return p;
}

std::size_t work_group(Lab &lab, const Params &p) {
    lab.reject_groups("give the number of work-items with -n");
    const std::size_t wg = lab.opt.wg ? lab.opt.wg : std::min<std::size_t>(64, lab.env.info.max_wg);
    if (wg % p.simd)
        throw UsageError("--wg " + std::to_string(wg) + " is not a multiple of --simd " +
                         std::to_string(p.simd) + ", so warps would not line up with the uniform "
                         "blocks: use --wg " + std::to_string(p.simd * 2));
    return wg;
}

std::size_t work_items(const Lab &lab, std::size_t wg) {
    const DeviceInfo &dev = lab.env.info;
    // Enough items that even one warp in simd busy keeps a GPU full; a CPU runs one at a time.
    std::size_t n = lab.opt.n            ? lab.opt.n
                    : dev.is_oclgrind() ? 1024
                                        : std::size_t(dev.compute_units) * (dev.is_cpu() ? 2048 : 32768);
    if (!lab.opt.n) n = (n + wg - 1) / wg * wg;
    const std::size_t most = (std::size_t(1) << 30) / wg * wg;
    if (n % wg || n > most)
        throw UsageError("-n " + std::to_string(n) + " must be a multiple of the work-group size " +
                         std::to_string(wg) + " and at most 2^30: use -n " +
                         std::to_string(std::min((n / wg + 1) * wg, most)));
    return n;
}

}  // namespace synclab
