// The plan stage of synclab-grade: what is to be graded, and in which pieces.
#include "plan.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
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

Plan make_plan(const std::vector<Submission> &subs, const std::vector<const Recipe *> &labs,
               const std::vector<Result> &kept, const Settings &settings, unsigned jobs) {
    std::map<std::pair<std::string, std::string>, Result> done;
    for (const auto &r : kept) done[{r.student, r.lab}] = r;
    Plan plan;
    plan.labs_per_student = labs.size();
    plan.resumed = !done.empty();
    // Every (student, lab) in gradebook order; the workers take the ungraded ones in turn.
    std::vector<std::size_t> todo;
    for (std::size_t k = 0; k < subs.size(); ++k)
        for (const auto *recipe : labs) {
            plan.tasks.push_back({k, recipe, {}, false});
            const auto it = done.find({subs[k].student, recipe->id});
            if (it != done.end()) {
                plan.tasks.back().result = it->second;
                plan.tasks.back().ready = true;
            } else {
                todo.push_back(plan.tasks.size() - 1);
            }
        }
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
