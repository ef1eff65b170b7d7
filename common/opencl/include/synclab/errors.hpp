// For everything that uses OpenCL (labs, grader, tests): exit codes, the exceptions that carry
// one-line messages, and OpenCL errors by name.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>

#include "synclab/cl.hpp"

namespace synclab {

enum Exit : int { kOk = 0, kWrong = 1, kUsage = 2 };

// Bad input or a set-up problem: the message names the cause and the fix; exit code 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A kernel file that does not build: the message is one line, the first error as
// "file:line: error: text (and N more)", or the whole build log when no error line is found;
// `where` is that file:line, `first_error` its text, `log` the compiler's whole log.
struct BuildError : UsageError {
    BuildError(const std::string &message, std::string where_, std::string first, std::string log_)
        : UsageError(message), where(std::move(where_)), first_error(std::move(first)),
          log(std::move(log_)) {}
    std::string where, first_error, log;
};

// A kernel file that reads what it may not (an #include of a file not handed in beside it):
// never built; the verdict's kind is "refused".
struct RefusedSource : BuildError {
    using BuildError::BuildError;
};

// What this device cannot run (a variant that needs sub-groups): exit 2, said as such.
struct Unsupported : UsageError {
    using UsageError::UsageError;
};

// "CL_INVALID_WORK_GROUP_SIZE" for -54; "CL_ERROR(-9999)" for codes OpenCL does not name.
std::string cl_error_name(cl_int code);

// One line: the failing call, the error's name, and a hint where one is obvious.
std::string describe(const cl::Error &e);

// A kernel was let try a work-group above the `reported` size it gives (check_launch): a
// clEnqueueNDRangeKernel refused with CL_INVALID_WORK_GROUP_SIZE or CL_OUT_OF_RESOURCES is then
// described with the smallest such report first, "kernel K reports at most N work-items on this
// device: use --wg N or less". noted_kernel_limit() is that text ("" when none was noted), for a
// failure the driver tells later; clear_kernel_limits() forgets them (the caller's new run).
void note_kernel_limit(const std::string &kernel, std::size_t reported);
std::string noted_kernel_limit();
void clear_kernel_limits();

// A device error that a kernel's crash (an out-of-bounds access on a GPU) reports at the next
// wait: the student's kernel failed, which is a wrong result (exit 1), not a set-up error.
bool kernel_failed(const cl::Error &e);

}  // namespace synclab
