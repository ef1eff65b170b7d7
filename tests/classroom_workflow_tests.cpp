// classroom/make_workflow.sh and the options it is given: its own come first, and nothing that
// would fail every step (an option of its own after the grader's, one each step sets itself, one
// the grader does not know) is ever written into the workflow.
#include <doctest/doctest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "grade_support.hpp"
#include "synclab/protocol.hpp"

namespace fs = std::filesystem;
using namespace gradetest;

namespace {

synclab::ProcessResult make_workflow(std::vector<std::string> args) {
    args.insert(args.begin(), {test::source("classroom/make_workflow.sh"), "--grader", test::lab(kGrader)});
    synclab::ProcessLimits limits;
    limits.timeout_s = 120;
    return synclab::run_process(args, {{synclab::protocol::kKernels, ""}}, limits);
}

// Each grading step's command, in order.
std::vector<std::string> commands(const std::string &workflow) {
    std::vector<std::string> out;
    std::istringstream in(workflow);
    for (std::string line; std::getline(in, line);) {
        const auto text = line.substr(std::min(line.find_first_not_of(' '), line.size()));
        if (text.rfind("command: ", 0) == 0) out.push_back(text.substr(9));
    }
    return out;
}

}  // namespace

TEST_SUITE("grade") {

TEST_CASE("make_workflow.sh refuses options that would go into every step, and writes them in their places") {
    // -o after the grader's options would be written into every step (each failing, every
    // student scoring 0), and so would an option each step sets itself or one the grader does not
    // know: each refused in one line, no file written.
    TempDir dir;
    const std::string yml = dir / "classroom.yml";
    for (const auto &[args, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"--labs", "01", "--no-stress", "-o", yml}, "-o is this script's option"},
             {{"--no-stress", "--image", "ghcr.io/course/grader"}, "--image is this script's option"},
             {{"--no-stress", "--build"}, "--build is this script's option"},
             {{"--csv", "all.csv"}, "--csv is set by each step itself"},
             {{"--junit=reports"}, "--junit is set by each step itself"},
             {{"--no-strees"}, "--no-strees is no option of"}}) {
        CAPTURE(args.back());
        const auto r = make_workflow(args);
        CAPTURE(r.err);
        CHECK(r.exit_code == 2);
        CHECK(test::line_count(r.err) == 1);
        CHECK(contains(r.err, says));
        CHECK_FALSE(fs::exists(yml));
    }
    // Its twin: the same options in their places write the file, the grader's in every step.
    const auto placed = make_workflow({"-o", yml, "--labs", "01", "--no-stress", "--timeout=30", "-j", "2"});
    CAPTURE(placed.err);
    CHECK(placed.exit_code == 0);
    const auto steps = commands(read_file(yml));
    REQUIRE(steps.size() == 1);
    CHECK(contains(steps[0], "--labs 01 --csv results/lab01.csv --junit results/lab01 --no-stress --timeout=30 -j 2"));
    CHECK_FALSE(contains(steps[0], " -o "));
}

}  // TEST_SUITE("grade")
