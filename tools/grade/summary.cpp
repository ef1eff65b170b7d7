// The summary stage of synclab-grade.
#include "summary.hpp"

#include <algorithm>
#include <map>
#include <ostream>

#include "text_escape.hpp"

namespace grade {

namespace {

// student x lab: pass / FAIL kind / missing, then one line per failure with its reason.
void print_table(std::ostream &os, const std::vector<std::string> &students,
                 const std::vector<std::string> &labs, const std::vector<Result> &results) {
    std::map<std::pair<std::string, std::string>, const Result *> cell;
    for (const auto &r : results) cell[{r.student, r.lab}] = &r;
    std::size_t name_w = 7;
    for (const auto &s : students) name_w = std::max(name_w, s.size());
    const std::size_t col_w = 22;
    auto pad = [](std::string s, std::size_t w) {
        if (s.size() < w) s.append(w - s.size(), ' ');
        return s;
    };
    os << pad("student", name_w + 2);
    for (const auto &l : labs) os << pad("lab " + l, col_w);
    os << "\n";
    for (const auto &s : students) {
        os << pad(s, name_w + 2);
        for (const auto &l : labs) {
            const auto it = cell.find({s, l});
            std::string text = "-";
            if (it != cell.end())
                text = it->second->passed()             ? "pass"
                       : it->second->grade == Grade::Missing ? "missing"
                                                        : std::string("FAIL ") + name(it->second->kind);
            os << pad(text, col_w);
        }
        os << "\n";
    }
    bool any = false;
    for (const auto &s : students)
        for (const auto &l : labs) {
            const auto it = cell.find({s, l});
            if (it == cell.end() || it->second->passed()) continue;
            if (!any) os << "\nWhy:\n";
            any = true;
            os << "  " << s << ", lab " << l << ": " << it->second->reason << "\n";
        }
}

}  // namespace

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
