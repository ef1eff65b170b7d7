// Several labs of one submission (grade_labs): their dynamic runs shared in one process where
// they take the same environment, each lab's race check alone, and their stress schedules last,
// together.
#include "submission_grading.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <tuple>

#include "grade.hpp"
#include "settings.hpp"
#include "judge.hpp"
#include "lab_grading.hpp"
#include "sandbox.hpp"  // stage_submission
#include "synclab/protocol.hpp"

namespace fs = std::filesystem;

namespace grade {

namespace {

// Which labs of `part` the shared process settles (see run_shared), filling `shared` and, for a
// lab to run again, `seeds`.
std::size_t settle_shared(const std::vector<const Recipe *> &recipes,
                          const std::vector<std::size_t> &part, const std::vector<std::size_t> &lab_of,
                          const BatchResult &b, std::vector<std::optional<Shared>> &shared,
                          std::map<std::size_t, std::vector<std::string>> &seeds) {
    const auto &out = b.runs;
    const auto &ran = b.ran;
    const std::size_t end_line = b.end;
    std::string labs_text;  // the labs the process reached
    for (std::size_t k = 0, i = 0; k < part.size(); ++k) {
        bool reached = false;
        for (; i < lab_of.size() && lab_of[i] == k; ++i) reached = reached || ran[i];
        if (reached) labs_text += (labs_text.empty() ? "" : ", ") + recipes[part[k]]->id;
    }
    const std::string note = "its dynamic runs shared one process with labs " + labs_text +
                             " (synclab-labs)";
    for (std::size_t k = 0, i = 0; k < part.size(); ++k) {
        Shared mine;
        mine.note = note;
        bool ended_here = false;
        for (; i < lab_of.size() && lab_of[i] == k; ++i)
            if (ran[i]) {
                mine.runs.push_back(out[i]);
                mine.seconds += out[i].seconds;
                ended_here = ended_here || (i == end_line && !out[i].verdict.finished);
            }
        if (mine.runs.empty()) return k;  // the process ended before it
        // The first lab's runs are its own, as if it had run alone; a later lab's only where they
        // count from a shared process (counts_when_shared); else it is run again as the first of
        // the next process, and only that counts.
        if (k != 0 && (ended_here || !counts_when_shared(mine.runs.back()))) {
            for (std::size_t j = 0; j < lab_of.size(); ++j)
                if (lab_of[j] == k && ran[j]) seeds[part[k]].push_back(out[j].verdict.seed);
            return k;
        }
        shared[part[k]] = std::move(mine);
        if (ended_here) return k + 1;
    }
    return part.size();
}

// The labs `part` (indices into `recipes`, one dynamic-run environment, each staging `files`)
// in one synclab-labs process, in order. Fills `shared` for each lab whose runs count (see
// grade_labs) and returns how many of `part`, from its start, are settled: the next process
// begins after them. When the copy fails, or the process never ran, all are (and none is shared):
// each lab then runs alone, so no such failure is ever a student's grade.
// A lab to run again gets the seeds its runs had (`seeds`, by recipe index): the same inputs, so
// the second process is no second try.
std::size_t run_shared(const std::vector<const Recipe *> &recipes, const std::vector<std::size_t> &part,
                       const std::vector<std::string> &files, const std::string &kernels_dir,
                       const Settings &s, const volatile int *stop, const std::string &job_dir,
                       std::vector<std::optional<Shared>> &shared,
                       std::map<std::size_t, std::vector<std::string>> &seeds) {
    clear_folder(job_dir);
    const JobFolders job = job_folders(job_dir, s);
    Staged staged = stage_submission(kernels_dir, job.copy, recipes[part.front()]->kernel_file);
    std::sort(staged.files.begin(), staged.files.end());
    if (!staged.refused.empty() || staged.files != files) return part.size();
    std::vector<Line> lines;
    std::vector<std::size_t> lab_of;  // each line's index into part
    for (std::size_t k = 0; k < part.size(); ++k) {
        const Recipe &recipe = *recipes[part[k]];
        const std::size_t count = s.quick ? 1 : recipe.declaration.grading.size();
        const auto found = seeds.find(part[k]);
        for (std::size_t i = 0; i < count; ++i) {
            synclab::Args set = recipe.declaration.grading[i];
            if (!s.seed && found != seeds.end() && i < found->second.size() && !found->second[i].empty())
                set.insert(set.end(), {"--seed", found->second[i]});
            if (!s.devices[0].empty()) set.insert(set.end(), {"--device", s.devices[0]});
            lines.push_back({&recipe, set, true});
            lab_of.push_back(k);
        }
    }
    const BatchResult b = run_batch(s, job, lines,
                                    {Role::Check, dynamic_run_env(recipes[part.front()]->declaration),
                                     s.device_memory_bytes.at(0)},
                                    stop);
    if (b.stopped) return part.size();
    return settle_shared(recipes, part, lab_of, b, shared, seeds);
}

// The stress lines of the pending labs from `at` on: each lab's stress run, or with `warm_up` its
// build (--warm-up).
std::vector<Line> stress_lines(const std::vector<const Recipe *> &recipes, const std::vector<std::size_t> &pending,
                               std::size_t at, const Settings &s, bool warm_up) {
    std::vector<Line> lines;
    for (std::size_t i = at; i < pending.size(); ++i) {
        const Recipe &recipe = *recipes[pending[i]];
        lines.push_back({&recipe, stress_line(recipe, s), false});
        if (!warm_up) continue;
        const auto &more = recipe.declaration.stress_warm_up;
        lines.back().args.insert(lines.back().args.end(), more.begin(), more.end());
        lines.back().args.push_back("--warm-up");
    }
    return lines;
}

// Every pending lab's stress build in one process behind everything (--warm-up), noted in its
// row: it grades nothing, and cut short it only builds less.
void warm_up_together(const std::vector<const Recipe *> &recipes, const std::vector<std::size_t> &pending,
                      const Settings &s, const JobFolders &job, const volatile int *stop,
                      std::vector<Result> &rows) {
    const BatchSpec spec{Role::WarmUp, stress_run_env(recipes[pending.front()]->declaration),
                         s.device_memory_bytes.front()};
    const BatchResult built = run_batch(s, job, stress_lines(recipes, pending, 0, s, true), spec, stop);
    for (std::size_t i = 0; i < pending.size(); ++i) {
        if (built.ran[i])
            note_run(rows[pending[i]], built.runs[i],
                     "stress build (--warm-up, one process for the submission's stress runs; graded by them)");
        else
            rows[pending[i]].details += "stress build: not reached (the process ended before it); the stress run builds it\n";
    }
}

// The stress schedules of every lab of one submission that passed all else (`pending`, indices
// into rows, each unfinished with its reason what passed), at once: their builds in one process
// behind the stress runs (warm_up_together), then their schedules in one process holding the
// cores, which gives each lab's line its own verdict. One wait at the gate and two processes for
// the submission, not one wait and two processes a lab. As in run_shared, a lab's run that does
// not count from a shared process (counts_when_shared) runs again as the first of a new one.
// `files`: what the labs staged when graded; a folder that changed since fails them, to be
// graded again.
void stress_together(const std::vector<const Recipe *> &recipes, std::vector<Result> &rows,
                     const std::vector<std::size_t> &pending, const std::vector<std::string> &files,
                     const std::string &kernels_dir, const Settings &s, const volatile int *stop,
                     const std::string &job_dir) {
    if (pending.empty()) return;
    std::vector<bool> graded(rows.size(), false);
    const auto start = std::chrono::steady_clock::now();
    clear_folder(job_dir);
    const JobFolders job = job_folders(job_dir, s);
    Staged staged = stage_submission(kernels_dir, job.copy, recipes[pending.front()]->kernel_file);
    std::sort(staged.files.begin(), staged.files.end());
    if (!staged.refused.empty() || staged.files != files) {
        for (std::size_t i : pending)
            std::tie(rows[i].grade, rows[i].kind, rows[i].reason) = std::make_tuple(
                Grade::Fail, Kind::Error, "the submission's files changed while it was graded: grade it again");
        clear_folder(job_dir);
        return;
    }
    if (!*stop) warm_up_together(recipes, pending, s, job, stop, rows);
    const BatchSpec spec{Role::Stress, stress_run_env(recipes[pending.front()]->declaration),
                         s.device_memory_bytes.front()};
    for (std::size_t at = 0; at < pending.size() && !*stop;) {
        const BatchResult b = run_batch(s, job, stress_lines(recipes, pending, at, s, false), spec, stop);
        if (b.stopped) break;  // killed: nothing of it counts
        std::size_t next = at + b.end + 1;
        for (std::size_t k = 0; k <= b.end; ++k) {
            const Run &st = b.runs[k];
            if (k != 0 && !counts_when_shared(st)) {  // again, first in a new process
                next = at + k;
                break;
            }
            Result &r = rows[pending[at + k]];
            note_run(r, st, "stress schedules");
            std::tie(r.grade, r.kind, r.reason) =
                stress_grade(*recipes[pending[at + k]], s, st, r.reason, job.copy, kernels_dir);
            graded[pending[at + k]] = true;
        }
        at = next;
    }
    for (std::size_t i : pending)  // what *stop left: unfinished
        if (!graded[i]) rows[i].reason = "";
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (std::size_t i : pending) rows[i].seconds += took / static_cast<double>(pending.size());
    clear_folder(job_dir);
}

}  // namespace

std::vector<Result> grade_labs(const std::vector<const Recipe *> &declared, const std::string &student,
                               const std::string &kernels_dir, const Settings &s,
                               const volatile int *stop, const std::string &job_dir) {
    struct Emptied {  // nothing of one submission is left for the next, its cache neither
        std::string dir;
        explicit Emptied(std::string d) : dir(std::move(d)) { empty_job(dir); }
        ~Emptied() { empty_job(dir); }
    } emptied{job_dir};
    // Each lab as this submission draws it: its counts and its drawn twin run.
    std::vector<Recipe> drawn;
    for (const Recipe *r : declared) drawn.push_back(submission_recipe(*r, kernels_dir, s));
    std::vector<const Recipe *> recipes;
    for (const Recipe &r : drawn) recipes.push_back(&r);
    std::vector<std::optional<Shared>> shared(recipes.size());
    std::map<std::size_t, std::vector<std::string>> staged_files;  // each runner lab's, sorted
    if (!s.runner_labs.empty() && s.devices.size() == 1) {
        // Labs that take the same environment, each staging the same files (one whose own file
        // is missing or refused is graded alone, and says so at once).
        std::map<std::map<std::string, std::string>, std::vector<std::size_t>> groups;
        const std::string probe = (fs::path(job_dir) / "submission").string();
        for (std::size_t i = 0; i < recipes.size() && !*stop; ++i) {
            if (!s.runner_labs.count(recipes[i]->id) || recipes[i]->declaration.grading.empty()) continue;
            clear_folder(job_dir);
            const Staged st = stage_submission(kernels_dir, probe, recipes[i]->kernel_file);
            if (!st.refused.empty() ||
                std::find(st.files.begin(), st.files.end(), recipes[i]->kernel_file) == st.files.end())
                continue;
            std::vector<std::string> files = st.files;
            std::sort(files.begin(), files.end());
            staged_files[i] = files;
            // Labs whose groups wait for one another share a process of their own in a grading
            // with stress schedules: it is not run behind the stress runs (behind_stress).
            auto key = dynamic_run_env(recipes[i]->declaration);
            if (holds_cores(s, recipes[i]->declaration)) key["synclab: groups wait"] = "1";
            groups[key].push_back(i);
        }
        for (auto &[env, members] : groups) {
            // The files most of the group stage; a lab that stages others is graded alone.
            std::vector<std::size_t> same;
            for (std::size_t m : members)
                if (staged_files[m] == staged_files[members.front()]) same.push_back(m);
            std::map<std::size_t, std::vector<std::string>> seeds;
            // Two labs or more to share a process, or one to run again on its seeds.
            for (std::size_t at = 0;
                 !*stop && (same.size() - at >= 2 || (same.size() - at == 1 && seeds.count(same[at])));)
                at += run_shared(recipes, {same.begin() + static_cast<std::ptrdiff_t>(at), same.end()},
                                 staged_files[same.front()], kernels_dir, s, stop, job_dir, shared,
                                 seeds);
        }
    }
    // The stress-tested labs the runner runs that stage the same files (the first one's) leave
    // their schedules to stress_together, after the submission's other labs.
    std::vector<std::string> stress_files;
    std::vector<bool> together(recipes.size(), false);
    for (std::size_t i = 0; i < recipes.size() && s.stress; ++i) {
        if (!recipes[i]->declaration.stress_schedules || !staged_files.count(i)) continue;
        if (stress_files.empty()) stress_files = staged_files[i];
        together[i] = staged_files[i] == stress_files;
    }
    std::vector<Result> out;
    std::vector<std::size_t> pending;  // the labs whose stress runs stress_together makes
    for (std::size_t i = 0; i < recipes.size(); ++i) {
        Graded g = grade_one(*recipes[i], student, kernels_dir, s, stop, job_dir,
                             shared[i] ? &*shared[i] : nullptr, together[i]);
        if (g.stress_pending) pending.push_back(i);
        out.push_back(std::move(g.row));
    }
    stress_together(recipes, out, pending, stress_files, kernels_dir, s, stop, job_dir);
    for (std::size_t i = 0; i < recipes.size(); ++i)
        out[i] = judge_other_profiles(out[i], *recipes[i], student, kernels_dir, s, stop, job_dir);
    return out;
}

std::set<std::string> runner_labs(const std::vector<Recipe> &labs, const Settings &s,
                                  const std::string &folder, const volatile int *stop) {
    std::set<std::string> out;
    const std::string runner = s.runner();
    if (labs.empty() || access(runner.c_str(), X_OK) != 0) return out;
    std::vector<synclab::protocol::Args> lines;
    for (const auto &l : labs) lines.push_back({l.declaration.dir, "--describe"});
    const std::string batch = (fs::path(folder) / synclab::protocol::kDescribeFile).string();
    std::ofstream(batch, std::ios::binary | std::ios::trunc) << synclab::protocol::batch_text(lines);
    synclab::ProcessLimits limits;
    limits.timeout_s = 60;
    limits.stop = stop;
    const auto p = synclab::run_process({runner, "--batch", batch}, {}, limits);
    std::error_code ec;
    fs::remove(batch, ec);
    if (!p.exited || p.exit_code != 0) {
        // One lab it cannot load stops the runner: ask for each lab alone.
        if (labs.size() == 1 || (stop && *stop) || !p.exited || p.exit_code != 2 ||
            p.err.find("synclab-labs: cannot load lab ") == std::string::npos)
            return out;
        for (const auto &l : labs)
            for (const auto &id : runner_labs({l}, s, folder, stop)) out.insert(id);
        return out;
    }
    const synclab::protocol::RunParts said = synclab::protocol::split_runs(p.out, p.err, labs.size());
    for (std::size_t i = 0; i < labs.size(); ++i)
        if (said.marked[i] && !labs[i].description.empty() && said.out[i] == labs[i].description)
            out.insert(labs[i].id);
    return out;
}

}  // namespace grade
