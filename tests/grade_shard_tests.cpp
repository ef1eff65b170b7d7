// synclab-grade beyond one machine: --shard I/N grades a slice of a class, and --merge joins the
// slices' gradebooks into the one a single run writes (the JUnit reports share one folder).
#include <doctest/doctest.h>

#include <filesystem>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "grade/record_csv.hpp"
#include "grade/record_junit.hpp"
#include "grade_support.hpp"
#include "synclab/protocol.hpp"

namespace fs = std::filesystem;
using namespace gradetest;

namespace {

std::string solution(const std::string &file) { return read_file(test::source("solutions/" + file)); }

const std::string kLab01 = "01_workgroup_reduce.cl", kLab02 = "02_host_final_sum.cl";

// What a gradebook grades, leaving out the time each row took: (student, lab, grade, kind,
// points, max_points), total rows included.
std::set<std::tuple<std::string, std::string, std::string, std::string, std::string, std::string>>
grades(const std::string &csv) {
    std::set<std::tuple<std::string, std::string, std::string, std::string, std::string, std::string>> out;
    for (const auto &r : read_gradebook(csv, true))
        out.insert({r.student, r.lab, r.grade, r.kind, r.points, r.max_points});
    return out;
}

}  // namespace

TEST_SUITE("grade") {

TEST_CASE("three shards graded at once merge into the gradebook one run writes, JUnit names unclashed, and shards missing or graded otherwise are refused" * doctest::test_suite("e2e")) {
    TempDir dir;
    const fs::path klass = dir.path / "class";
    // "Ann" and "ann" would be one file where case is ignored: shards 1 and 2 hold one each.
    for (const char *s : {"Ann", "ann", "bob", "cat", "dan"}) {
        write_text(klass / s / kLab01, solution(kLab01));
        write_text(klass / s / kLab02, solution(kLab02));
    }
    write_text(klass / "ann" / kLab02, "int not_finished =\n" + solution(kLab02));
    fs::remove(klass / "cat" / kLab01);
    // One draw key for every shard: another draws other race checks, and is refused below.
    const std::vector<std::string> common{"--class", klass.string(), "--labs", "01,02", "--quick",
                                          "--seed", "3", "--draw-key", "week 3", "-j", "1"};
    std::vector<pid_t> pids;
    for (int i = 1; i <= 3; ++i) {
        std::vector<std::string> args{test::lab(kGrader)};
        args.insert(args.end(), common.begin(), common.end());
        for (const std::string &a : {std::string("--shard"), std::to_string(i) + "/3", std::string("--csv"),
                                     dir / ("shard-" + std::to_string(i) + ".csv"), std::string("--junit"),
                                     dir / "junit"})
            args.push_back(a);
        pids.push_back(spawn_logged(args, dir / ("shard-" + std::to_string(i) + ".log"), {{synclab::protocol::kKernels, ""}}));
    }
    for (int i = 0; i < 3; ++i) {
        CAPTURE(read_file(dir / ("shard-" + std::to_string(i + 1) + ".log")));
        CHECK(exit_within(pids[i], 300) == (i == 2 ? 0 : 1));  // shard 3 holds bob alone
    }
    CHECK(contains(read_file(dir / "shard-1.log"), "shard 1/3: 2 of the class's 5 student(s)"));
    std::vector<std::string> merge{"--merge", "--csv", dir / "merged.csv"};
    for (int i = 1; i <= 3; ++i) merge.push_back(dir / ("shard-" + std::to_string(i) + ".csv"));
    const auto merged = run_grader(merge, 60);
    CAPTURE(merged.err);
    CHECK(merged.exit_code == 0);
    CHECK(contains(merged.out, "merged 3 gradebook(s): 5 student(s), 8/10 lab row(s) passed"));
    // One run of the whole class: the same grades, students in the same order.
    const auto whole = run_grader([&] {
        auto a = common;
        for (const std::string &x : {std::string("--csv"), dir / "whole.csv", std::string("--junit"), dir / "junit-whole"})
            a.push_back(x);
        return a;
    }(), 300);
    CHECK(whole.exit_code == 1);
    CHECK(grades(dir / "merged.csv") == grades(dir / "whole.csv"));
    std::vector<std::string> order_merged, order_whole;
    for (const auto &r : read_gradebook(dir / "merged.csv", true)) order_merged.push_back(r.student + "/" + r.lab);
    for (const auto &r : read_gradebook(dir / "whole.csv", true)) order_whole.push_back(r.student + "/" + r.lab);
    CHECK(order_merged == order_whole);
    // The shards' JUnit reports are the whole run's files: five, none written over.
    std::set<std::string> shard_files, whole_files;
    for (const auto &e : fs::directory_iterator(dir / "junit")) shard_files.insert(e.path().filename());
    for (const auto &e : fs::directory_iterator(dir / "junit-whole")) whole_files.insert(e.path().filename());
    CHECK(shard_files.size() == 5);
    CHECK(shard_files == whole_files);
    CHECK(contains(read_file(dir / "junit/ann.xml"), "compile-error"));
    CHECK(contains(read_file(dir / ("junit/" + grade::file_name("Ann") + ".xml")), "failures=\"0\""));
    // Each row says what judged it, its shard among it.
    for (int i = 1; i <= 3; ++i)
        for (const auto &r : read_gradebook(dir / ("shard-" + std::to_string(i) + ".csv"))) {
            CAPTURE(r.judged_by);
            CHECK(contains(r.judged_by, "runs=first;"));
            CHECK(contains(r.judged_by, ";shard=" + std::to_string(i) + "/3;class=5"));
        }

    // What merge refuses, each with exit 2 and the fix: a student in two gradebooks, a shard not
    // finished (no total row), shards of other labs, a file named twice.
    auto refused = [&](std::vector<std::string> files, const std::string &why) {
        std::vector<std::string> a{"--merge", "--csv", dir / "refused.csv"};
        a.insert(a.end(), files.begin(), files.end());
        const auto r = run_grader(a, 60);
        CAPTURE(r.err);
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, why));
        CHECK_FALSE(fs::exists(dir / "refused.csv"));
    };
    refused({dir / "shard-1.csv", dir / "whole.csv"}, "is in both");
    const std::string text = read_file(dir / "shard-3.csv");
    write_text(dir / "cut.csv", text.substr(0, text.find("bob,total")));
    refused({dir / "shard-1.csv", dir / "cut.csv"}, "is not finished (student bob has no total row)");
    std::string other = text;
    for (std::size_t at; (at = other.find("bob,02,")) != std::string::npos;)
        other.erase(at, other.find('\n', at) + 1 - at);
    write_text(dir / "other-labs.csv", other);
    refused({dir / "shard-1.csv", dir / "other-labs.csv"}, "the shards graded different labs");
    refused({dir / "shard-1.csv", dir / "shard-1.csv"}, "is named twice");

    // Two of three shards: the missing one named, with the command that makes it.
    refused({dir / "shard-1.csv", dir / "shard-2.csv"},
            "shard 3/3 is missing: grade it with --shard 3/3 and merge all three");
    // Shard 3 graded under other settings: in full (not --quick), with another draw key, or by
    // another grader; each refused naming both files and what differs.
    auto shard3 = [&](const std::string &csv, std::vector<std::string> options) {
        std::vector<std::string> a{"--class", klass.string(), "--labs", "01,02", "--seed", "3", "-j", "1",
                                   "--shard", "3/3", "--csv", dir / csv, "--junit", dir / "junit-other"};
        a.insert(a.end(), options.begin(), options.end());
        const auto r = run_grader(a, 300);
        CAPTURE(r.out);
        CHECK(r.exit_code == 0);
    };
    shard3("full-3.csv", {"--draw-key", "week 3"});
    shard3("key-3.csv", {"--draw-key", "week 4", "--quick"});
    std::string version = read_file(dir / "shard-3.csv");
    for (std::size_t at = 0; (at = version.find(";grader=", at)) != std::string::npos; at += 11)
        version.replace(at, version.find_first_of(";\n", at + 1) - at, ";grader=0.0");
    write_text(dir / "version-3.csv", version);
    for (const auto &[file, why] : {std::pair{"full-3.csv", "runs first against all"},
                                    std::pair{"key-3.csv", "draw "},
                                    std::pair{"version-3.csv", "grader "}}) {
        CAPTURE(file);
        refused({dir / "shard-1.csv", dir / "shard-2.csv", dir / file}, "graded under other settings");
        refused({dir / "shard-1.csv", dir / "shard-2.csv", dir / file}, why);
        refused({dir / "shard-1.csv", dir / "shard-2.csv", dir / file}, file);
    }
}

}  // TEST_SUITE
