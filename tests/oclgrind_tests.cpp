// Deterministic detection: the labs run on Oclgrind with data-race detection, and its log is
// the verdict. Catches what a CPU device computes right by luck (a missing first barrier, a
// barrier inside an if).
#include <doctest/doctest.h>

#include <algorithm>

#include "support.hpp"

namespace {

const std::string kLab = "lab01_workgroup_reduce";

test::OclgrindRun check(const std::string &folder, const std::string &variant) {
    auto r = test::run_on_oclgrind(kLab, {"--kernels", folder, "--variant", variant, "--wg", "64"});
    CAPTURE(r.process.err);
    REQUIRE_FALSE(r.process.timed_out);
    REQUIRE(r.process.exited);
    REQUIRE(r.process.exit_code != 2);  // it built and ran
    for (const auto &f : r.findings) MESSAGE(f.friendly());
    return r;
}

bool has(const test::OclgrindRun &r, const std::string &kind, const std::string &kernel) {
    for (const auto &f : r.findings)
        if (f.kind == kind && f.kernel == kernel) return true;
    return false;
}

}  // namespace

TEST_SUITE("oclgrind") {

TEST_CASE("reduceNoSync is reported with its file and lines and reduceWithSync is clean") {
    if (!test::have_oclgrind()) return;
    const std::string file = test::source("kernels/01_workgroup_reduce.cl");
    const auto racy = check(test::source("kernels"), "nosync");
    REQUIRE(has(racy, "data-race", "reduceNoSync"));
    const int store = test::line_of(file, "scratch[id] = a[i] * b[i];");
    const int add = test::line_of(file, "scratch[id] += scratch[id + stride];");
    bool named_lines = false;
    for (const auto &f : racy.findings)
        if (f.kind == "data-race" && f.file.find("01_workgroup_reduce.cl") != std::string::npos &&
            std::find(f.lines.begin(), f.lines.end(), add) != f.lines.end()) {
            named_lines = true;
            CHECK(f.friendly().find("01_workgroup_reduce.cl:" + std::to_string(add)) !=
                  std::string::npos);
        }
    CHECK(named_lines);
    bool store_named = false;
    for (const auto &f : racy.findings)
        store_named |= std::find(f.lines.begin(), f.lines.end(), store) != f.lines.end();
    CHECK(store_named);

    const auto clean = check(test::source("solutions"), "sync");
    CHECK(clean.findings.empty());
    CHECK(clean.process.exit_code == 0);
}

TEST_CASE("a missing first barrier is reported as a race and with it the kernel is clean") {
    if (!test::have_oclgrind()) return;
    const auto r = check(test::fixture("missing_first_barrier"), "sync");
    REQUIRE(has(r, "data-race", "reduceWithSync"));
    // The race is between the product's store and the loop's first read.
    const std::string file = test::fixture("missing_first_barrier/01_workgroup_reduce.cl");
    const int store = test::line_of(file, "scratch[id] = a[i] * b[i];");
    bool store_named = false;
    for (const auto &f : r.findings)
        store_named |= std::find(f.lines.begin(), f.lines.end(), store) != f.lines.end();
    CHECK(store_named);
    CHECK(check(test::fixture("correct_while_loop"), "sync").findings.empty());
}

TEST_CASE("a barrier inside if (id < stride) is reported as barrier divergence and outside it is clean") {
    if (!test::have_oclgrind()) return;
    const auto r = check(test::fixture("barrier_in_if"), "sync");
    REQUIRE(has(r, "barrier-divergence", "reduceWithSync"));
    const int line = test::line_of(test::fixture("barrier_in_if/01_workgroup_reduce.cl"),
                                   "barrier(CLK_LOCAL_MEM_FENCE);", 2);
    bool at_line = false;
    for (const auto &f : r.findings) at_line |= f.kind == "barrier-divergence" && f.line == line;
    CHECK(at_line);
    CHECK(check(test::source("solutions"), "sync").findings.empty());
}

TEST_CASE("no barriers at all is reported and the starter's reduceWithSync is too") {
    if (!test::have_oclgrind()) return;
    CHECK(has(check(test::fixture("no_barriers"), "sync"), "data-race", "reduceWithSync"));
    CHECK(has(check(test::source("kernels"), "sync"), "data-race", "reduceWithSync"));
    CHECK(check(test::source("solutions"), "sync").findings.empty());
}

TEST_CASE("on --device oclgrind the lab itself tells each problem in one line") {
    if (!test::have_oclgrind()) return;
    auto r = test::run_lab(kLab, {"--device", "oclgrind", "--wg", "64", "--variant", "nosync"},
                           {{"OCLGRIND_LOG", ""}});
    CAPTURE(r.out);
    CHECK(r.exit_code == 1);
    const int add = test::line_of(test::source("kernels/01_workgroup_reduce.cl"),
                                  "scratch[id] += scratch[id + stride];");
    CHECK(r.out.find("data race in kernel reduceNoSync: work-item") != std::string::npos);
    CHECK(r.out.find("01_workgroup_reduce.cl:" + std::to_string(add)) != std::string::npos);
    r = test::run_lab(kLab, {"--device", "oclgrind", "--wg", "64", "--variant", "sync", "--kernels",
                             test::source("solutions")},
                      {{"OCLGRIND_LOG", ""}});
    CAPTURE(r.out);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("Oclgrind: no data race") != std::string::npos);
}

}  // TEST_SUITE
