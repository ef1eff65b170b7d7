// For labs 04 and 08 and the tests: what a device says about sub-groups (NVIDIA's warps, AMD's wavefronts): whether kernels may
// call the sub_group_* built-ins, how wide the sub-groups are, and what the vendor reports.
#pragma once
#include <cstddef>
#include <string>

#include "synclab/cl.hpp"

namespace synclab {

struct SubgroupSupport {
    bool builtins = false;      // kernels may call sub_group_reduce_add and friends
    std::string how;            // "cl_khr_subgroups" or "__opencl_c_subgroups (OpenCL C 3.0)"
    std::string why_not;        // when !builtins: one phrase saying what the device lacks
    std::string build_options;  // the -cl-std that declares them ("-cl-std=CL3.0"), or empty
    std::size_t hw_width = 0;   // the vendor's own warp or wavefront width (0: not reported)
    std::string hw_width_from;  // the query that gave it, e.g. "CL_DEVICE_WARP_SIZE_NV"
    // The built-ins work only in work-groups of at least this many work-items (1: any), and
    // why, when more than 1. A kernel that calls one in a smaller group must not be launched.
    std::size_t smallest_wg = 1;
    std::string smallest_wg_why;
};

SubgroupSupport subgroup_support(const cl::Device &dev);

// The major version of POCL in a platform version ("OpenCL 3.0 PoCL 5.0+debian  Linux, ..."
// gives 5); 0 when the platform is not POCL.
int pocl_major_version(const std::string &platform_version);

// Build options that stand in for the sub_group_* built-ins of cl_khr_subgroups (and the
// shuffle, vote, ballot and clustered-reduce ones that extend it), each a plain value of the
// right kind, so that sub-group code compiles on a device without sub-groups. A compile check
// only: code built with them computes nothing meaningful and must never run.
std::string subgroup_standin_options();

// The widest sub-group `k` runs in at local size wg (CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE);
// 0 where the device or the ICD loader cannot say.
std::size_t kernel_subgroup_size(const cl::Kernel &k, const cl::Device &dev, std::size_t wg);

}  // namespace synclab
