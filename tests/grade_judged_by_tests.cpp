// What judged a gradebook row (tools/grade/judged_by.hpp): the checks that ran, written in every
// row, JUnit report and platform result; --resume grading again a row judged by less than the run
// (a --quick one, an error); and a lab whose groups meet never passing unjudged (--quick,
// --no-oclgrind, Oclgrind not installed).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "grade/judged_by.hpp"
#include "grade/record_csv.hpp"
#include "grade/record_junit.hpp"
#include "grade_support.hpp"

namespace fs = std::filesystem;
using namespace gradetest;

namespace {

// A lab whose groups meet (07's shape) and one whose groups never do (01's).
grade::Recipe lab(const std::string &id, bool groups_meet) {
    grade::Recipe r;
    r.id = id;
    r.declaration.race_checks = {{"--wg", "16"}};
    if (groups_meet) {
        r.declaration.oclgrind_groups = 4;
        r.declaration.stress_schedules = 2;
    }
    return r;
}

grade::Judging full() {
    grade::Judging j;
    j.race_check = j.oclgrind = j.hbcheck = j.stress = true;
    j.devices = "default";
    j.draw = grade::draw_digest("week 3");
    j.version = "0.1+abc";
    return j;
}

grade::Judging quick() {
    grade::Judging j = full();
    j.quick = true;
    j.race_check = j.stress = false;
    return j;
}

int count(const std::string &text, const std::string &needle) {
    int n = 0;
    for (std::size_t at = 0; (at = text.find(needle, at)) != std::string::npos; ++at) ++n;
    return n;
}

// Lab 07's fenced lock without its release fence (only hbcheck sees it), and the solutions.
fs::path fence_class(const fs::path &dir, bool with_lab01) {
    const fs::path cls = dir / "class";
    fs::create_directories(cls / "bug");
    fs::create_directories(cls / "right");
    fs::copy_file(test::fixture("lock_no_release_07") + "/07_atomics.cl", cls / "bug/07_atomics.cl");
    fs::copy_file(test::source("solutions/07_atomics.cl"), cls / "right/07_atomics.cl");
    if (with_lab01) fs::copy_file(test::source("solutions/01_workgroup_reduce.cl"), cls / "right/01_workgroup_reduce.cl");
    return cls;
}

bool hbcheck_built() {
    return fs::exists(fs::path(test::lab(kGrader)).parent_path().parent_path() / "lib/libsynclab_hbcheck.so");
}

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("a row's judged_by names its checks, a draw key's digest and never the key") {
    const std::string meet = grade::judged_by(lab("07", true), full());
    CHECK(meet == "runs=all;device=default;oclgrind=yes;hbcheck=yes;schedules=seeded;stress=covered;draw=" +
                      grade::draw_digest("week 3") + ";grader=0.1+abc");
    CHECK(grade::draw_digest("week 3").size() == 12);
    CHECK(grade::draw_digest("week 3") != grade::draw_digest("week 4"));
    CHECK_FALSE(contains(meet, "week"));
    // A lab whose groups never meet: no hbcheck, no stress, whatever the run has.
    CHECK(contains(grade::judged_by(lab("01", false), full()), ";hbcheck=no;schedules=none;stress=none;"));
    CHECK(contains(grade::judged_by(lab("07", true), quick()), "runs=first;device=default;oclgrind=no;hbcheck=no;schedules=none;stress=off;"));
    grade::Judging no_oclgrind = full();
    no_oclgrind.race_check = false;
    CHECK(contains(grade::judged_by(lab("07", true), no_oclgrind), ";oclgrind=no;hbcheck=no;schedules=none;stress=run:2;"));
    grade::Judging shard = full();
    shard.shard_index = 2;
    shard.shard_count = 3;
    shard.class_size = 40;
    CHECK(contains(grade::judged_by(lab("01", false), shard), ";shard=2/3;class=40"));
    CHECK(grade::judged_fields(meet).at("stress") == "covered");
}

TEST_CASE("--resume's comparison: a row judged by weaker or other checks is graded again, one as strong is kept") {
    const grade::Recipe l07 = lab("07", true);
    const std::string now = grade::judged_by(l07, full()), was_quick = grade::judged_by(l07, quick());
    CHECK(grade::weaker_checks(now, now).empty());
    const std::string why = grade::weaker_checks(was_quick, now);
    CHECK(contains(why, "runs first (now all)"));
    CHECK(contains(why, "oclgrind no (now yes)"));
    CHECK(contains(why, "hbcheck no (now yes)"));
    CHECK(grade::weaker_checks(now, was_quick).empty());  // a full row kept by a --quick run
    grade::Judging other = full();
    other.draw = grade::draw_digest("week 4");
    CHECK(contains(grade::weaker_checks(now, grade::judged_by(l07, other)), "draw key digest"));
    other = full();
    other.devices = "nvidia";
    CHECK(contains(grade::weaker_checks(now, grade::judged_by(l07, other)), "device default (now nvidia)"));
    other = full();
    other.version = "0.2";  // another grader: not a check
    CHECK(grade::weaker_checks(now, grade::judged_by(l07, other)).empty());
    other.stress_schedules = 8;  // --stress 8 asks POCL's schedules the seeded ones covered
    CHECK(contains(grade::weaker_checks(now, grade::judged_by(l07, other)), "stress covered (now run:8)"));
    CHECK(grade::weaker_checks(grade::judged_by(l07, other), now).empty());
    CHECK(contains(grade::weaker_checks("", now), "does not say what judged it"));
    // --merge compares all but the shard: a --quick shard beside a full one differs.
    grade::Judging shard = full();
    shard.shard_count = 3;
    shard.shard_index = 1;
    CHECK(grade::settings_difference(now, grade::judged_by(l07, shard)).empty());
    CHECK(contains(grade::settings_difference(now, was_quick), "runs all against first"));
    CHECK(contains(grade::settings_difference(now, grade::judged_by(l07, other)), "grader 0.1+abc against 0.2"));
}

TEST_CASE("a pass of a lab whose groups meet is an error where its fences were not judged, and stays a pass where they were") {
    for (const bool meet : {true, false})
        for (const bool judged : {true, false}) {
            CAPTURE(meet);
            CAPTURE(judged);
            grade::Result r;
            r.grade = grade::Grade::Pass;
            r.kind = grade::Kind::Pass;
            r.reason = "1 run(s) right; not race-checked (--quick)";
            grade::judge_row(r, lab("07", meet), judged ? full() : quick());
            CHECK(r.passed() == (judged || !meet));
            CHECK(r.judged_by == grade::judged_by(lab("07", meet), judged ? full() : quick()));
            if (!r.passed()) {
                CHECK(r.kind == grade::Kind::Error);
                CHECK(r.reason == "not judged: --quick does not check the fences between work-groups; "
                                  "run the full grading; 1 run(s) right; not race-checked (--quick)");
            }
        }
    // A failure stays what it is: the dynamic runs judged it.
    grade::Result wrong;
    wrong.grade = grade::Grade::Fail;
    wrong.kind = grade::Kind::WrongAnswer;
    grade::judge_row(wrong, lab("07", true), quick());
    CHECK(wrong.kind == grade::Kind::WrongAnswer);
}

TEST_CASE("the gradebook's judged_by column round-trips, and an older header's rows hold none") {
    grade::Result r;
    r.student = "alice";
    r.lab = "07";
    r.grade = grade::Grade::Pass;
    r.kind = grade::Kind::Pass;
    r.files_sha256 = std::string(64, 'a');
    r.judged_by = grade::judged_by(lab("07", true), full());
    const auto rows = grade::parse_gradebook(std::string(grade::kGradebookHeader) + "\n" + grade::csv_row(r));
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].judged_by == r.judged_by);
    CHECK(std::string(grade::kGradebookHeader).rfind(",files_sha256,judged_by") != std::string::npos);
    const auto old = grade::parse_gradebook(
        "student,lab,grade,kind,reason,seconds,points,max_points,files_sha256\nalice,07,pass,pass,,1.00,1,1," +
        std::string(64, 'a') + "\n");
    REQUIRE(old.size() == 1);
    CHECK(old[0].files_sha256 == std::string(64, 'a'));
    CHECK(old[0].judged_by.empty());
}

}  // TEST_SUITE("unit")

TEST_SUITE("grade") {

TEST_CASE("--resume grades again rows judged by --quick: a lab 07 fence bug then fails as memory-model, and a full row is kept") {
    if (!test::have_oclgrind() || !hbcheck_built()) {
        MESSAGE("Oclgrind or hbcheck missing here: a full grading of lab 07 is refused");
        return;
    }
    TempDir dir;
    const fs::path cls = fence_class(dir.path, true);
    const std::string csv = dir / "g.csv";
    auto grade_class = [&](std::vector<std::string> more) {
        std::vector<std::string> args{"--class", cls.string(), "--labs", "01,07", "--no-stress", "-j", "2",
                                      "--draw-key", "week 3", "--csv", csv, "--junit", dir / "junit"};
        args.insert(args.end(), more.begin(), more.end());
        return run_grader(args, 400);
    };
    // --quick: no row of lab 07 passes, the fence bug's neither; lab 01 passes, judged by less.
    const auto first = grade_class({"--quick"});
    CAPTURE(first.out);
    CHECK(first.exit_code == 1);
    auto rows = read_gradebook(csv);
    REQUIRE(rows.size() == 4);  // bug's lab 01 is missing
    for (const Row &r : rows) {
        CAPTURE(r.student + " " + r.lab);
        CHECK(contains(r.judged_by, "runs=first;"));
        if (r.lab == "07") {
            CHECK(r.kind == "error");
            CHECK(contains(r.reason, "not judged: --quick does not check the fences between work-groups"));
        }
    }
    CHECK(contains(read_file(dir / "junit/right.xml"), "<property name=\"judged_by\" value=\"runs=first;"));

    // The full grading resumed: every row judged by less is graded again, and says why.
    const auto full_run = grade_class({"--resume"});
    CAPTURE(full_run.out);
    CHECK(full_run.exit_code == 1);
    CHECK(contains(full_run.out, "bug: graded again: lab 07: its row is an error"));
    CHECK(contains(full_run.out, "right: graded again: lab 01: judged by other or weaker checks than "
                                 "this run's: runs first (now all), oclgrind no (now yes)"));
    CHECK(contains(full_run.out, "lab 07: its row is an error"));
    std::map<std::string, Row> cell;
    for (const Row &r : read_gradebook(csv)) cell[r.student + " " + r.lab] = r;
    CHECK(cell["bug 07"].kind == "memory-model");
    CHECK(cell["right 07"].kind == "pass");
    CHECK(cell["right 01"].kind == "pass");
    CHECK(contains(cell["right 07"].judged_by, "runs=all;device=default;oclgrind=yes;hbcheck=yes;schedules=seeded;stress=off;"));

    // Its twin: the same full grading keeps every row, and a --quick one keeps them too (judged by more).
    for (const std::vector<std::string> &more : {std::vector<std::string>{"--resume"},
                                                 std::vector<std::string>{"--resume", "--quick"}}) {
        const auto again = grade_class(more);
        CAPTURE(again.out);
        CHECK(again.exit_code == 1);
        CHECK(count(again.out, "(kept from the gradebook)") == 4);
        CHECK_FALSE(contains(again.out, "graded again"));
    }
}

TEST_CASE("where Oclgrind is not installed a lab whose groups meet is refused, or with --no-oclgrind never passes") {
    // The system's drivers alone: no Oclgrind among them (the grader adds it only when the user
    // names no folder of drivers).
    TempDir dir;
    const fs::path drivers = dir.path / "vendors";
    fs::create_directories(drivers);
    std::error_code ec;
    for (const auto &e : fs::directory_iterator("/etc/OpenCL/vendors", ec))
        if (e.path().filename().string().find("pocl") != std::string::npos)
            fs::copy_file(e.path(), drivers / e.path().filename());
    if (fs::is_empty(drivers)) {
        MESSAGE("no POCL driver file in /etc/OpenCL/vendors: not tested");
        return;
    }
    const std::map<std::string, std::string> env{{"OCL_ICD_VENDORS", drivers.string()}};
    const fs::path cls = fence_class(dir.path, false);
    auto grade_class = [&](const std::string &labs, const std::string &csv, std::vector<std::string> more) {
        std::vector<std::string> args{"--class", cls.string(), "--labs", labs, "--no-stress", "-j", "2",
                                      "--csv", dir / csv, "--junit", dir / "junit"};
        args.insert(args.end(), more.begin(), more.end());
        return run_grader(args, 400, env);
    };
    const auto refused = grade_class("07", "refused.csv", {});
    CAPTURE(refused.out);
    CAPTURE(refused.err);
    CHECK(refused.exit_code == 2);
    CHECK(test::line_count(refused.err) == 1);
    CHECK(contains(refused.err, "lab 07 needs Oclgrind"));
    CHECK(contains(refused.err, "--no-oclgrind"));
    CHECK_FALSE(fs::exists(dir / "refused.csv"));
    // Its twin: lab 01, whose groups never meet, grades as before, its rows saying what was not checked.
    const auto lab01 = run_grader({"--kernels", test::source("solutions"), "--labs", "01", "--csv",
                                   dir / "lab01.csv"}, 300, env);
    CAPTURE(lab01.out);
    CHECK(lab01.exit_code == 0);
    CHECK(contains(read_gradebook(dir / "lab01.csv").at(0).reason, "not race-checked: Oclgrind is not installed"));
    CHECK(contains(read_gradebook(dir / "lab01.csv").at(0).judged_by, ";oclgrind=no;"));

    // --no-oclgrind: graded, and neither the fence bug nor the solution passes.
    const auto chosen = grade_class("07", "chosen.csv", {"--no-oclgrind"});
    CAPTURE(chosen.out);
    CHECK(chosen.exit_code == 1);
    const auto rows = read_gradebook(dir / "chosen.csv");
    REQUIRE(rows.size() == 2);
    for (const Row &r : rows) {
        CAPTURE(r.student);
        CHECK(r.kind == "error");
        CHECK(contains(r.reason, "not judged: --no-oclgrind does not check the fences between work-groups"));
    }
}

TEST_CASE("a platform's results and the JUnit report carry the gradebook's judged_by, within each schema") {
    TempDir dir;
    const std::string gs = dir / "gs.json", pl = dir / "pl.json";
    const auto r = run_grader({"--kernels", test::source("solutions"), "--labs", "01", "--quick", "--csv",
                               dir / "g.csv", "--junit", dir / "junit", "--gradescope", gs, "--prairielearn", pl});
    CAPTURE(r.out);
    CHECK(r.exit_code == 0);
    const std::string judged = read_gradebook(dir / "g.csv").at(0).judged_by;
    CHECK(contains(judged, "runs=first;device=default;oclgrind=no;"));
    CHECK(contains(judged, ";grader=" + std::string(grade::grader_version())));
    CHECK(contains(read_file(gs), "\"extra_data\": {\"judged_by\": \"" + judged + "\"}"));
    CHECK(contains(read_file(pl), "\"judged_by\": \"" + judged + "\""));
    CHECK(contains(read_file(dir / "junit/solutions.xml"), "<property name=\"judged_by\" value=\"" + judged + "\"/>"));
    synclab::ProcessLimits limits;
    limits.timeout_s = 60;
    for (const auto &[schema, file] : {std::pair{"classroom/gradescope/results.schema.json", gs},
                                       std::pair{"classroom/prairielearn/results.schema.json", pl},
                                       std::pair{"--junit", dir / "junit/solutions.xml"}}) {
        CAPTURE(file);
        const std::string s = std::string(schema) == "--junit" ? schema : test::source(schema);
        const auto p = synclab::run_process({test::source("tests/check_results.py"), s, file}, {}, limits);
        CAPTURE(p.err);
        if (p.exit_code == 2) continue;  // python3-jsonschema not installed
        CHECK(p.exit_code == 0);
    }
}

}  // TEST_SUITE("grade")
