// A row's grade and kind, and their words in the gradebook (grade.hpp).
#include "grade.hpp"

#include <iterator>

namespace grade {

namespace {
constexpr const char *kGradeNames[] = {"", "pass", "fail", "missing"};
constexpr const char *kKindNames[] = {"",          "pass",          "missing",   "refused",
                                      "compile-error", "wrong-answer", "crash",   "timeout",
                                      "stress",    "data-race",     "memory-model",  "deadlock",
                                      "barrier-divergence", "out-of-bounds", "uninitialized",
                                      "error"};
static_assert(std::size(kKindNames) == static_cast<std::size_t>(Kind::Error) + 1);

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

}  // namespace grade
