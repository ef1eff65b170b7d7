// For everything that uses OpenCL: the one place the OpenCL C++ bindings are configured: exceptions on, target 3.0,
// minimum 1.2 (POCL 3.1, NVIDIA's driver and Oclgrind report OpenCL C 1.2).
#pragma once
#ifndef CL_HPP_ENABLE_EXCEPTIONS
#define CL_HPP_ENABLE_EXCEPTIONS
#endif
#define CL_HPP_TARGET_OPENCL_VERSION 300
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <cstdlib>
#include <vector>

// Debian 12's opencl.hpp (2.0.x) calls detail::getContextPlatformVersion when the minimum
// version is 1.2 but defines it only for a minimum below 1.2. It decides at run time whether
// the platform has clCreateCommandQueueWithProperties (Oclgrind's 1.2 platform has not).
namespace cl {
namespace detail {
static inline cl_uint getContextPlatformVersion(cl_context context) {
    std::size_t size = 0;
    clGetContextInfo(context, CL_CONTEXT_DEVICES, 0, nullptr, &size);
    if (size < sizeof(cl_device_id)) return 0;
    std::vector<cl_device_id> devices(size / sizeof(cl_device_id));
    clGetContextInfo(context, CL_CONTEXT_DEVICES, size, devices.data(), nullptr);
    cl_platform_id platform = nullptr;
    clGetDeviceInfo(devices[0], CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr);
    char version[256] = {0};
    clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof version - 1, version, nullptr);
    // "OpenCL <major>.<minor> ..."
    char *p = version + 7, *end = nullptr;
    const long major = std::strtol(p, &end, 10);
    const long minor = (end && *end == '.') ? std::strtol(end + 1, nullptr, 10) : 0;
    return static_cast<cl_uint>((major << 16) | minor);
}
}  // namespace detail
}  // namespace cl

#include <CL/opencl.hpp>
