#include "synclab/subgroups.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace synclab {

// Vendor queries, named here because not every cl_ext.h has them.
static constexpr cl_uint kWarpSizeNV = 0x4003;         // cl_nv_device_attribute_query
static constexpr cl_uint kWavefrontWidthAMD = 0x4043;  // cl_amd_device_attribute_query
static constexpr cl_uint kOpenCLCFeatures = 0x106F;    // CL_DEVICE_OPENCL_C_FEATURES (3.0)
static constexpr cl_uint kOpenCLCAllVersions = 0x1066;  // CL_DEVICE_OPENCL_C_ALL_VERSIONS
static constexpr cl_uint kMaxSubGroupSizeForNDRange = 0x2033;

static bool has_word(const std::string &list, const std::string &word) {
    for (std::size_t at = list.find(word); at != std::string::npos; at = list.find(word, at + 1)) {
        const bool starts = at == 0 || list[at - 1] == ' ';
        const std::size_t end = at + word.size();
        if (starts && (end == list.size() || list[end] == ' ')) return true;
    }
    return false;
}

// A 3.0 device's list of names and versions (a device below 3.0 answers an error: none).
static std::vector<cl_name_version> name_versions(const cl::Device &dev, cl_uint what) {
    std::size_t size = 0;
    if (clGetDeviceInfo(dev(), what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
    std::vector<cl_name_version> out(size / sizeof(cl_name_version));
    if (clGetDeviceInfo(dev(), what, out.size() * sizeof(cl_name_version), out.data(),
                        nullptr) != CL_SUCCESS)
        return {};
    return out;
}

static bool has_c_feature(const cl::Device &dev, const std::string &name) {
    for (const auto &f : name_versions(dev, kOpenCLCFeatures))
        if (name == f.name) return true;
    return false;
}

// Compilers declare the sub_group_* built-ins only for OpenCL C 2.0 and later, while most
// devices compile OpenCL C 1.2 unless told otherwise: ask for the newest C the device takes.
static std::string newest_c_std(const cl::Device &dev) {
    cl_version newest = 0;
    for (const auto &v : name_versions(dev, kOpenCLCAllVersions)) newest = std::max(newest, v.version);
    if (CL_VERSION_MAJOR(newest) >= 3) return "-cl-std=CL3.0";
    if (CL_VERSION_MAJOR(newest) == 2) return "-cl-std=CL2.0";
    const std::string c = dev.getInfo<CL_DEVICE_OPENCL_C_VERSION>();  // "OpenCL C 2.0 ..."
    if (c.rfind("OpenCL C 2", 0) == 0) return "-cl-std=CL2.0";
    return "";
}

int pocl_major_version(const std::string &platform_version) {
    std::string lower = platform_version;
    for (char &c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::size_t at = lower.find("pocl ");
    if (at == std::string::npos) return 0;
    int major = 0;
    for (std::size_t i = at + 5;
         i < lower.size() && std::isdigit(static_cast<unsigned char>(lower[i])); ++i)
        major = major * 10 + (lower[i] - '0');
    return major;
}

static std::string platform_version(const cl::Device &dev) {
    cl_platform_id platform = nullptr;
    std::size_t size = 0;
    if (clGetDeviceInfo(dev(), CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr) !=
            CL_SUCCESS ||
        clGetPlatformInfo(platform, CL_PLATFORM_VERSION, 0, nullptr, &size) != CL_SUCCESS)
        return "";
    std::string v(size, '\0');
    if (clGetPlatformInfo(platform, CL_PLATFORM_VERSION, size, v.data(), nullptr) != CL_SUCCESS)
        return "";
    return v.c_str();
}

SubgroupSupport subgroup_support(const cl::Device &dev) {
    SubgroupSupport s;
    const std::string ext = dev.getInfo<CL_DEVICE_EXTENSIONS>();
    if (has_word(ext, "cl_khr_subgroups")) {
        s.builtins = true;
        s.how = "cl_khr_subgroups";
        s.build_options = newest_c_std(dev);
    } else if (has_c_feature(dev, "__opencl_c_subgroups")) {
        s.builtins = true;
        s.how = "__opencl_c_subgroups (OpenCL C 3.0)";
        s.build_options = "-cl-std=CL3.0";
    } else {
        s.why_not = "no cl_khr_subgroups, no OpenCL C 3.0 __opencl_c_subgroups";
    }
    // POCL compiles a work-group of 1 or 2 by replicating its work-items, and before 7.0 that
    // path leaves out the local memory its sub-group built-ins use: the kernel then fails to load
    // and POCL aborts the process (seen on 5.0; POCL 7.0 dropped the path).
    const int pocl = pocl_major_version(platform_version(dev));
    if (s.builtins && pocl > 0 && pocl < 7) {
        s.smallest_wg = 3;
        s.smallest_wg_why = "POCL before 7.0 cannot load a sub-group kernel built for groups of 1 "
                            "or 2 (undefined symbol __pocl_work_group_alloca)";
    }
    cl_uint width = 0;
    if (has_word(ext, "cl_nv_device_attribute_query") &&
        clGetDeviceInfo(dev(), kWarpSizeNV, sizeof width, &width, nullptr) == CL_SUCCESS) {
        s.hw_width = width;
        s.hw_width_from = "CL_DEVICE_WARP_SIZE_NV";
    } else if (has_word(ext, "cl_amd_device_attribute_query") &&
               clGetDeviceInfo(dev(), kWavefrontWidthAMD, sizeof width, &width, nullptr) ==
                   CL_SUCCESS) {
        s.hw_width = width;
        s.hw_width_from = "CL_DEVICE_WAVEFRONT_WIDTH_AMD";
    }
    return s;
}

std::string subgroup_standin_options() {
    // Macros, not functions: a header that declared the built-ins would clash with functions of
    // the same names, and no device that lacks sub-groups declares them. No spaces inside a
    // definition: build options are split at spaces.
    static const char *kIds[] = {"get_sub_group_size()=1u",        "get_max_sub_group_size()=1u",
                                 "get_num_sub_groups()=1u",        "get_enqueued_num_sub_groups()=1u",
                                 "get_sub_group_id()=0u",          "get_sub_group_local_id()=0u",
                                 "sub_group_elect()=1",            "sub_group_ballot(p)=((uint4)(0))",
                                 "sub_group_barrier(...)=barrier(CLK_LOCAL_MEM_FENCE)"};
    static const char *kOneValue[] = {"sub_group_all", "sub_group_any", "sub_group_broadcast_first",
                                      "sub_group_non_uniform_all", "sub_group_non_uniform_any"};
    static const char *kTwoValues[] = {"sub_group_broadcast", "sub_group_shuffle",
                                       "sub_group_shuffle_xor", "sub_group_shuffle_up",
                                       "sub_group_shuffle_down", "sub_group_non_uniform_broadcast"};
    std::string out;
    for (const char *d : kIds) out += std::string(" -D") + d;
    for (const char *f : kOneValue) out += std::string(" -D") + f + "(x)=(x)";
    for (const char *f : kTwoValues) out += std::string(" -D") + f + "(x,i)=(x)";
    for (const char *op : {"add", "min", "max"}) {
        for (const char *kind : {"reduce", "scan_exclusive", "scan_inclusive", "non_uniform_reduce",
                                 "non_uniform_scan_exclusive", "non_uniform_scan_inclusive"})
            out += std::string(" -Dsub_group_") + kind + "_" + op + "(x)=(x)";
        out += std::string(" -Dsub_group_clustered_reduce_") + op + "(x,c)=(x)";
    }
    return out.substr(1);
}

std::size_t kernel_subgroup_size(const cl::Kernel &k, const cl::Device &dev, std::size_t wg) {
    std::size_t size = 0;
    // Core since OpenCL 2.1; a 2.0 device with cl_khr_subgroups has the KHR entry point.
    if (clGetKernelSubGroupInfo(k(), dev(), kMaxSubGroupSizeForNDRange, sizeof wg, &wg,
                                sizeof size, &size, nullptr) == CL_SUCCESS)
        return size;
    using Fn = cl_int(CL_API_CALL *)(cl_kernel, cl_device_id, cl_uint, std::size_t,
                                     const void *, std::size_t, void *, std::size_t *);
    cl_platform_id platform = dev.getInfo<CL_DEVICE_PLATFORM>();
    auto fn = reinterpret_cast<Fn>(
        clGetExtensionFunctionAddressForPlatform(platform, "clGetKernelSubGroupInfoKHR"));
    if (fn && fn(k(), dev(), kMaxSubGroupSizeForNDRange, sizeof wg, &wg, sizeof size, &size,
                 nullptr) == CL_SUCCESS)
        return size;
    return 0;
}

}  // namespace synclab
