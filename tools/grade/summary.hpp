// For synclab-grade's main: the summary stage. The student x lab table, the reasons, and the
// line of totals; and the grader's exit code.
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

#include "grade.hpp"
#include "submissions.hpp"

namespace grade {

// Where the rows go: "; gradebook FILE, JUnit reports in DIR/", the part of it given, or ""
// (one submission's grading writes neither unless asked).
std::string outputs_text(const std::string &csv, const std::string &junit);

// `all`: every row in gradebook order, `kept` of them from the gradebook. Returns 0 when every
// row passed, else 1.
int summarize(std::ostream &os, const std::vector<Submission> &subs,
              const std::vector<const Recipe *> &labs, std::vector<Result> all, std::size_t kept,
              const std::string &csv, const std::string &junit);

}  // namespace grade
