// synclab-grade: grades one student's kernel folder, or a class of them, by running each lab
// as a child process (bounded in time and memory) and checking it on Oclgrind.
// A pipeline: options -> labs -> submissions -> plan -> run -> record -> summary, each stage a
// unit of its own beside this file.
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <set>

#include "catalog.hpp"      // labs
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

int run(int argc, char **argv) {
    grade::ignore_write_signals();
    const char *user_icd = std::getenv("OCL_ICD_VENDORS");  // before any device lookup sets it
    const std::string icd_vendors = user_icd ? user_icd : "";

    // Options.
    grade::Options opt = grade::parse_options(argc, argv);
    if (opt.help) {
        std::cout << opt.help_text;
        return 0;
    }

    // Labs.
    const grade::Catalog catalog = grade::find_labs(&grade::g_stop_flag);
    if (opt.list_labs) {
        grade::list_labs(catalog, std::cout, std::cerr);
        return 0;
    }
    grade::check_options(opt);
    const std::vector<const grade::Recipe *> labs =
        grade::select_labs(catalog, opt.has_labs, opt.labs);

    // Submissions, and the outputs outside them.
    const std::vector<grade::Submission> subs = grade::collect_submissions(opt.one, opt.folder);
    const std::set<std::string> only =
        opt.has_students ? grade::named_students(opt.students, subs) : std::set<std::string>{};
    const grade::Outputs out =
        grade::check_outputs({opt.csv, opt.junit, opt.gradescope, opt.prairielearn}, subs);
    grade::Settings settings = grade::device_settings(opt, catalog.bin, icd_vendors);
    // A class refused for want of a sandbox is refused before its gradebook is touched.
    grade::check_sandbox(settings, opt);

    // Records: every output is checked before the first student (a platform's results file is
    // written "not finished" already), and the gradebook is ours alone from here to the end.
    grade::RecordSettings record_settings;
    record_settings.csv = out.csv;
    record_settings.junit = out.junit;
    record_settings.mode = opt.resume    ? grade::Gradebook::Mode::resume
                           : opt.restart ? grade::Gradebook::Mode::restart
                                         : grade::Gradebook::Mode::fresh;
    for (const auto &s : subs) record_settings.students.push_back(s.student);
    record_settings.gradescope = out.gradescope;
    record_settings.prairielearn = out.prairielearn;
    record_settings.labs = labs;
    record_settings.points = grade::lab_points(labs, opt.points);
    if (opt.one && subs[0].refused.empty())
        record_settings.kernels = grade::kernels_in(subs[0].dir, catalog.all);
    for (const auto &r : catalog.all) record_settings.known_files.push_back(r.kernel_file);
    grade::Records records = grade::open_records(record_settings);
    std::vector<grade::Result> kept;
    for (const auto &record : records)
        for (auto &r : record->kept()) kept.push_back(std::move(r));

    // From the first child on, a signal stops the grader cleanly and kills the child.
    grade::catch_stop_signals();
    grade::check_race(settings, opt, (fs::path(catalog.bin) / labs[0]->executable).string(),
                      &grade::g_stop_flag);
    if (settings.race_check && grade::g_stop) {
        std::cout << "interrupted (" << strsignal(grade::g_stop) << ") before grading began\n";
        return 128 + grade::g_stop;
    }
    const grade::WorkFolder work(settings.sandbox.drops_privilege());

    // Plan.
    grade::share_processes(settings, subs.size(), opt.jobs, labs, work.path(), &grade::g_stop_flag);
    // Each submission's files as they are now: a kept row graded other files is graded again.
    std::vector<std::string> hashes;
    for (const auto &s : subs) hashes.push_back(grade::files_of(s, catalog.all, opt.many).sha256);
    grade::Plan plan = grade::make_plan(subs, labs, kept, settings, opt.jobs, hashes, only);
    plan.gather = opt.many;
    for (const auto &record : records) record->keep_only(plan.kept_rows);
    for (const auto &note : plan.notes) std::cout << note << "\n";
    if (settings.stress)
        settings.stress_gate = std::make_shared<grade::StressGate>(plan.jobs / synclab::kStressThreads);
    std::cout << "grading " << subs.size() << (opt.one ? " submission" : " submissions") << " x "
              << labs.size() << " lab(s), " << plan.jobs << " at a time; gradebook " << out.csv
              << (plan.resumed ? " (resumed)" : "") << ", JUnit reports in " << out.junit << "/\n"
              << std::flush;

    // Run and record.
    const grade::RunContext ctx{subs,    catalog.all, settings, work.path(),
                                records, plan.kept_rows.size(), out.csv};
    grade::Outcome outcome = grade::run_plan(plan, ctx);
    if (outcome.interrupted) return 128 + grade::g_stop;
    for (const auto &record : records) record->finish();

    // Summary.
    return grade::summarize(std::cout, subs, labs, std::move(outcome.all), outcome.kept, out.csv,
                            out.junit);
}

}  // namespace

int main(int argc, char **argv) {
    return synclab::guarded_main("synclab-grade", [&] { return run(argc, argv); });
}
