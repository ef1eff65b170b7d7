// The grader's look at what a lab can do here (grade.hpp); the grading itself is in
// lab_grading.cpp (one lab) and submission_grading.cpp (a submission's labs).
#include "grade.hpp"

#include <algorithm>
#include <cctype>

#include "synclab/process.hpp"

namespace grade {

bool oclgrind_listed(const std::string &executable, const volatile int *stop) {
    synclab::ProcessLimits limits;
    limits.timeout_s = 60;
    limits.stop = stop;
    const auto r = synclab::run_process({executable, "--list-devices"}, {}, limits);
    std::string out = r.out;
    std::transform(out.begin(), out.end(), out.begin(), ::tolower);
    return r.exited && r.exit_code == 0 && out.find("oclgrind") != std::string::npos;
}

}  // namespace grade
