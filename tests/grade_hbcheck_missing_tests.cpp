// The same grade wherever the grader runs: where hbcheck, the fence check between work-groups, is
// missing (SYNCLAB_HBCHECK naming an empty folder's plugin, or a file Oclgrind cannot load), a
// lab whose groups meet is never a pass: the grading is refused, or with --no-hbcheck the row
// fails. With hbcheck the same class grades as usual, and --resume grades the failed rows again.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "grade_support.hpp"
#include "synclab/protocol.hpp"

namespace fs = std::filesystem;
using namespace gradetest;

namespace {

// A class of two for lab 07: "bug", the fenced lock without its release fence (a memory-model
// race only hbcheck sees), and "right", the solution.
fs::path fence_class(const fs::path &dir) {
    const fs::path cls = dir / "class";
    fs::create_directories(cls / "bug");
    fs::create_directories(cls / "right");
    fs::copy_file(test::fixture("lock_no_release_07") + "/07_atomics.cl", cls / "bug/07_atomics.cl");
    fs::copy_file(test::source("solutions/07_atomics.cl"), cls / "right/07_atomics.cl");
    return cls;
}

// Grades the class's lab 07 (its race check on, no stress schedules) with `env` and `more`.
synclab::ProcessResult grade_class(const TempDir &dir, const fs::path &cls, const std::string &csv,
                                   const std::map<std::string, std::string> &env,
                                   std::vector<std::string> more = {}) {
    std::vector<std::string> args{"--class", cls.string(), "--labs", "07", "--no-stress", "--no-sandbox",
                                  "-j", "2", "--csv", dir / csv, "--junit", dir / "junit"};
    args.insert(args.end(), more.begin(), more.end());
    return run_grader(args, 400, env);
}

}  // namespace

TEST_SUITE("grade") {

TEST_CASE("without hbcheck a fence bug is never a pass: the grading is refused, or its rows fail with --no-hbcheck") {
    if (!test::have_oclgrind()) return;
    TempDir dir;
    const fs::path cls = fence_class(dir.path);
    const std::string nowhere = dir / "empty/libsynclab_hbcheck.so";  // a folder with no plugin
    fs::create_directories(dir.path / "empty");
    const std::string not_a_plugin = dir / "not-a-plugin.so";
    std::ofstream(not_a_plugin) << "not a shared library\n";

    // hbcheck here: the fence bug fails as memory-model, the solution passes.
    const bool built = fs::exists(fs::path(test::lab(kGrader)).parent_path().parent_path() / "lib/libsynclab_hbcheck.so");
    if (built) {
        const auto r = grade_class(dir, cls, "with.csv", {});
        CAPTURE(r.out);
        CHECK(r.exit_code == 1);
        const auto rows = rows_by_student(dir / "with.csv");
        REQUIRE(rows.count("bug"));
        REQUIRE(rows.count("right"));
        CHECK(rows.at("bug").kind == grade::Kind::MemoryModel);
        CHECK(rows.at("right").passed());
    } else {
        MESSAGE("hbcheck is not built here: only its absence is tested");
    }

    // hbcheck missing: refused, in one line naming the labs and the fix, before any row.
    const auto refused = grade_class(dir, cls, "refused.csv", {{synclab::protocol::kHbcheck, nowhere}});
    CAPTURE(refused.err);
    CHECK(refused.exit_code == 2);
    CHECK(test::line_count(refused.err) == 1);
    CHECK(contains(refused.err, "lab 07 needs hbcheck"));
    CHECK(contains(refused.err, "--no-hbcheck"));
    CHECK_FALSE(fs::exists(dir / "refused.csv"));
    // Its twin: a lab whose groups never meet grades as usual without hbcheck.
    const auto lab01 = run_grader({"--kernels", test::source("solutions"), "--labs", "01", "--no-sandbox",
                                   "--csv", dir / "lab01.csv", "--junit", dir / "junit"},
                                  300, {{synclab::protocol::kHbcheck, nowhere}});
    CAPTURE(lab01.out);
    CHECK(lab01.exit_code == 0);

    // The instructor's choice, --no-hbcheck: every lab 07 row fails as not checked, the solution's
    // too; and a plugin file Oclgrind cannot load is no better, whatever the option.
    for (const auto &[plugin, option] : {std::pair{nowhere, "--no-hbcheck"}, std::pair{not_a_plugin, ""}}) {
        CAPTURE(plugin);
        const std::string csv = std::string(option).empty() ? "broken.csv" : "chosen.csv";
        const auto r = grade_class(dir, cls, csv, {{synclab::protocol::kHbcheck, plugin}},
                                   std::string(option).empty() ? std::vector<std::string>{}
                                                               : std::vector<std::string>{option});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 1);
        const auto rows = rows_by_student(dir / csv);
        for (const char *student : {"bug", "right"}) {
            CAPTURE(student);
            REQUIRE(rows.count(student));
            const grade::Result &row = rows.at(student);
            CHECK_FALSE(row.passed());
            CHECK(row.kind == grade::Kind::Error);
            CHECK(contains(row.reason, "fences between work-groups not checked"));
            CHECK(contains(row.reason, "not a pass"));
        }
    }

    // The cause fixed (hbcheck found again): --resume grades the error rows again, each saying
    // why; the fence bug then fails and the solution passes. Its twin: once judged, they stay.
    if (!built) return;
    const auto fixed = grade_class(dir, cls, "chosen.csv", {}, {"--resume"});
    CAPTURE(fixed.out);
    CHECK(fixed.exit_code == 1);
    for (const char *student : {"bug", "right"})
        CHECK(contains(fixed.out, std::string(student) + ": graded again: lab 07: its row is an error"));
    auto rows = rows_by_student(dir / "chosen.csv");
    CHECK(rows.at("bug").kind == grade::Kind::MemoryModel);
    CHECK(rows.at("right").passed());
    CHECK(contains(rows.at("right").judged_by, ";hbcheck=yes;"));
    const auto kept = grade_class(dir, cls, "chosen.csv", {}, {"--resume"});
    CAPTURE(kept.out);
    CHECK(kept.exit_code == 1);
    CHECK_FALSE(contains(kept.out, "graded again"));
    rows = rows_by_student(dir / "chosen.csv");
    CHECK(rows.at("right").passed());
}

}  // TEST_SUITE("grade")
