// The plan stage of synclab-grade: what is to be graded, and in which pieces.
#include "plan.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include "synclab/errors.hpp"

namespace fs = std::filesystem;

namespace grade {

// Every child runs in synclab-labs (batch.hpp): each lab graded must be one it describes as the
// lab's own executable does. The labs of one submission share a process where they can
// (grade_labs); SYNCLAB_GRADE_SHARED=off grades one process a lab.
void share_processes(Settings &settings, std::size_t submissions, unsigned jobs,
                     const std::vector<const Recipe *> &labs, const std::string &work,
                     const volatile int *stop) {
    std::vector<Recipe> graded;
    for (const Recipe *r : labs) graded.push_back(*r);
    settings.runner_labs = runner_labs(graded, settings, work, stop);
    if (stop && *stop) return;
    for (const Recipe *r : labs)
        if (!settings.runner_labs.count(r->id))
            throw synclab::UsageError("synclab-labs (" + settings.runner() + ") cannot run lab " + r->declaration.dir +
                                      " as its executable does: build the labs again (cmake --build build)");
    const char *shared_env = std::getenv("SYNCLAB_GRADE_SHARED");
    const bool could_share = submissions >= jobs && labs.size() > 1;
    if (!could_share || (shared_env && std::string(shared_env) == "off")) settings.runner_labs.clear();
}

namespace {

// Why a student's rows are graded again; "" when a row of theirs stays.
std::string why_again(const Result &row, const std::string &hash, bool named) {
    if (named) return "named by --students";
    if (row.files_sha256.empty())
        return "its rows hold no hash of the files graded (an older grader, or files that changed "
               "while they were graded)";
    if (row.files_sha256 != hash) return "its files changed since its rows were graded";
    return "";
}

}  // namespace

Plan make_plan(const std::vector<Submission> &subs, const std::vector<const Recipe *> &labs,
               const std::vector<Result> &kept, const Settings &settings, unsigned jobs,
               const std::vector<std::string> &hashes, const std::set<std::string> &only) {
    std::map<std::pair<std::string, std::string>, const Result *> done;
    for (const auto &r : kept) done[{r.student, r.lab}] = &r;
    std::set<std::pair<std::string, std::string>> again;  // rows dropped: graded again
    Plan plan;
    // Every (student, lab) in gradebook order; the workers take the ungraded ones in turn. A
    // student --students leaves out has only its kept rows.
    std::vector<std::size_t> todo;
    std::size_t left_out = 0, changed = 0;
    for (std::size_t k = 0; k < subs.size(); ++k) {
        const std::string &student = subs[k].student;
        const bool graded = only.empty() || only.count(student);
        std::string why;
        for (const auto *recipe : labs) {
            const auto it = done.find({student, recipe->id});
            const std::string again_why =
                it == done.end() || !graded ? "" : why_again(*it->second, hashes[k], only.count(student) > 0);
            if (it != done.end() && again_why.empty()) {
                plan.tasks.push_back({k, recipe, *it->second, true});
                plan.resumed = true;
            } else if (graded) {
                plan.tasks.push_back({k, recipe, {}, false});
                todo.push_back(plan.tasks.size() - 1);
                if (it != done.end()) again.insert(it->first);
                if (why.empty()) why = again_why;
            } else {
                ++left_out;
            }
        }
        const bool stale = std::any_of(kept.begin(), kept.end(), [&](const Result &r) {
            return r.student == student && r.files_sha256 != hashes[k];
        });
        changed += !graded && stale;
        if (!why.empty()) plan.notes.push_back(shown(student) + ": graded again: " + why);
    }
    if (left_out)
        plan.notes.push_back(std::to_string(left_out) + " lab(s) of students --students does not "
                             "name have no row, and were not graded: run --resume to grade them");
    if (changed)
        plan.notes.push_back(std::to_string(changed) + " student(s) --students does not name have "
                             "rows of files that changed since: kept as they are; run --resume to "
                             "grade them again");
    for (const auto &r : kept)
        if (!again.count({r.student, r.lab})) plan.kept_rows.push_back(r);
    // A student's ungraded labs together, when the class keeps every worker busy that way and
    // they can share a process; otherwise one (student, lab).
    const bool by_student = !settings.runner_labs.empty();
    for (std::size_t t : todo) {
        if (by_student && !plan.units.empty() &&
            plan.tasks[plan.units.back().front()].student == plan.tasks[t].student)
            plan.units.back().push_back(t);
        else
            plan.units.push_back({t});
    }
    plan.jobs = static_cast<unsigned>(
        std::min<std::size_t>(jobs, std::max<std::size_t>(plan.units.size(), 1)));
    return plan;
}

}  // namespace grade
