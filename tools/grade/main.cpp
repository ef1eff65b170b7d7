// synclab-grade: grades one student's kernel folder, or a class of them, by running each lab
// as a child process (bounded in time and memory) and checking it on Oclgrind.
// A pipeline: options -> labs -> submissions -> plan -> run -> record -> summary, each stage a
// unit of its own beside this file.
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <set>

#include "catalog.hpp"      // labs
#include "draw_key.hpp"     // the draws' key
#include "judged_by.hpp"    // what judged a row
#include "merge.hpp"        // --merge
#include "options.hpp"      // options
#include "plan.hpp"         // plan
#include "record.hpp"       // records: gradebook, JUnit, platforms
#include "schedule.hpp"     // run, record
#include "setup.hpp"        // settings, private folder
#include "stop.hpp"         // signals
#include "submissions.hpp"  // submissions
#include "summary.hpp"      // summary
#include "synclab/runtime.hpp"  // guarded_main
#include "synclab/stress.hpp"  // kStressThreads

namespace fs = std::filesystem;

namespace {

grade::Gradebook::Mode gradebook_mode(const grade::Options &opt) {
    return opt.resume    ? grade::Gradebook::Mode::resume
           : opt.restart ? grade::Gradebook::Mode::restart
                         : grade::Gradebook::Mode::fresh;
}

// What every record is opened with.
grade::RecordSettings record_settings(const grade::Options &opt, const grade::Outputs &out,
                                      const std::vector<grade::Submission> &subs,
                                      const std::vector<const grade::Recipe *> &labs,
                                      const grade::Catalog &catalog) {
    grade::RecordSettings r;
    r.csv = out.csv;
    r.junit = out.junit;
    r.mode = gradebook_mode(opt);
    for (const auto &s : subs) r.students.push_back(s.student);
    r.gradescope = out.gradescope;
    r.prairielearn = out.prairielearn;
    r.labs = labs;
    r.points = grade::lab_points(labs, opt.points);
    if (opt.one && subs[0].refused.empty()) r.kernels = grade::kernels_in(subs[0].dir, catalog.all);
    for (const auto &lab : catalog.all) r.known_files.push_back(lab.kernel_file);
    r.gradescope_visibility = opt.gradescope_visibility;
    r.gradescope_stdout_visibility = opt.gradescope_stdout_visibility;
    r.note = opt.note;
    r.budget_s = opt.budget;
    return r;
}

// The submissions to grade: all, or --shard's slice; `klass` gets every student's name.
std::vector<grade::Submission> submissions(const grade::Options &opt, std::vector<std::string> &klass) {
    std::vector<grade::Submission> subs = grade::collect_submissions(opt.one, opt.folder);
    for (const auto &s : subs) klass.push_back(s.student);
    if (!opt.shard_count) return subs;
    subs = grade::shard_of(subs, opt.shard_index, opt.shard_count);
    std::cout << "shard " << opt.shard_index << "/" << opt.shard_count << ": " << subs.size()
              << " of the class's " << klass.size() << " student(s)\n";
    return subs;
}

// Signals caught, the budget armed, and the race check, Oclgrind and hbcheck asked for (each
// refusal a UsageError). Returns the exit code of a grader stopped meanwhile, else 0.
int checks_stage(grade::Settings &settings, const grade::Options &opt, const grade::Catalog &catalog,
                 const std::vector<const grade::Recipe *> &labs,
                 std::chrono::steady_clock::time_point started) {
    grade::catch_stop_signals();
    if (opt.budget)
        grade::arm_budget(opt.budget - std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    grade::check_race(settings, opt, (fs::path(catalog.bin) / labs[0]->executable).string(),
                      &grade::g_stop_flag);
    // Out of time already (SIGALRM): the plan ends at once, every lab "not begun".
    if (settings.race_check && grade::g_stop && grade::g_stop != SIGALRM) {
        std::cout << "interrupted (" << strsignal(grade::g_stop) << ") before grading began\n";
        return 128 + grade::g_stop;
    }
    if (!grade::g_stop) grade::check_oclgrind(settings, labs);
    if (!grade::g_stop) grade::check_hbcheck(settings, opt, labs);
    return 0;
}

// What judges this run's rows: --resume grades again a row judged by less, --merge compares.
grade::Judging judging_for(const grade::Settings &settings, const grade::Options &opt,
                           std::size_t class_size) {
    grade::Judging judging = grade::judging_of(settings);
    judging.shard_index = opt.shard_index;
    judging.shard_count = opt.shard_count;
    judging.class_size = class_size;
    return judging;
}

// What the plan stage grades: the submissions, the labs, and where the labs' files are.
struct Graded {
    const std::vector<grade::Submission> &subs;
    const std::vector<const grade::Recipe *> &labs;
    const grade::Catalog &catalog;
};

// The plan: the records' rows kept where they graded the files there now under checks at least
// this run's, the rest to grade; the records told which rows stay, and the console why the others
// are graded again.
grade::Plan plan_stage(grade::Settings &settings, const grade::Options &opt, const Graded &g,
                       grade::Records &records, const std::string &work,
                       const std::set<std::string> &only, const grade::Judging &judging) {
    std::vector<grade::Result> kept;
    for (const auto &record : records)
        for (auto &r : record->kept()) kept.push_back(std::move(r));
    grade::share_processes(settings, g.subs.size(), opt.jobs, g.labs, work, &grade::g_stop_flag);
    // Each submission's files as they are now: a kept row graded other files is graded again.
    std::vector<std::string> hashes;
    for (const auto &s : g.subs) hashes.push_back(grade::files_of(s, g.catalog.all, opt.many).sha256);
    // Under a time budget one submission's labs are graded a process each: a lab finished before
    // the budget ran out then keeps its grade (a shared process counts only once it ends).
    if (opt.budget && opt.one) settings.runner_labs.clear();
    grade::Plan plan = grade::make_plan(g.subs, g.labs, kept, settings, opt.jobs, hashes, only, &judging);
    plan.gather = opt.many;
    for (const auto &record : records) record->keep_only(plan.kept_rows);
    for (const auto &note : plan.notes) std::cout << note << "\n";
    if (settings.stress)
        settings.stress_gate = std::make_shared<grade::StressGate>(plan.jobs / synclab::kStressThreads);
    return plan;
}

int run(int argc, char **argv) {
    const auto started = std::chrono::steady_clock::now();  // --budget counts from here
    grade::ignore_write_signals();
    const char *user_icd = std::getenv("OCL_ICD_VENDORS");  // before any device lookup sets it
    const std::string icd_vendors = user_icd ? user_icd : "";

    // Options.
    grade::Options opt = grade::parse_options(argc, argv);
    if (opt.help) {
        std::cout << opt.help_text;
        return 0;
    }
    if (opt.merge) {  // grades nothing: the shards' gradebooks joined
        grade::check_merge_options(opt);
        grade::merge_gradebooks(opt.inputs, fs::absolute(opt.csv).string(), gradebook_mode(opt),
                                std::cout);
        return 0;
    }

    // Labs.
    const grade::Catalog catalog = grade::find_labs(&grade::g_stop_flag);
    if (opt.list_labs) {  // with --labs and --points: those labs, with those points
        const auto listed = grade::select_labs(catalog, opt.has_labs, opt.labs);
        grade::list_labs(catalog, listed, grade::lab_points(listed, opt.points), std::cout, std::cerr);
        return 0;
    }
    grade::check_options(opt);
    const std::vector<const grade::Recipe *> labs =
        grade::select_labs(catalog, opt.has_labs, opt.labs);

    // Submissions (a shard's slice of the class), and the outputs outside them.
    std::vector<std::string> klass;
    const std::vector<grade::Submission> subs = submissions(opt, klass);
    const std::set<std::string> only =
        opt.has_students ? grade::named_students(opt.students, subs) : std::set<std::string>{};
    const grade::Outputs out =
        grade::check_outputs({opt.csv, opt.junit, opt.gradescope, opt.prairielearn}, subs);
    grade::Settings settings = grade::device_settings(opt, catalog.bin, icd_vendors);
    const grade::DrawKey key = grade::choose_draw_key(opt.draw_key, opt.draw_key_file, out.csv);
    settings.draw_key = key.key;
    if (!key.note.empty()) std::cout << key.note << "\n";
    // A class refused for want of a sandbox is refused before its gradebook is touched.
    grade::check_sandbox(settings, opt);

    // From the first child on, a signal stops the grader cleanly and kills the child. The race
    // check and hbcheck are asked for before any record is opened: a grading refused for want of
    // hbcheck leaves the gradebook untouched.
    if (const int stopped = checks_stage(settings, opt, catalog, labs, started)) return stopped;
    const grade::Judging judging = judging_for(settings, opt, klass.size());

    // Records: every output is checked before the first student (a platform's results file is
    // written "not finished" already), and the gradebook is ours alone from here to the end.
    grade::Records records = grade::open_records(record_settings(opt, out, subs, labs, catalog));
    const grade::WorkFolder work(settings.sandbox.drops_privilege());
    grade::Plan plan = plan_stage(settings, opt, {subs, labs, catalog}, records, work.path(), only, judging);
    std::cout << "grading " << subs.size() << (opt.one ? " submission" : " submissions") << " x "
              << labs.size() << " lab(s), " << plan.jobs << " at a time"
              << grade::outputs_text(out.csv + (plan.resumed ? " (resumed)" : ""), out.junit) << "\n"
              << std::flush;

    // Run and record.
    const grade::RunContext ctx{subs,    catalog.all, settings, work.path(),
                                records, plan.kept_rows.size(), out.csv, opt.budget, &judging};
    grade::Outcome outcome = grade::run_plan(plan, ctx);
    if (outcome.interrupted) return 128 + grade::g_stop;
    if (outcome.out_of_time) return 1;
    for (const auto &record : records) record->finish();

    // Summary.
    return grade::summarize(std::cout, subs, labs, std::move(outcome.all), outcome.kept, out.csv,
                            out.junit);
}

}  // namespace

int main(int argc, char **argv) {
    return synclab::guarded_main("synclab-grade", [&] { return run(argc, argv); });
}
