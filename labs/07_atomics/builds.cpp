// Lab 07's builds (atomics.hpp): the kernel file built as each selected variant needs it, and
// why this device cannot run a variant.
#include <algorithm>

#include "atomics.hpp"
#include "synclab/program_text.hpp"
#include "synclab/subgroups.hpp"

using namespace synclab;

namespace lab07 {

namespace {

bool has_word(const std::string &list, const std::string &word) {
    return (" " + list + " ").find(" " + word + " ") != std::string::npos;
}

// What this device lacks for a variant of the OpenCL 2.0 build, "" for nothing. Both are core in
// OpenCL 2.x and optional in 3.0, where a device says what it has: ask it, not its version.
std::string c2_lacks(const cl::Device &d, const std::string &std, const std::string &variant) {
    if (std.empty() && variant == "lock_c11" &&
        d.getInfo<CL_DEVICE_NAME>().find("Oclgrind") != std::string::npos)
        return "an OpenCL 1.x device: no OpenCL C 2.0 (Oclgrind 21.10 runs no OpenCL 2.0 atomics, "
               "so hbcheck cannot check this lock's fences here)";
    if (std.empty()) return "an OpenCL 1.x device: no OpenCL C 2.0";
    if (std == "-cl-std=CL2.0") return "";
    if (variant == "lock_c11") {
        cl_bitfield fence = 0, atomics = 0;
        clGetDeviceInfo(d(), CL_DEVICE_ATOMIC_FENCE_CAPABILITIES, sizeof fence, &fence, nullptr);
        clGetDeviceInfo(d(), CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES, sizeof atomics, &atomics,
                        nullptr);
        if (!(fence & CL_DEVICE_ATOMIC_ORDER_ACQ_REL) || !(fence & CL_DEVICE_ATOMIC_SCOPE_DEVICE))
            return "no acquire/release fence at device scope in "
                   "CL_DEVICE_ATOMIC_FENCE_CAPABILITIES";
        if (!(atomics & CL_DEVICE_ATOMIC_SCOPE_DEVICE))
            return "no device-scope atomics in CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES";
        return "";
    }
    cl_bool wg = CL_FALSE;
    clGetDeviceInfo(d(), CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT, sizeof wg, &wg,
                    nullptr);
    return wg ? "" : "no work-group collective functions: "
                     "CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT is false";
}

bool has_kernel(const cl::Program &p, const std::string &name) {
    try {
        cl::Kernel k(p, name.c_str());
        return true;
    } catch (const cl::Error &) {  // exceptions on: a missing kernel throws
        return false;
    }
}

}  // namespace

cl::Program &Builds::of(const std::string &variant) {
    if (variant == "vote_subgroup" || variant == "vote_ballot") return sg.program;
    if (variant == "lock_c11" || variant == "syncreduce_builtin") return c2;
    return program;
}

Builds build(Lab &lab, const Setup &s, const std::string &defines) {
    const DeviceInfo &dev = lab.env.info;
    const std::vector<std::string> selected = lab.selected_variants();
    auto wants = [&](const std::string &v) {
        return std::find(selected.begin(), selected.end(), v) != selected.end();
    };
    Builds b;
    b.program = lab.program(defines);
    // The sub-group part, compiled on every device (against stand-ins where there are no
    // sub-groups): a mistake in it is a compile error everywhere. The ballot kernel only where
    // the device lists cl_khr_subgroup_ballot, or with the stand-ins.
    const SubgroupSupport sup = subgroup_support(dev.device);
    const bool ballot = sup.builtins && has_word(dev.device.getInfo<CL_DEVICE_EXTENSIONS>(),
                                                 "cl_khr_subgroup_ballot");
    b.sg = build_subgroup_part(lab, defines + (ballot || !sup.builtins ? " -D WITH_BALLOT" : ""),
                               s.wg);
    if (!b.sg.runs) {
        b.why_not["vote_subgroup"] = b.why_not["vote_ballot"] = b.sg.not_checked();
        if (sup.builtins) b.at_this_wg = {"vote_subgroup", "vote_ballot"};
    } else if (!ballot)
        b.why_not["vote_ballot"] = "not checked on this device (no cl_khr_subgroup_ballot)";
    else if (wants("vote_ballot")) {
        // A ballot is a uint4: one bit for each of up to 128 members. POCL's sub-group is the
        // whole work-group, so --wg 256 makes sub-groups that no ballot can hold.
        const std::size_t width = kernel_subgroup_size(cl::Kernel(b.sg.program, "voteBallot"),
                                                       dev.device, s.wg);
        if (width > 128) {
            b.why_not["vote_ballot"] = "not checked with sub-groups of " + std::to_string(width) +
                                       " (a ballot's uint4 holds 128 members): use --wg 128 or less";
            b.at_this_wg.insert("vote_ballot");
        }
    }
    // The OpenCL 2.0 build, where the device says it has what the kernel needs. A build error
    // there is the kernel file's (exit 2); a kernel its feature macros leave out is skipped.
    b.c2_std = synclab::c11_std(dev.device);
    std::vector<std::string> c2;
    for (const std::string v : {"lock_c11", "syncreduce_builtin"}) {
        if (!wants(v)) continue;
        const std::string lacks = c2_lacks(dev.device, b.c2_std, v);
        if (lacks.empty()) c2.push_back(v);
        else b.why_not[v] = "not checked on this device (" + lacks + ")";
    }
    if (!c2.empty()) b.c2 = lab.program(defines + " " + b.c2_std);
    for (const auto &v : c2)
        if (!has_kernel(b.c2, lab.kernel_name(v)))
            b.why_not[v] = "not checked on this device (its OpenCL C " + b.c2_std.substr(9) +
                           " build leaves " + lab.kernel_name(v) + " out: " +
                           (v == "lock_c11" ? "no __opencl_c_atomic_order_acq_rel and "
                                              "__opencl_c_atomic_scope_device"
                                            : "no __opencl_c_work_group_collective_functions") +
                           ")";
    for (const auto &v : selected) {
        if (b.why_not.count(v)) continue;
        for (const auto &name : lab.decl.find(v)->kernels)
            check_launch(cl::Kernel(b.of(v), name.c_str()), dev.device, s.wg,
                         v == "floatsum" ? s.wg * sizeof(float) : 2 * sizeof(int));
    }
    return b;
}

}  // namespace lab07
