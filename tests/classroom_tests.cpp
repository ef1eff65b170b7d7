// The grading platforms (classroom/): Gradescope's run_autograder and PrairieLearn's entry point,
// each run in a fake root with its results checked against the platform's schema; the GitHub
// Classroom workflow's command and its JUnit report; synclab-grade's platform options.
#include <doctest/doctest.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

#include "grade_support.hpp"
#include "synclab/protocol.hpp"

namespace fs = std::filesystem;
using namespace gradetest;

namespace {

struct Platform {
    std::string name;        // as synclab-grade's option names it
    std::string entry;       // its entry point in the source tree
    std::string root_env;    // the variable naming its root
    std::string submission;  // where it puts the student's files, under the root
};
const Platform kGradescope{"gradescope", "classroom/gradescope/run_autograder", "AUTOGRADER_ROOT",
                           "submission"};
const Platform kPrairieLearn{"prairielearn", "classroom/prairielearn/grade", "PL_GRADE_ROOT",
                             "student"};

std::string schema_of(const Platform &p) {
    return test::source("classroom/" + p.name + "/results.schema.json");
}

// The build folder of this test binary, as SYNCLAB_BUILD names one.
std::string build_dir() { return fs::path(test::lab(kGrader)).parent_path().parent_path().string(); }

// path -> value ("tests.0.name" -> "lab 01: ..."), as tests/check_results.py prints it.
using Flat = std::map<std::string, std::string>;

// `file` checked by tests/check_results.py against a schema (or "--junit"), read back flat (empty
// when it is not valid). None when the checker cannot run here (no python3-jsonschema): said,
// and a failure on CI.
std::optional<Flat> checked(const std::string &schema, const std::string &file, bool valid = true) {
    synclab::ProcessLimits limits;
    limits.timeout_s = 60;
    const auto p = synclab::run_process({test::source("tests/check_results.py"), schema, file}, {},
                                        limits);
    if (p.exited && p.exit_code == 2) {
        if (std::getenv("SYNCLAB_REQUIRE_OCLGRIND")) FAIL("cannot check the results: " << p.err);
        MESSAGE("results not checked: " << p.err);
        return std::nullopt;
    }
    CAPTURE(read_file(file));
    CAPTURE(p.err);
    CHECK(p.exit_code == (valid ? 0 : 1));
    Flat flat;
    std::istringstream in(p.out);
    for (std::string line; std::getline(in, line);)
        if (const auto tab = line.find('\t'); tab != std::string::npos)
            flat[line.substr(0, tab)] = line.substr(tab + 1);
    return flat;
}

// The value at `path`, "" when there is none.
std::string value(const Flat &f, const std::string &path) {
    const auto it = f.find(path);
    return it == f.end() ? "" : it->second;
}

// Every text a student can read in the results, one string.
std::string all_text(const Flat &f) {
    std::string text;
    for (const auto &[path, value] : f)
        if (contains(path, "output") || contains(path, "message") || contains(path, "format_errors"))
            text += value + "\n";
    return text;
}

// The platform's entry point on the fake root, SYNCLAB_GRADE_OPTIONS `options`.
synclab::ProcessResult run_platform(const Platform &p, const fs::path &root, const std::string &options,
                                    std::map<std::string, std::string> env = {}) {
    env.emplace(p.root_env, root.string());
    env.emplace("SYNCLAB_BUILD", build_dir());
    env.emplace("SYNCLAB_GRADE_OPTIONS", options);
    env.emplace(synclab::protocol::kKernels, "");
    synclab::ProcessLimits limits;
    limits.timeout_s = 400;
    return synclab::run_process({test::source(p.entry)}, env, limits);
}

// The platform's entry point on the fake root, then its results checked (none: the checker
// cannot run here).
std::optional<Flat> graded(const Platform &p, const fs::path &root, const std::string &options,
                           const std::map<std::string, std::string> &env = {}) {
    const auto r = run_platform(p, root, options, env);
    INFO("stdout: " << r.out);
    INFO("stderr: " << r.err);
    CHECK(r.exit_code == 0);
    return checked(schema_of(p), (root / "results/results.json").string());
}

// Three labs right (their solutions) and the other seven the starters, which fail their TODO
// parts; in `dir`, or as uploaded from a zip (sub-folders, one with a space) when `nested`.
// Returns the ids of the three.
std::set<std::string> three_of_ten(const fs::path &dir, bool nested) {
    std::vector<std::string> files;
    for (const auto &e : fs::directory_iterator(test::source("kernels")))
        if (e.path().extension() == ".cl") files.push_back(e.path().filename().string());
    std::sort(files.begin(), files.end());
    REQUIRE(files.size() == 10);
    const std::set<std::string> right{"01", "02", "03"};
    for (const auto &file : files) {
        const bool good = right.count(file.substr(0, 2)) > 0;
        const fs::path to = nested ? dir / "week 3" / (good ? "done" : "") : dir;
        fs::create_directories(to);
        fs::copy_file(test::source((good ? "solutions/" : "kernels/") + file), to / file);
    }
    return right;
}

// Each lab's test as a platform shows it: (id, points earned, points, text).
struct LabTest {
    std::string id, earned, most, text;
};
std::vector<LabTest> lab_tests(const Platform &p, const Flat &f) {
    std::vector<LabTest> out;
    const int n = f.count("tests.length") ? std::stoi(f.at("tests.length")) : 0;
    for (int i = 0; i < n; ++i) {
        const std::string at = "tests." + std::to_string(i) + ".";
        const bool gs = p.name == "gradescope";
        auto get = [&](const std::string &k) { return value(f, at + k); };
        REQUIRE(get("name").size() > 6);  // "lab 01: ..."
        out.push_back({get("name").substr(4, 2), get(gs ? "score" : "points"),
                       get(gs ? "max_score" : "max_points"),
                       get(gs ? "output" : "message") + "\n" + get(gs ? "status" : "output")});
    }
    return out;
}

// The folders classroom/left_out says no package holds.
std::vector<std::string> left_out() {
    std::vector<std::string> out;
    std::istringstream in(read_file(test::source("classroom/left_out")));
    for (std::string line; std::getline(in, line);)
        if (!line.empty() && line[0] != '#') out.push_back(line + "/");
    return out;
}

// Lab 02's solution with a loop no work-item leaves: it runs until something stops it.
void lab02_that_never_ends(const fs::path &to) {
    std::string text = read_file(test::source("solutions/02_host_final_sum.cl"));
    const std::string after = "const uint i = get_global_id(0);\n";
    const auto at = text.find(after);
    REQUIRE(at != std::string::npos);
    text.insert(at + after.size(), "    for (int spin = 1; spin > 0; spin = spin / 2 + 1)\n"
                                   "        barrier(CLK_LOCAL_MEM_FENCE);\n");
    write_text(to / "02_host_final_sum.cl", text);
}

// The steps of a GitHub Classroom workflow that grade: (command, max-score), in order.
std::vector<std::pair<std::string, int>> command_steps(const std::string &workflow) {
    std::vector<std::pair<std::string, int>> steps;
    std::istringstream in(workflow);
    bool grader = false;
    std::string command;
    for (std::string line; std::getline(in, line);) {
        const auto text = line.substr(std::min(line.find_first_not_of(' '), line.size()));
        if (text.rfind("- name:", 0) == 0) grader = false;
        if (text == "uses: classroom-resources/autograding-command-grader@v1") grader = true;
        if (!grader) continue;
        if (text.rfind("command: ", 0) == 0) command = text.substr(9);
        if (text.rfind("max-score: ", 0) == 0) steps.push_back({command, std::stoi(text.substr(11))});
    }
    return steps;
}

// classroom/make_workflow.sh with `args`, listing the labs with this build's grader.
synclab::ProcessResult make_workflow(std::vector<std::string> args) {
    args.insert(args.begin(), {test::source("classroom/make_workflow.sh"), "--grader", test::lab(kGrader)});
    synclab::ProcessLimits limits;
    limits.timeout_s = 120;
    return synclab::run_process(args, {{synclab::protocol::kKernels, ""}}, limits);
}

}  // namespace

TEST_SUITE("grade") {

TEST_CASE("Gradescope and PrairieLearn: 3 of 10 labs right scores 3 of 10, each lab's reason in its test" * doctest::test_suite("e2e")) {
    for (const Platform &p : {kGradescope, kPrairieLearn}) {
        CAPTURE(p.name);
        TempDir root;
        const std::set<std::string> right = three_of_ten(root.path / p.submission, true);
        const auto checked_file = graded(p, root.path, "--quick -j 2 --timeout 60");
        if (!checked_file) return;
        const Flat &f = *checked_file;
        CHECK(value(f, "score") == (p.name == "gradescope" ? "3" : "0.3"));
        const auto tests = lab_tests(p, f);
        REQUIRE(tests.size() == 10);
        for (const auto &t : tests) {
            CAPTURE(t.text);
            const bool good = right.count(t.id) > 0;
            CHECK(t.most == "1");
            CHECK(t.earned == (good ? "1" : "0"));
            CHECK(contains(t.text, good ? "pass [" + t.id : "FAIL "));
            CHECK(contains(t.text, "[" + t.id + "_"));  // its file, e.g. [04_subgroup_finish.cl]
            if (!good) CHECK(t.text.size() > t.text.find("]: ") + 12);  // a reason follows
        }
        if (p.name == "prairielearn") CHECK(value(f, "gradable") == "true");
        if (p.name == "gradescope") CHECK(value(f, "tests.0.status") == "passed");
    }
}

TEST_CASE("Gradescope and PrairieLearn: whatever goes wrong, a valid results file says why" * doctest::test_suite("e2e")) {
    TempDir fakes;
    auto fake_grader = [&](const std::string &name, const std::string &body) {
        fs::create_directories(fakes.path / name / "bin");
        const fs::path exe = fakes.path / name / "bin" / kGrader;
        std::ofstream(exe) << "#!/bin/sh\n" << body << "\n";
        fs::permissions(exe, fs::perms::owner_all);
        return (fakes.path / name).string();
    };
    const std::string crashes = fake_grader("crashes", "kill -SEGV $$");
    // A grader that never ends by itself (its sleep outlasts the budget): the budget must stop it.
    const std::string sleeps = fake_grader("sleeps", "exec sleep 60");
    const std::string solution = test::source("solutions/01_workgroup_reduce.cl");
    const std::string starter = test::source("kernels/01_workgroup_reduce.cl");
    const std::string file = "01_workgroup_reduce.cl";
    struct Case {
        std::string what;
        std::vector<std::pair<std::string, std::string>> files;  // (from, as in the submission)
        std::string options;
        std::map<std::string, std::string> env;
        bool passes, student_fault;
        std::vector<std::string> says;
    };
    const std::vector<Case> cases{
        // The shallowest of two files with one name is graded; macOS's zip litter never is.
        {"the right file, in a sub-folder",
         {{solution, "my lab/" + file}, {starter, "my lab/old/" + file}, {starter, "__MACOSX/" + file},
          {starter, "my lab/._" + file}},
         "", {}, true, true, {"pass [" + file, "two files named " + file}},
        {"the starter, above the right file", {{starter, file}, {solution, "my lab/" + file}}, "", {},
         false, true, {"FAIL wrong-answer", "two files named " + file}},
        {"no file", {}, "", {}, false, true, {"missing", file + " not handed in", "no .cl file"}},
        {"no submission folder", {}, "", {}, false, true, {"not handed in"}},
        {"the file under another name", {{solution, "lab1.cl"}}, "", {}, false, true,
         {"not handed in", "named as no lab: lab1.cl"}},
        {"a compile error", {{test::fixture("compile_error") + "/" + file, file}}, "", {}, false, true,
         {"FAIL compile-error", file + ":6:"}},
        {"a kernel that never ends", {{test::fixture("infinite_loop") + "/" + file, file}}, "--timeout 2",
         {}, false, true, {"FAIL timeout", "timed out"}},
        {"a grader that crashes", {{solution, file}}, "", {{"SYNCLAB_BUILD", crashes}}, false, false,
         {"crashed", "SIGSEGV"}},
        {"a grader that never ends", {{solution, file}}, "",
         {{"SYNCLAB_BUILD", sleeps}, {"SYNCLAB_AUTOGRADER_TIMEOUT", "2"}}, false, false, {"longer than 2 s"}},
        {"no grader built", {{solution, file}}, "", {{"SYNCLAB_BUILD", (fakes.path / "none").string()}},
         false, false, {"not built"}},
    };
    for (const Platform &p : {kGradescope, kPrairieLearn})
        for (const Case &c : cases) {
            CAPTURE(p.name);
            CAPTURE(c.what);
            TempDir root;
            const fs::path submission = root.path / p.submission;
            if (c.what != "no submission folder") fs::create_directories(submission);
            for (const auto &[from, as] : c.files) {
                fs::create_directories((submission / as).parent_path());
                fs::copy_file(from, submission / as);
            }
            const auto checked_file = graded(p, root.path, "--labs 01 --quick " + c.options, c.env);
            if (!checked_file) return;
            const Flat &f = *checked_file;
            const std::string text = all_text(f);
            CAPTURE(text);
            for (const auto &words : c.says) CHECK(contains(text, words));
            // What the upload went wrong in is at the top, where a student reads first; only there.
            const std::string top = value(f, p.name == "gradescope" ? "output" : "message");
            const bool twins = c.what == "the right file, in a sub-folder" ||
                               c.what == "the starter, above the right file";
            CHECK(contains(top, "two files named") == twins);
            CHECK(contains(top, "no .cl file") == (c.what == "no file" || c.what == "no submission folder"));
            CHECK(value(f, "score") == (c.passes ? "1" : "0"));
            if (p.name == "prairielearn") CHECK(value(f, "gradable") == (c.student_fault ? "true" : "false"));
        }
}

TEST_CASE("the Gradescope zip unpacked in a fake root grades with its grade-options, solutions and tests left out") {
    if (!fs::exists(test::source(".git"))) {
        MESSAGE("not a git checkout: the zip is built from the last commit");
        return;
    }
    TempDir root;
    const std::string zip = root / "autograder.zip";
    synclab::ProcessLimits limits;
    limits.timeout_s = 120;
    const auto made = synclab::run_process(
        {test::source("classroom/gradescope/make_autograder_zip.sh"), "-o", zip, "--visibility",
         "after_published", "--labs", "01", "--quick"},
        {}, limits);
    CAPTURE(made.err);
    REQUIRE(made.exit_code == 0);
    // Unpacked as Gradescope does, into source/, with each file's mode.
    const char *unzip = "import os, sys, zipfile\n"
                        "z = zipfile.ZipFile(sys.argv[1])\n"
                        "for i in z.infolist():\n"
                        "    z.extract(i, sys.argv[2])\n"
                        "    mode = i.external_attr >> 16 & 0o777\n"
                        "    if mode: os.chmod(os.path.join(sys.argv[2], i.filename), mode)\n";
    const auto unpacked =
        synclab::run_process({"/usr/bin/env", "python3", "-c", unzip, zip, root / "source"}, {}, limits);
    REQUIRE(unpacked.exit_code == 0);
    for (const char *file : {"setup.sh", "run_autograder", "grade-options", "classroom/autograde.sh",
                             "kernels/01_workgroup_reduce.cl"})
        CHECK_MESSAGE(fs::exists(root.path / "source" / file), file);
    CHECK_FALSE(fs::exists(root.path / "source/solutions"));
    // No path of the solutions, nor of the fixtures (right kernels, patches whose context lines
    // are the solutions' code), nor of anything else left_out lists.
    const auto names = synclab::run_process(
        {"/usr/bin/env", "python3", "-c",
         "import sys, zipfile\nprint('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))", zip},
        {}, limits);
    REQUIRE(names.exit_code == 0);
    CHECK(contains(names.out, "kernels/01_workgroup_reduce.cl\n"));
    std::vector<std::string> banned = left_out();
    CHECK(std::find(banned.begin(), banned.end(), "solutions/") != banned.end());
    banned.push_back("solutions/");
    banned.push_back("tests/fixtures/");
    std::string leaked;
    std::istringstream listed(names.out);
    for (std::string name; std::getline(listed, name);)
        for (const auto &prefix : banned)
            if (name.rfind(prefix, 0) == 0) leaked += name + "\n";
    CHECK_MESSAGE(leaked.empty(), "in the zip:\n" << leaked.substr(0, 2000));
    // What is left configures the labs and the grader, as setup.sh does (without tests).
    const auto configured = synclab::run_process(
        {"/usr/bin/env", "cmake", "-S", root / "source", "-B", root / "source-build", "-DBUILD_TESTING=OFF"}, {},
        limits);
    CAPTURE(configured.err);
    CHECK(configured.exit_code == 0);
    fs::create_directories(root.path / "submission/upload");
    fs::copy_file(test::source("solutions/01_workgroup_reduce.cl"),
                  root.path / "submission/upload/01_workgroup_reduce.cl");
    const std::map<std::string, std::string> env{{"AUTOGRADER_ROOT", root.path.string()},
                                                 {"SYNCLAB_BUILD", build_dir()},
                                                 {"SYNCLAB_GRADE_OPTIONS", ""},
                                                 {synclab::protocol::kKernels, ""}};
    const auto r = synclab::run_process({root / "source/run_autograder"}, env, limits);
    CAPTURE(r.out);
    CHECK(r.exit_code == 0);
    CHECK(contains(r.out, "x 1 lab(s)"));  // --labs 01 from grade-options
    const auto f = checked(schema_of(kGradescope), root / "results/results.json");
    if (f) CHECK(value(*f, "score") == "1");
    // The zip's visibility, and the log's default, reach the results through grade-options.
    if (f) CHECK(value(*f, "visibility") == "after_published");
    if (f) CHECK(value(*f, "stdout_visibility") == "hidden");
}

TEST_CASE("the platforms' schemas refuse what the platforms would not read") {
    TempDir dir;
    struct Doc {
        const Platform &platform;
        std::string json;
        bool valid;
    };
    const std::vector<Doc> docs{
        {kGradescope, R"({"score": 1, "tests": [{"name": "a", "score": 1, "max_score": 1, "status": "passed"}]})", true},
        {kGradescope, R"({"tests": [{"name": "a", "score": 0}]})", true},
        {kGradescope, R"({"score": "1"})", false},
        {kGradescope, R"({"tests": [{"name": "a"}]})", false},  // no score anywhere
        {kGradescope, R"({"score": 1, "tests": [{"name": "a", "status": "ok"}]})", false},
        {kGradescope, R"({"score": 1, "output_fromat": "text"})", false},
        {kGradescope, "{\"score\": 1, \"output\": \"\xff\"}", false},  // not UTF-8
        {kPrairieLearn, R"({"gradable": true, "score": 0.5, "tests": [{"name": "a", "points": 1, "max_points": 2}]})", true},
        {kPrairieLearn, R"({"gradable": false, "message": "why", "format_errors": ["why"]})", true},
        {kPrairieLearn, R"({"score": 3})", false},
        {kPrairieLearn, R"({"gradable": true, "message": "no score"})", false},
        {kPrairieLearn, R"({"score": 0.5, "tests": [{"points": 1}]})", false},  // a test without a name
    };
    int n = 0;
    for (const Doc &d : docs) {
        const std::string file = dir / ("doc" + std::to_string(++n) + ".json");
        std::ofstream(file) << d.json;
        CAPTURE(d.json);
        checked(schema_of(d.platform), file, d.valid);
    }
}

TEST_CASE("--gradescope and --prairielearn weigh labs by --points, and refuse bad use in one line") {
    TempDir dir;
    // A starter beside a file no lab takes, whose name a JSON writer must escape.
    fs::create_directories(dir.path / "starter");
    fs::copy_file(test::source("kernels/01_workgroup_reduce.cl"),
                  dir.path / "starter/01_workgroup_reduce.cl");
    std::ofstream(dir.path / "starter/lab\"1\xff\xed\xa0\x80\xc0\x80.cl") << "kernel void k() {}\n";
    for (const std::string &folder : {test::source("solutions"), dir / "starter"}) {
        const bool good = folder == test::source("solutions");
        const auto r = run_grader({"--kernels", folder, "--labs", "01", "--quick", "--points", "1=3",
                                   "--csv", dir / "g.csv", "--junit", dir / "junit", "--restart",
                                   "--gradescope", dir / "gs.json", "--prairielearn", dir / "pl.json"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == (good ? 0 : 1));
        const auto gs_file = checked(schema_of(kGradescope), dir / "gs.json");
        const auto pl_file = checked(schema_of(kPrairieLearn), dir / "pl.json");
        if (!gs_file || !pl_file) return;
        const Flat &gs = *gs_file, &pl = *pl_file;
        CHECK(value(gs, "score") == (good ? "3" : "0"));
        CHECK(value(gs, "tests.0.max_score") == "3");
        CHECK(value(pl, "score") == (good ? "1" : "0"));
        CHECK(value(pl, "tests.0.max_points") == "3");
        CHECK(contains(value(gs, "output"), "named as no lab") == !good);
    }
    const std::vector<std::pair<std::vector<std::string>, std::string>> bad{
        {{"--class", test::source("tests/fixtures/submissions"), "--gradescope", dir / "x.json"}, "--kernels"},
        {{"--kernels", test::source("solutions"), "--points", "42=3"}, "does not grade"},
        {{"--kernels", test::source("solutions"), "--points", "01=x"}, "LAB=POINTS"},
        {{"--kernels", test::source("solutions"), "--prairielearn", ""}, "is empty"},
        {{"--kernels", dir / "starter", "--gradescope", dir / "starter/r.json"}, "inside the submission"},
    };
    for (const auto &[args, says] : bad) {
        std::vector<std::string> all = args;
        all.insert(all.end(), {"--csv", dir / "bad.csv", "--junit", dir / "junit"});
        const auto r = run_grader(all, 60);
        CAPTURE(r.err);
        CHECK(r.exit_code == 2);
        CHECK(test::line_count(r.err) == 1);
        CHECK(contains(r.err, says));
    }
    CHECK_FALSE(fs::exists(dir / "starter/r.json"));
}

TEST_CASE("a grader killed half-way leaves valid platform results that say grading did not finish") {
    TempDir dir;
    const std::string gs = dir / "gs.json", pl = dir / "pl.json", log = dir / "log", tmp = dir / "tmp";
    fs::create_directories(tmp);
    // The grader's private folder is in this test's TMPDIR, so its lab child can be found.
    const pid_t pid = spawn_logged({test::lab(kGrader), "--kernels", test::fixture("infinite_loop"),
                                    "--labs", "01", "--quick", "--timeout", "60", "--csv", dir / "g.csv",
                                    "--junit", dir / "junit", "--gradescope", gs, "--prairielearn", pl},
                                   log, {{synclab::protocol::kKernels, ""}, {"TMPDIR", tmp}});
    // Killed while the lab runs (its endless kernel holds it there until --timeout 60).
    const bool running = test::wait_until([&] { return lab_running(tmp); }, 120, "the lab child runs");
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    CAPTURE(read_file(log));
    REQUIRE(running);
    const auto gs_file = checked(schema_of(kGradescope), gs);
    const auto pl_file = checked(schema_of(kPrairieLearn), pl);
    if (!gs_file || !pl_file) return;
    CHECK(value(*gs_file, "score") == "0");
    CHECK(contains(value(*gs_file, "output"), "grading did not finish"));
    CHECK(contains(value(*gs_file, "tests.0.output"), "not graded"));
    CHECK(value(*pl_file, "gradable") == "false");
    CHECK(contains(value(*pl_file, "message"), "grading did not finish"));
}

TEST_CASE("a time budget that runs out keeps every finished lab's points and names the lab that was running") {
    // Lab 01 right, lab 02 never ends, graded at once (-j 2, a process each). SIGALRM is the
    // budget running out (--budget arms it): sent once lab 01's row is written, while lab 02 runs,
    // the test knows which lab runs without timing the grader. Its twin: lab 02 right, no signal.
    for (const bool stopped : {true, false}) {
        CAPTURE(stopped);
        TempDir dir;
        const fs::path kernels = dir.path / "anna";
        fs::create_directories(kernels);
        fs::copy_file(test::source("solutions/01_workgroup_reduce.cl"), kernels / "01_workgroup_reduce.cl");
        if (stopped) lab02_that_never_ends(kernels);
        else fs::copy_file(test::source("solutions/02_host_final_sum.cl"), kernels / "02_host_final_sum.cl");
        const std::string gs = dir / "gs.json", pl = dir / "pl.json", log = dir / "log";
        const pid_t pid = spawn_logged({test::lab(kGrader), "--kernels", kernels.string(), "--labs", "01,02",
                                        "--quick", "-j", "2", "--timeout", "300", "--csv", dir / "g.csv",
                                        "--junit", dir / "junit", "--gradescope", gs, "--prairielearn", pl},
                                       log, {{synclab::protocol::kKernels, ""}});
        if (stopped) {
            // The gradebook's row is written and synced as soon as lab 01 is graded.
            const std::string csv = dir / "g.csv";
            const bool graded = test::wait_until([&] { return contains(read_file(csv), "anna,01,pass"); },
                                                 120, "lab 01's row is written");
            kill(pid, graded ? SIGALRM : SIGKILL);  // never leave the grader behind
            if (!graded) waitpid(pid, nullptr, 0);
            REQUIRE(graded);
        }
        const int rc = exit_within(pid, 300);
        CAPTURE(read_file(log));
        CHECK(rc == (stopped ? 1 : 0));
        CHECK(contains(read_file(log), "ran out while grading anna lab 02") == stopped);
        const auto gs_file = checked(schema_of(kGradescope), gs);
        const auto pl_file = checked(schema_of(kPrairieLearn), pl);
        if (!gs_file || !pl_file) return;
        const Flat &g = *gs_file, &p = *pl_file;
        CHECK(value(g, "score") == (stopped ? "1" : "2"));
        CHECK(value(g, "tests.0.status") == "passed");
        CHECK(value(g, "tests.1.status") == (stopped ? "failed" : "passed"));
        CHECK(contains(value(g, "output"), "ran out while lab 02 was being graded") == stopped);
        CHECK(contains(value(g, "tests.1.output"), "ran out while this lab was being graded") == stopped);
        CHECK(value(p, "gradable") == "true");  // a grade, the same as Gradescope's
        CHECK(value(p, "score") == (stopped ? "0.5" : "1"));
        CHECK(contains(value(p, "message"), "ran out while lab 02") == stopped);
        CHECK(contains(value(p, "tests.1.message"), "FAIL stopped") == stopped);
        // The gradebook keeps lab 01; lab 02 is left to --resume.
        CHECK(read_gradebook(dir / "g.csv").size() == (stopped ? 1u : 2u));
    }
}

TEST_CASE("a platform's time budget stops the grader itself: a valid grade that names the lab, not a grader failure") {
    // The budget (SYNCLAB_AUTOGRADER_TIMEOUT) is far below the kernel's own --timeout.
    for (const Platform &p : {kGradescope, kPrairieLearn}) {
        CAPTURE(p.name);
        TempDir root;
        fs::create_directories(root.path / p.submission);
        fs::copy_file(test::fixture("infinite_loop") + "/01_workgroup_reduce.cl",
                      root.path / p.submission / "01_workgroup_reduce.cl");
        // The budget, not the kernel's --timeout 300, ends it: the results name the budget.
        const auto f = graded(p, root.path, "--labs 01 --quick --timeout 300",
                              {{"SYNCLAB_AUTOGRADER_TIMEOUT", "6"}});
        if (!f) return;
        const std::string text = all_text(*f);
        CAPTURE(text);
        CHECK(contains(text, "time budget of 6 s ran out"));
        CHECK_FALSE(contains(text, "did not stop itself"));
        CHECK(value(*f, "score") == "0");
        if (p.name == "prairielearn") CHECK(value(*f, "gradable") == "true");
        // Lab 01 was running (or, on a machine slow to start it, not begun): either is named.
        CHECK((contains(text, "FAIL stopped [01_") || contains(text, "ran out before this lab began")));
    }
}

TEST_CASE("Gradescope's visibility is the zip's choice, with defaults, and bad words are refused in one line") {
    TempDir dir;
    for (const bool chosen : {true, false}) {
        std::vector<std::string> args{"--kernels", test::source("solutions"), "--labs", "01", "--quick",
                                      "--csv", dir / "g.csv", "--junit", dir / "junit", "--restart",
                                      "--gradescope", dir / "gs.json"};
        if (chosen)
            args.insert(args.end(), {"--gradescope-visibility", "after_due_date",
                                     "--gradescope-stdout-visibility", "visible"});
        const auto r = run_grader(args);
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        const auto f = checked(schema_of(kGradescope), dir / "gs.json");
        if (!f) return;
        CHECK(value(*f, "visibility") == (chosen ? "after_due_date" : "visible"));
        CHECK(value(*f, "tests.0.visibility") == (chosen ? "after_due_date" : "visible"));
        CHECK(value(*f, "stdout_visibility") == (chosen ? "visible" : "hidden"));
    }
    const std::vector<std::pair<std::vector<std::string>, std::string>> bad{
        {{"--gradescope", dir / "x.json", "--gradescope-visibility", "never"}, "none of visible"},
        {{"--gradescope-stdout-visibility", "hidden"}, "give --gradescope FILE too"},
        {{"--note", "hello"}, "--note"},
        {{"--budget", "0"}, "--budget"},
    };
    for (const auto &[more, says] : bad) {
        std::vector<std::string> args{"--kernels", test::source("solutions"), "--csv", dir / "bad.csv",
                                      "--junit", dir / "junit"};
        args.insert(args.end(), more.begin(), more.end());
        const auto r = run_grader(args, 60);
        CAPTURE(r.err);
        CHECK(r.exit_code == 2);
        CHECK(test::line_count(r.err) == 1);
        CHECK(contains(r.err, says));
    }
    // The zip builder checks its words before it builds anything.
    synclab::ProcessLimits limits;
    limits.timeout_s = 60;
    const auto zip = synclab::run_process({test::source("classroom/gradescope/make_autograder_zip.sh"), "-o",
                                           dir / "x.zip", "--visibility", "soon"}, {}, limits);
    CHECK(zip.exit_code == 2);
    CHECK(test::line_count(zip.err) == 1);
    CHECK(contains(zip.err, "'soon' is none of"));
    CHECK_FALSE(fs::exists(dir / "x.zip"));
}

TEST_CASE("the GitHub Classroom workflows are generated from the labs' declarations, one step a lab") {
    // What is committed is what the generator makes now: a lab added makes the test fail until
    // the workflows are made again.
    for (const auto &[file, mode] : {std::pair{"classroom/workflow.yml", ""},
                                     std::pair{"classroom/workflow-build.yml", "--build"}}) {
        CAPTURE(file);
        const auto made = make_workflow(std::string(mode).empty() ? std::vector<std::string>{}
                                                                  : std::vector<std::string>{mode});
        CAPTURE(made.err);
        REQUIRE(made.exit_code == 0);
        CHECK_MESSAGE(made.out == read_file(test::source(file)),
                      file << " is not what classroom/make_workflow.sh " << mode << " makes: make it again");
        const auto steps = command_steps(made.out);
        CHECK(steps.size() == 10);
        for (const auto &[command, most] : steps) CHECK(most == 1);
    }
    // Its twin: other labs and points give other steps, each its lab's points and the options.
    const auto some = make_workflow({"--image", "ghcr.io/course/grader", "--labs", "01,02", "--points",
                                     "02=3", "--no-stress"});
    CAPTURE(some.err);
    REQUIRE(some.exit_code == 0);
    const auto steps = command_steps(some.out);
    REQUIRE(steps.size() == 2);
    CHECK(steps[0].second == 1);
    CHECK(steps[1].second == 3);
    CHECK(contains(steps[1].first, "--labs 02 "));
    CHECK(contains(steps[1].first, " --no-stress"));
    CHECK_FALSE(contains(steps[1].first, "--points"));
    CHECK(contains(some.out, "image: ghcr.io/course/grader\n"));
    CHECK(contains(some.out, "runners: lab01,lab02\n"));
    CHECK(contains(some.out, "LAB02_RESULTS: \"${{ steps.lab02.outputs.result }}\""));
    for (const auto &[args, says] :
         std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"--labs", "42"}, "cannot be graded here"}, {{"--image", "a b"}, "not an image name"},
             {{"--note", "$(reboot)"}, "would mangle"}}) {
        const auto r = make_workflow(args);
        CAPTURE(r.err);
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, says));
    }
}

TEST_CASE("scripts/publish_image.sh refuses, before any build, a name the registry would refuse") {
    // A registry refuses upper case and a name given its tag only after the whole build and
    // grading (half an hour); the script says so at once. --dry-run stops before building.
    synclab::ProcessLimits limits;
    limits.timeout_s = 60;
    auto publish = [&](std::vector<std::string> args) {
        args.insert(args.begin(), {test::source("scripts/publish_image.sh"), "--dry-run"});
        return synclab::run_process(args, {}, limits);
    };
    for (const auto &[args, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"ghcr.io/My-Course/synclab-grader"}, "is not an image name (lower case"},
             {{"ghcr.io/my-course/synclab-grader:v1"}, "has a tag: give the name alone"},
             {{}, "name the image to push"},
             {{"--base", "debian 12", "ghcr.io/my-course/synclab-grader"}, "--base 'debian 12' is not an image name"},
             {{"--local-registry", "ghcr.io/my-course/synclab-grader"}, "--local-registry takes no NAME"},
             {{"--push"}, "unknown option '--push'"}}) {
        const auto r = publish(args);
        CAPTURE(r.err);
        CHECK(r.exit_code == 2);
        CHECK(test::line_count(r.err) == 1);
        CHECK(contains(r.err, says));
    }
    // Its twins: the names a registry takes go on (here to the dry run's one line).
    for (const auto &args : std::vector<std::vector<std::string>>{
             {"ghcr.io/my-course/synclab-grader"},
             {"--base", "docker.io/library/debian:12@sha256:0123abcd", "127.0.0.1:5000/synclab-grader"},
             {"--local-registry"}}) {
        const auto r = publish(args);
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        CHECK(contains(r.out, "would build on the base pinned by digest"));
    }
}

TEST_CASE("GitHub Classroom: each lab's step, run as written, scores 3 of 10 for 3 labs right" * doctest::test_suite("e2e")) {
    TempDir dir;
    const std::set<std::string> right = three_of_ten(dir.path / "submission", false);
    const auto steps = command_steps(read_file(test::source("classroom/workflow.yml")));
    REQUIRE(steps.size() == 10);
    int score = 0, most = 0;
    for (const auto &[command, max_score] : steps) {
        CAPTURE(command);
        // The grader of this build in place of the image's; --quick -j 2 for the suite's time.
        const std::string image_grader = "/synclab/build/bin/synclab-grade ";
        REQUIRE(command.rfind(image_grader, 0) == 0);
        const std::string line = test::lab(kGrader) + " " + command.substr(image_grader.size()) + " --quick -j 2";
        synclab::ProcessLimits limits;
        limits.timeout_s = 300;
        limits.cwd = dir.path.string();
        const auto r = synclab::run_process({"/bin/sh", "-c", line}, {{synclab::protocol::kKernels, ""}}, limits);
        CAPTURE(r.out);
        const std::string id = command.substr(command.find("--labs ") + 7, 2);
        CHECK(r.exit_code == (right.count(id) ? 0 : 1));
        score += r.exit_code == 0 ? max_score : 0;  // as the command grader scores a step
        most += max_score;
        // Each step keeps its lab's JUnit report, with the reason of a failure.
        const std::string junit = read_file(dir / ("results/lab" + id + "/submission.xml"));
        CHECK(contains(junit, "<failure") == !right.count(id));
    }
    CHECK(score == 3);
    CHECK(most == 10);
}

}  // TEST_SUITE("grade")
