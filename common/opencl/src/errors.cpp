#include "synclab/errors.hpp"

#include <mutex>


namespace synclab {

std::string cl_error_name(cl_int code) {
    switch (code) {
#define NAME(x) case x: return #x;
        NAME(CL_SUCCESS) NAME(CL_DEVICE_NOT_FOUND) NAME(CL_DEVICE_NOT_AVAILABLE)
        NAME(CL_COMPILER_NOT_AVAILABLE) NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        NAME(CL_OUT_OF_RESOURCES) NAME(CL_OUT_OF_HOST_MEMORY)
        NAME(CL_PROFILING_INFO_NOT_AVAILABLE) NAME(CL_MEM_COPY_OVERLAP) NAME(CL_IMAGE_FORMAT_MISMATCH)
        NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED) NAME(CL_BUILD_PROGRAM_FAILURE) NAME(CL_MAP_FAILURE)
        NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET) NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        NAME(CL_COMPILE_PROGRAM_FAILURE) NAME(CL_LINKER_NOT_AVAILABLE) NAME(CL_LINK_PROGRAM_FAILURE)
        NAME(CL_DEVICE_PARTITION_FAILED) NAME(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
        NAME(CL_INVALID_VALUE) NAME(CL_INVALID_DEVICE_TYPE) NAME(CL_INVALID_PLATFORM)
        NAME(CL_INVALID_DEVICE) NAME(CL_INVALID_CONTEXT) NAME(CL_INVALID_QUEUE_PROPERTIES)
        NAME(CL_INVALID_COMMAND_QUEUE) NAME(CL_INVALID_HOST_PTR) NAME(CL_INVALID_MEM_OBJECT)
        NAME(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) NAME(CL_INVALID_IMAGE_SIZE) NAME(CL_INVALID_SAMPLER)
        NAME(CL_INVALID_BINARY) NAME(CL_INVALID_BUILD_OPTIONS) NAME(CL_INVALID_PROGRAM)
        NAME(CL_INVALID_PROGRAM_EXECUTABLE) NAME(CL_INVALID_KERNEL_NAME)
        NAME(CL_INVALID_KERNEL_DEFINITION) NAME(CL_INVALID_KERNEL) NAME(CL_INVALID_ARG_INDEX)
        NAME(CL_INVALID_ARG_VALUE) NAME(CL_INVALID_ARG_SIZE) NAME(CL_INVALID_KERNEL_ARGS)
        NAME(CL_INVALID_WORK_DIMENSION) NAME(CL_INVALID_WORK_GROUP_SIZE)
        NAME(CL_INVALID_WORK_ITEM_SIZE) NAME(CL_INVALID_GLOBAL_OFFSET) NAME(CL_INVALID_EVENT_WAIT_LIST)
        NAME(CL_INVALID_EVENT) NAME(CL_INVALID_OPERATION) NAME(CL_INVALID_GL_OBJECT)
        NAME(CL_INVALID_BUFFER_SIZE) NAME(CL_INVALID_MIP_LEVEL) NAME(CL_INVALID_GLOBAL_WORK_SIZE)
        NAME(CL_INVALID_PROPERTY) NAME(CL_INVALID_IMAGE_DESCRIPTOR) NAME(CL_INVALID_COMPILER_OPTIONS)
        NAME(CL_INVALID_LINKER_OPTIONS) NAME(CL_INVALID_DEVICE_PARTITION_COUNT)
        NAME(CL_INVALID_PIPE_SIZE) NAME(CL_INVALID_DEVICE_QUEUE)
#undef NAME
        case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
        default: return "CL_ERROR(" + std::to_string(code) + ")";
    }
}

namespace {
std::mutex limit_mutex;
std::string limit_kernel;  // the kernel with the smallest report noted, and that report
std::size_t limit_reported = 0;
}  // namespace

void note_kernel_limit(const std::string &kernel, std::size_t reported) {
    std::lock_guard<std::mutex> lock(limit_mutex);
    if (limit_kernel.empty() || reported < limit_reported) {
        limit_kernel = kernel;
        limit_reported = reported;
    }
}

void clear_kernel_limits() {
    std::lock_guard<std::mutex> lock(limit_mutex);
    limit_kernel.clear();
    limit_reported = 0;
}

std::string noted_kernel_limit() {
    std::lock_guard<std::mutex> lock(limit_mutex);
    if (limit_kernel.empty()) return "";
    const std::string n = std::to_string(limit_reported);
    return "kernel " + limit_kernel + " reports at most " + n +
           " work-items on this device: use --wg " + n + " or less";
}

static std::string hint(cl_int code) {
    switch (code) {
        case -1001:
        case CL_DEVICE_NOT_FOUND:
            return "no OpenCL platform or device: install POCL (sudo apt-get install "
                   "pocl-opencl-icd) or your GPU's OpenCL driver, then try --list-devices";
        case CL_INVALID_WORK_GROUP_SIZE:
        case CL_INVALID_WORK_ITEM_SIZE:
            return "choose a smaller --wg (see --list-devices for the device maximum)";
        case CL_OUT_OF_RESOURCES:
        case CL_MEM_OBJECT_ALLOCATION_FAILURE:
        case CL_INVALID_BUFFER_SIZE:
            return "the device ran out of memory or resources: try a smaller -n or --wg";
        default: return "";
    }
}

std::string describe(const cl::Error &e) {
    std::string s = std::string(e.what() && *e.what() ? e.what() : "OpenCL call") +
                    " failed: " + cl_error_name(e.err());
    std::string h = hint(e.err());
    // A refused launch of a work-group above what a kernel reported: say what it reported.
    const bool launch = e.what() && std::string(e.what()) == "clEnqueueNDRangeKernel";
    if (launch && (e.err() == CL_INVALID_WORK_GROUP_SIZE || e.err() == CL_OUT_OF_RESOURCES)) {
        const std::string limit = noted_kernel_limit();
        if (!limit.empty()) h = limit + (h.empty() ? "" : "; or " + h);
    }
    if (!h.empty()) s += " (" + h + ")";
    return s;
}

bool kernel_failed(const cl::Error &e) {
    if (e.err() != CL_OUT_OF_RESOURCES && e.err() != CL_INVALID_COMMAND_QUEUE) return false;
    // Where a kernel's fault surfaces: the next wait on the queue. Set-up calls are not that.
    const std::string call = e.what() ? e.what() : "";
    for (const char *wait : {"clEnqueueReadBuffer", "clEnqueueWriteBuffer", "clFinish",
                             "clWaitForEvents", "clGetEventProfilingInfo", "clEnqueueCopyBuffer",
                             "clEnqueueFillBuffer", "clEnqueueMapBuffer"})
        if (call == wait) return true;
    return false;
}

}  // namespace synclab
