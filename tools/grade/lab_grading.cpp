// One lab of one submission (lab_grading.hpp): its dynamic runs, its race check, its stress
// schedules, in that order; the first failure is the grade.
#include "lab_grading.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "judge.hpp"
#include "sandbox.hpp"  // stage_submission
#include "synclab/protocol.hpp"

namespace fs = std::filesystem;

namespace grade {

namespace {

// One lab of one submission, graded in job_dir (see grade_lab).
class LabGrading {
public:
    using Clock = std::chrono::steady_clock;
    LabGrading(const Recipe &recipe, const std::string &student, const Settings &s,
               const volatile int *stop, const std::string &job_dir, const Shared *shared,
               Clock::time_point start, bool defer_stress)
        : recipe_(recipe), s_(s), stop_(stop), job_dir_(job_dir), shared_(shared), start_(start),
          defer_stress_(defer_stress),
          copy_((fs::path(job_dir) / "submission").string()) {
        r_.student = student;
        r_.lab = recipe.id;
    }
    Graded grade(const std::string &kernels_dir);

private:
    const Recipe &recipe_;
    const Settings &s_;
    const volatile int *stop_;
    const std::string &job_dir_;
    const Shared *shared_;
    const Clock::time_point start_;
    const bool defer_stress_;  // stress runs left to the caller (stress_together)
    bool stress_pending_ = false;  // left to it: everything before them passed
    bool scheduled_ = false;   // the race check ran with hbcheck, in its seeded schedules
    Result r_;
    // The submission's own files, copied: the lab never reads the student's folder itself.
    const std::string copy_;
    JobFolders folders_;
    // Which graded variants a run did not check, and why (a device without sub-groups, say).
    std::map<std::string, std::string> unchecked_;
    std::set<std::string> checked_;
    // The dynamic runs' outcome: the first failure's kind and reason, the failed variants, the
    // runs this device could not make, and how many runs were made.
    Kind kind_ = Kind::None;
    std::string reason_;
    std::vector<std::string> failed_, not_run_;
    int runs_ = 0;

    Result graded(const std::string &kernels_dir);
    Result finish(Grade grade, Kind kind, std::string reason);
    // One line alone: a race check (Role::Check), a stress run or its warm-up (stress()).
    Run run(std::vector<std::string> args, std::map<std::string, std::string> env,
            std::size_t memory, bool variants = true, Role role = Role::Check);
    std::vector<Run> run_batch(const std::vector<synclab::Args> &sets, const std::string &device,
                               std::size_t memory);
    void note_skips(const Run &run_result);
    bool dynamic_runs();
    std::size_t judge_runs(const std::vector<Run> &done, std::size_t from,
                           const std::string &device);
    Result race_check(const std::string &skipped_note);
    std::pair<Kind, std::string> judge_race_run(const Run &og, const std::vector<std::string> &args,
                                                std::string &not_checked, std::string &fences);
    Result stress(const std::string &passed);
    std::string kernels_dir_;  // the student's own folder, as the grader was given it
};

Result LabGrading::finish(Grade grade, Kind kind, std::string reason) {
    r_.grade = grade;
    r_.kind = kind;
    r_.reason = std::move(reason);
    r_.seconds = std::chrono::duration<double>(Clock::now() - start_).count() +
                 (shared_ ? shared_->seconds : 0);
    return r_;
}

Run LabGrading::run(std::vector<std::string> args, std::map<std::string, std::string> env,
                    std::size_t memory, bool variants, Role role) {
    const BatchResult b = grade::run_batch(s_, folders_, {{&recipe_, std::move(args), variants}},
                                    {role, std::move(env), memory}, stop_);
    Run out = b.runs.front();
    if (b.stopped) out.process.interrupted = true;
    return out;
}

// Every argument set in one process, each line its own run; the lab stops at the first that
// fails. One Run per line it reached (run_batch's rule).
std::vector<Run> LabGrading::run_batch(const std::vector<synclab::Args> &sets,
                                       const std::string &device, std::size_t memory) {
    std::vector<Line> lines;
    for (const auto &set : sets) {
        lines.push_back({&recipe_, set, true});
        if (!device.empty()) lines.back().args.insert(lines.back().args.end(), {"--device", device});
    }
    const BatchResult b = grade::run_batch(s_, folders_, lines, {Role::Check, dynamic_run_env(recipe_.declaration), memory}, stop_);
    std::vector<Run> out;
    if (b.stopped) return out;
    for (std::size_t i = 0; i < lines.size(); ++i)
        if (b.ran[i]) out.push_back(b.runs[i]);
    return out;
}

void LabGrading::note_skips(const Run &run_result) {
    for (const auto &v : run_result.verdict.variants) {
        if (std::find(recipe_.variants.begin(), recipe_.variants.end(), v.variant) ==
            recipe_.variants.end())
            continue;
        if (v.state == synclab::VariantState::Skipped) unchecked_.emplace(v.variant, v.detail);
        else checked_.insert(v.variant);
    }
}

// The runs `done` of the argument sets from `from` on: each noted, the first failure's kind and
// reason kept. Returns where the next process begins: after a run this device cannot make, or
// at the end.
std::size_t LabGrading::judge_runs(const std::vector<Run> &done, std::size_t from,
                                   const std::string &device) {
    const std::string on_device = device.empty() ? "" : " --device " + device;
    const std::vector<synclab::Args> &sets = recipe_.declaration.grading;
    std::size_t next = sets.size();
    for (std::size_t j = 0; j < done.size() && kind_ == Kind::None; ++j) {
        const std::size_t i = from + j;
        const Run &run_result = done[j];
        note_run(r_, run_result, "run");
        const auto &v = run_result.verdict;
        if (as_verdict_says(run_result) && v.kind == synclab::ResultKind::Unsupported) {
            not_run_.push_back(join(sets[i]) + on_device + " (" +
                               clip(relative(v.message, copy_), 160) + ")");
            next = i + 1;
            break;
        }
        ++runs_;
        note_skips(run_result);
        std::tie(kind_, reason_) = classify(run_result, copy_, s_.timeout_s);
        if (kind_ == Kind::None) continue;
        for (const auto &var : v.variants)
            if (var.state == synclab::VariantState::Wrong &&
                std::find(recipe_.variants.begin(), recipe_.variants.end(), var.variant) !=
                    recipe_.variants.end())
                failed_.push_back(var.variant);
        if (kind_ == Kind::WrongAnswer || kind_ == Kind::Crash) {
            // The run again, as the student types it in a checkout: their folder, the variants
            // that failed (or all graded ones: a crash names none), its arguments and inputs.
            std::vector<std::string> again{"--kernels", kernels_dir_, "--variant",
                                           join(failed_.empty() ? recipe_.variants : failed_, ",")};
            again.insert(again.end(), sets[i].begin(), sets[i].end());
            if (!device.empty()) again.insert(again.end(), {"--device", device});
            if (!v.seed.empty()) again.insert(again.end(), {"--seed", v.seed});
            reason_ += " (repeat it: " + repeat_command(recipe_.executable, again) + ")";
        }
    }
    return next;
}

// (1) Dynamic runs: every graded variant, every argument set, one lab process per device
// (--batch): the runs share the device's context, what the OpenCL implementation loads once per
// context (POCL's kernel library) and every program built (Env::context). The first failure
// ends them, gives the kind and the reason, and names every failed variant. A run this device
// cannot make (a work-group above the device's own largest; below it the launch decides, and a
// refused one is the kernel's doing and stays an error) checks nothing there: it is "not
// checked (why)", and the runs after it go on in a new process. False when *stop ended them.
bool LabGrading::dynamic_runs() {
    if (shared_) r_.details += shared_->note + "\n";
    for (std::size_t d = 0; d < s_.devices.size() && kind_ == Kind::None; ++d) {
        const std::string &device = s_.devices[d];
        const std::vector<synclab::Args> &sets = recipe_.declaration.grading;
        if (sets.empty()) break;  // a lab that declares no dynamic run
        for (std::size_t from = 0; from < sets.size() && kind_ == Kind::None;) {
            if (*stop_) return false;
            // --quick: the first run this device can make, alone.
            const std::size_t upto = s_.quick ? from + 1 : sets.size();
            const std::vector<Run> done =
                shared_ && d == 0 && from == 0
                    ? shared_->runs
                    : run_batch({sets.begin() + static_cast<std::ptrdiff_t>(from),
                                 sets.begin() + static_cast<std::ptrdiff_t>(upto)},
                                device, s_.device_memory_bytes.at(d));
            if (*stop_) return false;
            from = judge_runs(done, from, device);
        }
    }
    return true;
}

Graded LabGrading::grade(const std::string &kernels_dir) {
    Result r = graded(kernels_dir);
    return {std::move(r), stress_pending_};
}

Result LabGrading::graded(const std::string &kernels_dir) {
    kernels_dir_ = kernels_dir;
    const Staged staged = stage_submission(kernels_dir, copy_, recipe_.kernel_file);
    if (!staged.refused.empty()) return finish(Grade::Fail, Kind::Refused, staged.refused);
    if (std::find(staged.files.begin(), staged.files.end(), recipe_.kernel_file) ==
        staged.files.end())
        return finish(Grade::Missing, Kind::Missing, recipe_.kernel_file + " not handed in");
    folders_ = job_folders(job_dir_, s_);

    if (!dynamic_runs()) return finish(Grade::Unfinished, Kind::None, "");
    if (failed_.size() > 1) reason_ += "; failed variants: " + join(failed_);
    if (kind_ == Kind::None && runs_ == 0 && !not_run_.empty())  // nothing checked is never a pass
        return finish(Grade::Fail, Kind::Error, "no grading run could run here: " + not_run_.front());
    // A build error or a hang would only repeat itself on Oclgrind.
    if (kind_ == Kind::CompileError || kind_ == Kind::Timeout || kind_ == Kind::Error)
        return finish(Grade::Fail, kind_, reason_);

    // What was not checked is said in every row, passing or not.
    std::string skipped_note;
    for (const auto &[variant, why] : unchecked_)
        if (!checked_.count(variant))
            skipped_note += "; not checked: " + variant + " (" + clip(why, 160) + ")";
    for (const auto &line : not_run_) skipped_note += "; not checked: " + line;
    return race_check(skipped_note);
}

// (2) The race check: the lab on Oclgrind records each finding; a finding fails the lab, or
// explains a wrong answer.
Result LabGrading::race_check(const std::string &skipped_note) {
    std::string race_note;
    if (recipe_.declaration.race_checks.empty())
        race_note = "; not race-checked (" +
                    (recipe_.declaration.race_check_skipped.empty() ? std::string("the lab declares no race check")
                                                  : recipe_.declaration.race_check_skipped) +
                    ")";
    else if (!s_.race_check || !s_.oclgrind_available)
        race_note = "; " + s_.race_check_note;
    if (!race_note.empty()) {
        if (kind_ == Kind::None) return stress(std::to_string(runs_) + " run(s) right" + race_note + skipped_note);
        return finish(Grade::Fail, kind_, reason_ + race_note + skipped_note);
    }
    // The lab turns Oclgrind's checks on from its own declaration; settings of the grader's own
    // environment must not turn any of them off.
    // One group at a time (deterministic, one core per race check under -j), unless the lab's
    // groups wait for one another: then as many as its declaration says meet.
    const unsigned groups = recipe_.declaration.oclgrind_groups;
    const std::map<std::string, std::string> og_env{
        {"OCLGRIND_DATA_RACES", ""},   {"OCLGRIND_UNINITIALIZED", ""},
        {"OCLGRIND_UNIFORM_WRITES", ""}, {"OCLGRIND_MAX_ERRORS", ""},
        {"OCLGRIND_PLUGINS", ""},      {"OCLGRIND_NUM_THREADS", std::to_string(groups ? groups : 1)}};
    Kind og_kind = Kind::None;
    std::string og_reason;
    std::string not_checked, fences;  // checks the lab could not make
    // A lab whose dynamic runs failed is graded already: the declared checks may say why, and a
    // drawn member, there to catch what only other sizes show, could change nothing. A right one
    // meets the member its handed-in kernel draws.
    auto shapes = recipe_.declaration.race_checks;
    if (kind_ == Kind::None) {
        std::string text, unread;
        synclab::protocol::read_plain((fs::path(copy_) / recipe_.kernel_file).string(), kMaxSubmissionFile, text, unread);
        shapes = race_checks_of(recipe_, s_.draw_key, text);
    }
    // One process for them all: the lab gives each Oclgrind run its own context, report cap and
    // hbcheck schedule, as alone. The runner ends the lab's lines at one that fails, which in a
    // lab whose dynamic runs were right is a finding; in one they failed (graded already) the
    // lines that process reached say why, if any can.
    std::vector<Line> batch;
    for (const auto &shape : shapes) {
        batch.push_back({&recipe_, {"--device", "oclgrind"}, true});
        batch.back().args.insert(batch.back().args.end(), shape.begin(), shape.end());
    }
    if (*stop_) return finish(Grade::Unfinished, Kind::None, "");
    const BatchResult b = grade::run_batch(s_, folders_, batch, {Role::Check, og_env, s_.oclgrind_memory_bytes}, stop_);
    if (b.stopped || *stop_) return finish(Grade::Unfinished, Kind::None, "");
    for (std::size_t i = 0; i < batch.size() && b.ran[i] && og_kind == Kind::None; ++i)
        std::tie(og_kind, og_reason) = judge_race_run(b.runs[i], batch[i].args, not_checked, fences);
    scheduled_ = recipe_.declaration.oclgrind_groups && fences.empty();
    if (kind_ != Kind::None) {  // the dynamic failure stays the grade; Oclgrind says why
        if (og_kind != Kind::None && og_reason.rfind("on Oclgrind", 0) != 0)
            reason_ += "; Oclgrind: " + og_reason;
        return finish(Grade::Fail, kind_, reason_ + skipped_note);
    }
    if (og_kind != Kind::None) return finish(Grade::Fail, og_kind, og_reason + skipped_note);
    if (!fences.empty())
        return finish(Grade::Fail, Kind::Error,
                      "not a pass: this grader could not judge the fences between work-groups" +
                          fences + "; the instructor re-grades once hbcheck runs" + skipped_note);
    return stress(std::to_string(runs_) + " run(s) right; Oclgrind: no findings" + not_checked +
                  skipped_note);
}

// One race check's run: its finding's kind and reason (Kind::None: none), the checks it could
// not make added to not_checked, and to fences those of hbcheck (not run).
std::pair<Kind, std::string> LabGrading::judge_race_run(const Run &og, const std::vector<std::string> &args,
                                                        std::string &not_checked, std::string &fences) {
    note_run(r_, og, "race check on Oclgrind");
    auto [og_kind, og_reason] = race_findings(og.verdict, recipe_.variants, copy_);
    if (og_kind == Kind::None) {
        auto [k, why] = classify(og, copy_, s_.timeout_s);
        if (k != Kind::None && kind_ == Kind::None) {
            og_kind = k;
            og_reason = "on Oclgrind: " + why;
        }
    }
    for (const auto &f : og.verdict.findings) {
        if (f.kind != synclab::FindingKind::NotChecked) continue;
        // Variant "-": hbcheck did not run in the race check (not built, not loadable), so no
        // fence between work-groups was judged. A fence bug would pass here and fail where
        // hbcheck runs: never a pass.
        std::string &into = f.variant == "-" && recipe_.declaration.oclgrind_groups ? fences : not_checked;
        if (into.find(f.message) == std::string::npos) into += "; " + f.message;
    }
    // Where the groups wait for one another the race check ran in hbcheck's seeded schedules:
    // the same command gives the same interleavings anywhere.
    if (og_kind != Kind::None && recipe_.declaration.oclgrind_groups && og_reason.rfind("on Oclgrind", 0) != 0) {
        std::vector<std::string> again{"--kernels", kernels_dir_, "--variant", join(recipe_.variants, ",")};
        again.insert(again.end(), args.begin(), args.end());
        if (!og.verdict.seed.empty()) again.insert(again.end(), {"--seed", og.verdict.seed});
        og_reason += " (repeat it: " + repeat_command(recipe_.executable, again) + ")";
    }
    return {og_kind, og_reason};
}

// (3) Stress schedules, for a lab that declares them and passed so far: its protocols between
// work-groups run again in one process, each schedule with delays injected at the atomics and
// fences, on the lab's own device (POCL's CPU, which otherwise never shows their windows). A
// schedule that goes wrong fails the lab, named by its seed with the command that repeats it on
// the student's folder.
Result LabGrading::stress(const std::string &passed) {
    const synclab::Declaration &d = recipe_.declaration;
    if (!d.stress_schedules) return finish(Grade::Pass, Kind::Pass, passed);
    if (!s_.stress)
        return finish(Grade::Pass, Kind::Pass,
                      passed + (s_.quick ? "; not stress-tested (--quick)"
                                         : "; not stress-tested (--no-stress)"));
    // The race check ran the groups in hbcheck's seeded schedules, which fail every stress
    // fixture in every grading, on any machine (docs/grading.md, "Schedules on Oclgrind"). POCL's
    // stress, which needs free cores to find what it finds, then runs only when asked (--stress N).
    if (scheduled_ && !s_.stress_schedules)
        return finish(Grade::Pass, Kind::Pass,
                      passed + "; not stress-tested on POCL: the race check's seeded schedules "
                               "cover it (--stress N runs it)");
    if (*stop_) return finish(Grade::Unfinished, Kind::None, "");
    if (defer_stress_) {  // unfinished until the caller's stress run; its reason says what passed
        stress_pending_ = true;
        return finish(Grade::Unfinished, Kind::None, passed);
    }
    const std::vector<std::string> args = stress_line(recipe_, s_);
    // Its build first, behind the stress runs and beside any other work (--warm-up): the stress
    // run then holds the cores for its schedules alone, its kernels served by POCL's cache. The
    // warm-up grades nothing (a group starved behind a stress run may give a right barrier up):
    // whatever it did, the stress run decides, and builds what the cache lacks.
    std::vector<std::string> warm_up = args;
    warm_up.insert(warm_up.end(), d.stress_warm_up.begin(), d.stress_warm_up.end());
    warm_up.push_back("--warm-up");
    const Run w = run(warm_up, stress_run_env(d), s_.device_memory_bytes.front(), false, Role::WarmUp);
    if (*stop_) return finish(Grade::Unfinished, Kind::None, "");
    note_run(r_, w, "stress build (--warm-up, graded by the stress run)");
    const Run st = run(args, stress_run_env(d), s_.device_memory_bytes.front(), false, Role::Stress);
    if (*stop_) return finish(Grade::Unfinished, Kind::None, "");
    note_run(r_, st, "stress schedules");
    const auto [grade, kind, why] = stress_grade(recipe_, s_, st, passed, copy_, kernels_dir_);
    return finish(grade, kind, why);
}

}  // namespace

Graded grade_one(const Recipe &recipe, const std::string &student, const std::string &kernels_dir,
                 const Settings &s, const volatile int *stop, const std::string &job_dir,
                 const Shared *shared, bool defer_stress) {
    const auto start = std::chrono::steady_clock::now();
    struct Emptied {  // nothing of one lab is left for the next but the submission's cache
        std::string dir;
        ~Emptied() { clear_folder(dir); }
    } emptied{job_dir};
    clear_folder(job_dir);
    LabGrading grading(recipe, student, s, stop, job_dir, shared, start, defer_stress);
    return grading.grade(kernels_dir);
}


Result judge_other_profiles(Result r, const Recipe &recipe, const std::string &student,
                            const std::string &kernels_dir, const Settings &s,
                            const volatile int *stop, const std::string &job_dir) {
    std::set<std::string> judged{s.profile};
    while (r.passed() && !*stop) {
        const auto next = std::find_if(r.profiles_differ.begin(), r.profiles_differ.end(),
                                       [&](const std::string &p) { return !judged.count(p); });
        const synclab::Profile *profile = next == r.profiles_differ.end() ? nullptr : synclab::find_profile(*next);
        if (!profile) break;
        judged.insert(profile->name);
        Settings other = s;
        other.profile = profile->name;
        const Result o = grade_one(recipe, student, kernels_dir, other, stop, job_dir, nullptr).row;
        const std::string under = "with the macros of " + profile->says;
        r.seconds += o.seconds;
        r.details += "\n" + under + ", where the program text differs:\n" + o.details;
        r.profiles_differ.insert(o.profiles_differ.begin(), o.profiles_differ.end());
        if (!o.finished()) {  // stopped: unfinished
            r.grade = Grade::Unfinished;
            r.kind = Kind::None;
            r.reason = "";
        } else if (!o.passed()) {
            r.grade = o.grade;
            r.kind = o.kind;
            r.reason = under + " (the text differs there): " + o.reason;
        } else {
            r.reason += "; " + under + " (the text differs there): passed too";
        }
    }
    return r;
}


Recipe submission_recipe(const Recipe &recipe, const std::string &kernels_dir, const Settings &s) {
    std::string text, unread;  // a file that cannot be read draws as empty: it is graded missing
    synclab::protocol::read_plain((fs::path(kernels_dir) / recipe.kernel_file).string(), kMaxSubmissionFile,
                                  text, unread);
    return drawn_recipe(recipe, s.draw_key, text);
}

Result grade_lab(const Recipe &declared, const std::string &student, const std::string &kernels_dir,
                 const Settings &s, const volatile int *stop, const std::string &job_dir) {
    struct Emptied {  // nothing of one submission is left for the next, its cache neither
        std::string dir;
        explicit Emptied(std::string d) : dir(std::move(d)) { empty_job(dir); }
        ~Emptied() { empty_job(dir); }
    } emptied{job_dir};
    const Recipe recipe = submission_recipe(declared, kernels_dir, s);
    return judge_other_profiles(grade_one(recipe, student, kernels_dir, s, stop, job_dir, nullptr).row,
                                recipe, student, kernels_dir, s, stop, job_dir);
}

}  // namespace grade
