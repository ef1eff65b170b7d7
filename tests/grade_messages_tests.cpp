// What a student reads: every finding kept whole in the records (the gradebook, JUnit, a
// platform's results), whose end is the fix. Each beside a right kernel that gets none.
#include <doctest/doctest.h>

#include "grade_support.hpp"

using namespace gradetest;

TEST_SUITE("grade") {

TEST_CASE("a finding's whole text, its fix at the end, is in the gradebook, JUnit and the results") {
    // Lab 07's starter: its lock is never freed, and the deadlock's hint ends in its longest
    // clause (once cut at 240 characters in every record).
    TempDir dir;
    const fs::path starter = dir.path / "starter", solution = dir.path / "solution";
    fs::create_directories(starter);
    fs::create_directories(solution);
    fs::copy(test::source("kernels/07_atomics.cl"), starter / "07_atomics.cl");
    fs::copy(test::source("solutions/07_atomics.cl"), solution / "07_atomics.cl");
    const std::string hint = "(a count reset after the release loses an early arrival)";
    for (const fs::path &who : {starter, solution}) {
        CAPTURE(who);
        const std::string out = (dir.path / ("out-" + who.filename().string())).string();
        const auto r = run_grader({"--kernels", who.string(), "--labs", "07", "--draw-key", "k",
                                   "--csv", out + ".csv", "--junit", out + "-junit", "--gradescope",
                                   out + ".json"}, 590);
        CAPTURE(r.out);
        REQUIRE(r.exited);
        const auto rows = read_gradebook(out + ".csv");
        REQUIRE(rows.size() == 1);
        std::string junit;
        for (const auto &e : fs::directory_iterator(out + "-junit")) junit += read_file(e.path());
        const std::string results = read_file(out + ".json");
        if (who == starter) {
            CHECK(r.exit_code == 1);
            CHECK(contains(rows[0].reason, "deadlock in kernel lockFence"));
            CHECK(contains(rows[0].reason, hint));
            CHECK_FALSE(contains(rows[0].reason, "more characters"));
            CHECK(contains(junit, hint));
            CHECK(contains(results, hint));
        } else {
            CHECK(r.exit_code == 0);
            CHECK(rows[0].kind == "pass");
            CHECK_FALSE(contains(junit, "deadlock"));
            CHECK_FALSE(contains(results, "deadlock"));
        }
    }
}

}  // TEST_SUITE
