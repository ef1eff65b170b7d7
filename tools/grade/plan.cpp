// The plan stage of synclab-grade: what is to be graded, and in which pieces.
#include "plan.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include "submission_grading.hpp"  // runner_labs
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

// Why a row is graded again; "" when it stays. `now`: what judges this run's row of its lab ("":
// not compared).
std::string why_again(const Result &row, const std::string &hash, bool named, const std::string &now) {
    if (named) return "named by --students";
    if (row.files_sha256.empty())
        return "its rows hold no hash of the files graded (an older grader, or files that changed "
               "while they were graded)";
    if (row.files_sha256 != hash) return "its files changed since its rows were graded";
    if (row.kind == Kind::Error) return "its row is an error (the grading could not judge it)";
    // No check judges a file not handed in, or one refused for what it is: its hash says it all.
    if (now.empty() || row.kind == Kind::Missing || row.kind == Kind::Refused) return "";
    if (row.judged_by.empty()) return "its row does not say what judged it (an older grader)";
    const std::string weaker = weaker_checks(row.judged_by, now);
    return weaker.empty() ? "" : "judged by other or weaker checks than this run's: " + weaker;
}

// One line's reasons, each once: a student's own (its files, --students) as it is, a lab's own
// (its row: an error, judged by less) after the labs it holds for ("labs 07, 09: ...").
std::string reasons_text(const std::vector<std::pair<std::string, std::vector<std::string>>> &whys) {
    std::string out;
    for (const auto &[why, ids] : whys) {
        std::string named;
        for (const auto &id : ids) named += (named.empty() ? "" : ", ") + id;
        const bool labs_own = why.rfind("its row ", 0) == 0 || why.rfind("judged", 0) == 0;
        const std::string prefix = !labs_own ? "" : (ids.size() == 1 ? "lab " : "labs ") + named + ": ";
        out += (out.empty() ? "" : "; ") + prefix + why;
    }
    return out;
}

}  // namespace

Plan make_plan(const std::vector<Submission> &subs, const std::vector<const Recipe *> &labs,
               const std::vector<Result> &kept, const Settings &settings, unsigned jobs,
               const std::vector<std::string> &hashes, const std::set<std::string> &only,
               const Judging *judging) {
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
        std::vector<std::pair<std::string, std::vector<std::string>>> whys;  // reason, its labs
        for (const auto *recipe : labs) {
            const auto it = done.find({student, recipe->id});
            const std::string now = judging ? judged_by(*recipe, *judging) : "";
            const std::string again_why =
                it == done.end() || !graded ? "" : why_again(*it->second, hashes[k], only.count(student) > 0, now);
            if (it != done.end() && again_why.empty()) {
                plan.tasks.push_back({k, recipe, *it->second, true});
                plan.resumed = true;
            } else if (graded) {
                plan.tasks.push_back({k, recipe, {}, false});
                todo.push_back(plan.tasks.size() - 1);
                if (it != done.end()) again.insert(it->first);
                if (!again_why.empty()) {
                    auto w = std::find_if(whys.begin(), whys.end(), [&](const auto &p) { return p.first == again_why; });
                    if (w == whys.end()) w = whys.insert(whys.end(), {again_why, {}});
                    w->second.push_back(recipe->id);
                }
            } else {
                ++left_out;
            }
        }
        const bool stale = std::any_of(kept.begin(), kept.end(), [&](const Result &r) {
            return r.student == student && r.files_sha256 != hashes[k];
        });
        changed += !graded && stale;
        if (!whys.empty())
            plan.notes.push_back(shown(student) + ": graded again: " + reasons_text(whys));
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
