// The summary stage of synclab-grade.
#include "summary.hpp"

#include <algorithm>
#include <ostream>

#include "report.hpp"
#include "text_escape.hpp"

namespace grade {

std::string outputs_text(const std::string &csv, const std::string &junit) {
    std::string text;
    if (!csv.empty()) text = "gradebook " + csv;
    if (!junit.empty()) text += (text.empty() ? "" : ", ") + std::string("JUnit reports in ") + junit + "/";
    return text.empty() ? "" : "; " + text;
}

int summarize(std::ostream &os, const std::vector<Submission> &subs,
              const std::vector<const Recipe *> &labs, std::vector<Result> all, std::size_t kept,
              const std::string &csv, const std::string &junit) {
    std::vector<std::string> lab_ids;
    for (const auto *r : labs) lab_ids.push_back(r->id);
    std::vector<std::string> students;
    for (const auto &s : subs) students.push_back(shown(s.student));
    // A reason may quote the student's file: no control byte of it reaches the terminal.
    for (auto &r : all) {
        r.student = shown(r.student);
        r.reason = shown_text(r.reason);
    }
    os << "\n";
    print_table(os, students, lab_ids, all);
    const auto failed = std::count_if(all.begin(), all.end(),
                                      [](const Result &r) { return !r.passed(); });
    os << "\n" << all.size() - failed << "/" << all.size() << " passed"
       << (kept ? " (" + std::to_string(kept) + " kept from the gradebook)" : "")
       << outputs_text(csv, junit) << "\n";
    return failed ? 1 : 0;
}

}  // namespace grade
