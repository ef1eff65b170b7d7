// Every repeat command a grading prints pastes in any folder: the lab and the student's own
// folder by absolute path, never the grader's temporary copy of files it gathered from folders
// below the student's.
#include <doctest/doctest.h>

#include "grade_support.hpp"
#include "synclab/process.hpp"

using namespace gradetest;

TEST_SUITE("grade") {

TEST_CASE("every repeat command of a class, run from another folder, fails again, and a right lab prints none") {
    TempDir dir;
    const fs::path klass = dir.path / "class";
    // Files in a folder below the student's (gathered by the grader), and files beside it.
    fs::create_directories(klass / "nested" / "work" / "lab");
    fs::copy(test::source("kernels/01_workgroup_reduce.cl"), klass / "nested" / "work" / "lab");
    fs::copy(test::source("solutions/02_host_final_sum.cl"), klass / "nested");
    fs::create_directories(klass / "flat");
    fs::copy(test::source("kernels/03_multikernel_reduce.cl"), klass / "flat");
    fs::copy(test::fixture("no_barriers") + "/01_workgroup_reduce.cl", klass / "flat");
    const std::string csv = dir / "g.csv";
    const auto r = run_grader({"--class", klass.string(), "--labs", "01,02,03", "--draw-key", "k",
                               "--csv", csv}, 590);
    CAPTURE(r.out);
    REQUIRE(r.exited);
    int repeated = 0;
    for (const Row &row : read_gradebook(csv)) {
        CAPTURE(row.student);
        CAPTURE(row.lab);
        CAPTURE(row.reason);
        const std::size_t at = row.reason.find("(repeat it: ");
        if (row.grade == "pass" || row.kind == "missing") {
            CHECK(at == std::string::npos);
            continue;
        }
        REQUIRE(at != std::string::npos);
        const std::size_t end = row.reason.find(')', at);
        const std::string command = row.reason.substr(at + 12, end - at - 12);
        CHECK_FALSE(contains(command, "job-"));  // never the grader's copy
        if (row.student == "nested") CHECK(contains(command, (klass / "nested" / "work" / "lab").string()));
        synclab::ProcessLimits elsewhere;
        elsewhere.cwd = "/";
        elsewhere.timeout_s = 300;
        const auto again = synclab::run_process({"/bin/sh", "-c", command}, {}, elsewhere);
        CAPTURE(again.out);
        CAPTURE(again.err);
        CHECK(again.exit_code == 1);
        ++repeated;
    }
    CHECK(repeated == 3);  // nested's lab 01, flat's labs 01 and 03
}

}  // TEST_SUITE
