// The grader's look at what a lab can do here (grade.hpp); the grading itself is in
// lab_grading.cpp (one lab) and submission_grading.cpp (a submission's labs).
#include "grade.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>

#include "synclab/process.hpp"

namespace grade {

namespace {
constexpr const char *kGradeNames[] = {"", "pass", "fail", "missing"};
constexpr const char *kKindNames[] = {"",          "pass",          "missing",   "refused",
                                      "compile-error", "wrong-answer", "crash",   "timeout",
                                      "stress",    "data-race",     "memory-model",  "deadlock",
                                      "barrier-divergence", "out-of-bounds", "uninitialized",
                                      "error",     "stress-pending"};
static_assert(std::size(kKindNames) == static_cast<std::size_t>(Kind::StressPending) + 1);

template <typename E, std::size_t N>
bool named(const std::string &word, const char *const (&names)[N], E &out) {
    for (std::size_t i = 1; i < N; ++i)
        if (word == names[i]) {
            out = static_cast<E>(i);
            return true;
        }
    return false;
}
}  // namespace

const char *name(Grade g) { return kGradeNames[static_cast<std::size_t>(g)]; }
const char *name(Kind k) { return kKindNames[static_cast<std::size_t>(k)]; }
bool grade_named(const std::string &word, Grade &out) { return named(word, kGradeNames, out); }
bool kind_named(const std::string &word, Kind &out) { return named(word, kKindNames, out); }

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
