// The grading platforms (classroom/): Gradescope's run_autograder and PrairieLearn's entry point,
// each run in a fake root with its results checked against the platform's schema; the GitHub
// Classroom workflow's command and its JUnit report; synclab-grade's platform options.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
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
#include <thread>
#include <vector>

#include "grade_support.hpp"

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
    env.emplace("SYNCLAB_KERNELS", "");
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

}  // namespace

TEST_SUITE("grade") {

TEST_CASE("Gradescope and PrairieLearn: 3 of 10 labs right scores 3 of 10, each lab's reason in its test") {
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

TEST_CASE("Gradescope and PrairieLearn: whatever goes wrong, a valid results file says why") {
    TempDir fakes;
    auto fake_grader = [&](const std::string &name, const std::string &body) {
        fs::create_directories(fakes.path / name / "bin");
        const fs::path exe = fakes.path / name / "bin" / kGrader;
        std::ofstream(exe) << "#!/bin/sh\n" << body << "\n";
        fs::permissions(exe, fs::perms::owner_all);
        return (fakes.path / name).string();
    };
    const std::string crashes = fake_grader("crashes", "kill -SEGV $$");
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
         "", {}, true, true, {"pass [" + file}},
        {"the starter, above the right file", {{starter, file}, {solution, "my lab/" + file}}, "", {},
         false, true, {"FAIL wrong-answer"}},
        {"no file", {}, "", {}, false, true, {"missing", file + " not handed in"}},
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
        {test::source("classroom/gradescope/make_autograder_zip.sh"), "-o", zip, "--labs", "01", "--quick"},
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
                                                 {"SYNCLAB_KERNELS", ""}};
    const auto r = synclab::run_process({root / "source/run_autograder"}, env, limits);
    CAPTURE(r.out);
    CHECK(r.exit_code == 0);
    CHECK(contains(r.out, "x 1 lab(s)"));  // --labs 01 from grade-options
    const auto f = checked(schema_of(kGradescope), root / "results/results.json");
    if (f) CHECK(value(*f, "score") == "1");
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
    const std::string gs = dir / "gs.json", pl = dir / "pl.json", log = dir / "log";
    const pid_t pid = spawn_logged({test::lab(kGrader), "--kernels", test::fixture("infinite_loop"),
                                    "--labs", "01", "--quick", "--timeout", "60", "--csv", dir / "g.csv",
                                    "--junit", dir / "junit", "--gradescope", gs, "--prairielearn", pl},
                                   log, {{"SYNCLAB_KERNELS", ""}});
    for (int i = 0; i < 600 && !contains(read_file(log), "grading 1 submission"); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the lab is running
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    CAPTURE(read_file(log));
    const auto gs_file = checked(schema_of(kGradescope), gs);
    const auto pl_file = checked(schema_of(kPrairieLearn), pl);
    if (!gs_file || !pl_file) return;
    CHECK(value(*gs_file, "score") == "0");
    CHECK(contains(value(*gs_file, "output"), "grading did not finish"));
    CHECK(contains(value(*gs_file, "tests.0.output"), "not graded"));
    CHECK(value(*pl_file, "gradable") == "false");
    CHECK(contains(value(*pl_file, "message"), "grading did not finish"));
}

TEST_CASE("the GitHub Classroom workflow's grading command runs as written and its JUnit report holds each lab's reason") {
    const std::string workflow = read_file(test::source("classroom/workflow.yml"));
    const auto at = workflow.find("command: synclab/build/bin/synclab-grade ");
    REQUIRE(at != std::string::npos);
    std::string command = workflow.substr(at + 9, workflow.find('\n', at) - at - 9);
    // Its paths, as they lie here: the grader in this build, and 3 of 10 labs right as the
    // student's repository.
    TempDir dir;
    const std::set<std::string> right = three_of_ten(dir.path / "repository", false);
    std::vector<std::string> args;
    std::stringstream words(command);
    for (std::string w; words >> w;) args.push_back(w);
    REQUIRE(args.front() == "synclab/build/bin/synclab-grade");
    args.erase(args.begin());
    for (auto &a : args) {
        if (a == "submission") a = dir / "repository";
        if (a == "gradebook.csv") a = dir / "gradebook.csv";
        if (a == "junit") a = dir / "junit";
    }
    args.insert(args.end(), {"--quick", "-j", "2"});
    const auto r = run_grader(args, 300);
    CAPTURE(r.out);
    CAPTURE(r.err);
    CHECK(r.exit_code == 1);  // seven labs fail
    CHECK(read_gradebook(dir / "gradebook.csv").size() == 10);
    const auto checked_file = checked("--junit", dir / "junit/repository.xml");
    REQUIRE(checked_file);
    const Flat &f = *checked_file;
    REQUIRE(f.count("testsuite.testcase.length"));
    CHECK(value(f, "testsuite.tests") == "10");
    CHECK(value(f, "testsuite.failures") == "7");
    for (int i = 0; i < 10; ++i) {
        const std::string at_case = "testsuite.testcase." + std::to_string(i) + ".";
        const std::string name = value(f, at_case + "name");
        REQUIRE(name.size() >= 6);  // "lab 01"
        const std::string id = name.substr(4, 2);
        CAPTURE(id);
        CHECK(f.count(at_case + "failure.message") == (right.count(id) ? 0u : 1u));
        if (!right.count(id)) CHECK(value(f, at_case + "failure.message").size() > 10);
    }
}

}  // TEST_SUITE("grade")
