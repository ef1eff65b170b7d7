// Exit codes, error naming and the one place exceptions turn into one-line messages.
#pragma once
#include <functional>
#include <stdexcept>
#include <string>

#include "synclab/cl.hpp"

namespace synclab {

enum Exit : int { kOk = 0, kWrong = 1, kUsage = 2 };

// Bad input or a set-up problem: the message names the cause and the fix; exit code 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// "CL_INVALID_WORK_GROUP_SIZE" for -54; "CL_ERROR(-9999)" for codes OpenCL does not name.
std::string cl_error_name(cl_int code);

// One line: the failing call, the error's name, and a hint where one is obvious.
std::string describe(const cl::Error &e);

// A device error that a kernel's crash (an out-of-bounds access on a GPU) reports at the next
// wait: the student's kernel failed, which is a wrong result (exit 1), not a set-up error.
bool kernel_failed(const cl::Error &e);

// Runs body and maps every exception to a one-line message on stderr and an exit code.
int guarded_main(const char *program, const std::function<int()> &body);

}  // namespace synclab
