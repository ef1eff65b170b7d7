// The lab <-> grader contract: declarations and verdicts survive their machine-readable form, and
// the scaffolding's CSV table puts every value in its named column.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "grade/labs.hpp"  // race_checks_of
#include "grade_support.hpp"  // TempDir, contains
#include "support.hpp"
#include "synclab/declaration.hpp"
#include "synclab/lab.hpp"
#include "synclab/protocol.hpp"
#include "synclab/verdict.hpp"

// A declaration here names only the fields its test is about; a lab's must name them all, so the
// warning stays on everywhere else.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

using namespace synclab;
using gradetest::contains;
using gradetest::TempDir;
namespace fs = std::filesystem;

TEST_SUITE("unit") {

TEST_CASE("a declaration reads back as written, and a bad description is refused by line") {
    Declaration d{.dir = "42_some_topic",
                  .summary = "a summary with `code`",
                  .description = "two\tfields\nand lines",
                  .variants = {{.name = "a", .kernels = {"k1", "k2"}, .todo = true},
                               {.name = "b", .kernels = {"k3"}, .demonstration = true},
                               {.name = "c", .kernels = {"k4"}, .graded = false}},
                  .grading = {{"-n", "5"}, {"--wg", "64", "--trials", "2"}},
                  .race_checks = {{"--wg", "64"}, {"--wg", "48", "-n", "100"}},
                  .drawn_checks = {{"--groups", "5"}, {"--groups", "6", "--wg", "4"}},
                  .oclgrind_off = {"uninitialized"},
                  .build_per_size = true,
                  .oclgrind_groups = 4,
                  .stress_schedules = 2,
                  .stress_args = {"--variant", "x,y", "--steps", "9"},
                  .stress_warm_up = {"--steps", "1"},
                  .points = 3};
    std::ostringstream out;
    describe(out, d);
    const Declaration r = parse_description(out.str());
    CHECK(r.id() == "42");
    CHECK(r.executable() == "lab42_some_topic");
    CHECK(r.kernel_file() == "42_some_topic.cl");
    CHECK(r.summary == d.summary);
    CHECK(r.description == "two fields and lines");  // one field, one line
    REQUIRE(r.variants.size() == 3);
    CHECK(r.variants[0].kernels == std::vector<std::string>{"k1", "k2"});
    CHECK(r.variants[0].todo);
    CHECK_FALSE(r.variants[0].demonstration);
    CHECK(r.variants[1].demonstration);
    CHECK_FALSE(r.variants[2].graded);
    CHECK(r.grading == d.grading);
    CHECK(r.race_checks == d.race_checks);
    CHECK(r.drawn_checks == d.drawn_checks);
    CHECK(r.oclgrind_off == d.oclgrind_off);
    CHECK(r.build_per_size);
    CHECK(r.oclgrind_groups == 4);
    CHECK(r.stress_schedules == 2);
    CHECK(r.stress_args == d.stress_args);
    CHECK(r.stress_warm_up == d.stress_warm_up);
    CHECK(r.points == 3);
    std::ostringstream plain;
    describe(plain, Declaration{.dir = "43_other"});
    CHECK_FALSE(parse_description(plain.str()).build_per_size);
    CHECK(parse_description(plain.str()).points == 1);  // absent: one point
    CHECK_FALSE(contains(plain.str(), "points"));
    CHECK_FALSE(contains(plain.str(), "stress"));
    CHECK(r.find("b") != nullptr);
    CHECK(r.find("z") == nullptr);

    CHECK_THROWS_WITH(parse_description(""), doctest::Contains("empty"));
    CHECK_THROWS_WITH(parse_description("hello\n"), doctest::Contains("line 1"));
    CHECK_THROWS_WITH(parse_description("synclab-lab\t2\n"), doctest::Contains("version 2"));
    CHECK_THROWS_WITH(parse_description("synclab-lab\t1\ndir\t01_x\nbogus\tx\n"),
                      doctest::Contains("line 3"));
    CHECK_THROWS_WITH(parse_description("synclab-lab\t1\ndir\tx\n"), doctest::Contains("NN_topic"));
    CHECK_THROWS_WITH(parse_description("synclab-lab\t1\ndir\t01_x\npoints\t-1\n"),
                      doctest::Contains("line 3"));
}

TEST_CASE("a verdict file reads back: the first result stands, and garbage is no verdict") {
    char path[] = "/tmp/synclab-verdict-XXXXXX";
    const int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    REQUIRE(verdict::open(path));
    verdict::seed(77);
    verdict::variant("sync", VariantState::Wrong, "reduceWithSync: 1/5\ttrials\nwrong");
    verdict::variant("nosync", VariantState::Verified, "");
    verdict::result(1, ResultKind::Timeout, "", "stopped after 3 s");
    verdict::result(1, ResultKind::Wrong, "", "too late");  // a watchdog's timeout is not overwritten
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    std::remove(path);
    const VerdictRecord r = parse_verdict(text.str());
    CHECK(r.version == 1);
    CHECK(r.seed == "77");
    REQUIRE(r.variants.size() == 2);
    CHECK(r.variants[0].state == VariantState::Wrong);
    CHECK(r.variants[0].detail == "reduceWithSync: 1/5 trials wrong");
    CHECK(r.finished);
    CHECK(r.exit_code == 1);
    CHECK(r.kind == ResultKind::Timeout);
    CHECK(r.message == "stopped after 3 s");
    CHECK(parse_verdict("variant\tsync\twrong\tx\nresult\t0\tverified\t-\t\n").version == 0);
    CHECK_FALSE(parse_verdict("synclab-verdict\t1\nseed\t1\n").finished);  // cut short
}

TEST_CASE("Oclgrind's findings read back from the verdict, one record each, before the result") {
    char path[] = "/tmp/synclab-verdict-XXXXXX";
    const int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    REQUIRE(verdict::open(path));
    verdict::seed(5);
    verdict::finding("sync", FindingKind::DataRace, "01_workgroup_reduce.cl:10",
                     "data race in kernel reduceWithSync:\tline 10\nand 7 [32 reports]");
    verdict::finding("-", FindingKind::OutOfBounds, "", "out-of-bounds access in kernel k");
    verdict::variant("sync", VariantState::Wrong, "data race in kernel reduceWithSync");
    verdict::result(1, ResultKind::Wrong, "", "");
    verdict::finding("sync", FindingKind::Uninitialized, "x.cl:1", "after the result: not part of it");
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    std::remove(path);
    CHECK(text.str().find("finding\tsync\tdata-race\t01_workgroup_reduce.cl:10\tdata race in "
                          "kernel reduceWithSync: line 10 and 7 [32 reports]\n") !=
          std::string::npos);
    const VerdictRecord r = parse_verdict(text.str());
    REQUIRE(r.findings.size() == 2);
    CHECK(r.findings[0].variant == "sync");
    CHECK(r.findings[0].kind == FindingKind::DataRace);
    CHECK(r.findings[0].where == "01_workgroup_reduce.cl:10");
    CHECK(r.findings[0].message == "data race in kernel reduceWithSync: line 10 and 7 [32 reports]");
    CHECK(r.findings[1].variant == "-");
    CHECK(r.findings[1].where.empty());  // "-" in the file
    CHECK(r.findings[1].kind == FindingKind::OutOfBounds);
    REQUIRE(r.variants.size() == 1);
    CHECK(r.exit_code == 1);
    // A record with a field too few is not a finding; one after the result is not read.
    CHECK(parse_verdict("synclab-verdict\t1\nfinding\tsync\tdata-race\tmsg\n").findings.empty());
    CHECK(parse_verdict("synclab-verdict\t1\nresult\t0\tverified\t-\t\n"
                        "finding\ts\tdata-race\t-\tm\n").findings.empty());
}

TEST_CASE("a batch line that fails skips its lab's next lines, and the next lab's lines go on") {
    using synclab::protocol::next_line;
    const std::vector<synclab::protocol::Args> lines{{"01_a", "x"}, {"01_a", "y"}, {"02_b", "z"}, {"01_a", "w"}};
    CHECK(next_line(lines, 0, false) == 1);
    CHECK(next_line(lines, 0, true) == 2);
    CHECK(next_line(lines, 1, true) == 2);
    CHECK(next_line(lines, 2, true) == 3);  // a later line of a lab that failed runs again
    CHECK(next_line(lines, 3, true) == 4);  // none left
}

TEST_CASE("the CSV table writes cells by column name, in the header's order") {
    std::ostringstream out;
    Csv csv(&out, {"variant", "n", "ms", "verified"});
    csv("ms", 1.5)("variant", "a,b")("verified", true);
    csv.row();
    csv("n", 7)("variant", "c");
    csv.row();
    CHECK(out.str() == "variant,n,ms,verified\na;b,,1.5,1\nc,7,,\n");
    CHECK_THROWS_AS(csv("nope", 1), std::logic_error);
    Csv none(nullptr, {"a"});
    CHECK_FALSE(none);
    none("a", 1).row();  // no stream: nothing happens
}

}  // TEST_SUITE

TEST_SUITE("lab") {

TEST_CASE("--variant takes a comma-separated list, and an unknown name in it is refused") {
    char path[] = "/tmp/synclab-verdict-XXXXXX";
    const int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    const auto r = test::run_lab("lab01_workgroup_reduce",
                                 {"--kernels", test::source("solutions"), "--variant",
                                  "sync,nosync", "--verdict", path});
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    std::remove(path);
    CAPTURE(r.out);
    CHECK(r.exit_code == 0);  // the demonstration's failure is not the run's
    const VerdictRecord v = parse_verdict(text.str());
    REQUIRE(v.variants.size() == 2);
    CHECK(v.variants[0].variant == "sync");  // in the order asked for
    CHECK(v.variants[1].variant == "nosync");
    CHECK(r.out.find("reduceWithSync") < r.out.find("reduceNoSync"));
    test::check_usage_error("lab01_workgroup_reduce", {"--variant", "sync,bogus"},
                            "unknown --variant 'bogus': use one of nosync|sync|all");
    test::check_usage_error("lab01_workgroup_reduce", {"--variant", "sync,"}, "ends with a comma");
    test::check_usage_error("lab01_workgroup_reduce", {"--variant", ""}, "unknown --variant ''");
}

TEST_CASE("a work-group larger than the device allows is 'unsupported', not a usage error") {
    // The grader reports such a run as not checked on that device (below the device's maximum
    // the launch decides: a GPU may report fewer for a kernel than it runs); a size no tree can
    // use stays the student's mistake.
    TempDir dir;
    const auto big = test::run_lab("lab01_workgroup_reduce", {"--kernels", test::source("solutions"),
                                                              "--wg", "8192", "--exact", "--verdict",
                                                              dir / "v"});
    CAPTURE(big.err);
    CHECK(big.exit_code == 2);
    const std::string dev_max = std::to_string(synclab::select_device("").max_wg);
    CHECK(contains(big.err, "work-group size 8192 is above this device's maximum of " + dev_max +
                                ": use --wg " + dev_max + " or less"));
    std::ifstream in(dir / "v");
    std::stringstream text;
    text << in.rdbuf();
    const auto v = parse_verdict(text.str());
    CHECK(v.kind == ResultKind::Unsupported);
    CHECK(contains(v.message, "above this device's maximum of"));
    const auto odd = test::run_lab("lab01_workgroup_reduce", {"--kernels", test::source("solutions"),
                                                              "--wg", "3000", "--verdict", dir / "w"});
    CHECK(odd.exit_code == 2);
    std::ifstream in2(dir / "w");
    std::stringstream text2;
    text2 << in2.rdbuf();
    CHECK(parse_verdict(text2.str()).kind == ResultKind::Usage);
    // A lab's own device check says the same, and only once its other options are right.
    auto kind_of = [&](const std::vector<std::string> &args) {
        std::vector<std::string> all{"--kernels", test::source("solutions"), "--verdict", dir / "x"};
        all.insert(all.end(), args.begin(), args.end());
        const auto r = test::run_lab("lab09_interworkgroup_barrier", all);
        CHECK(r.exit_code == 2);
        std::ifstream f(dir / "x");
        std::stringstream t;
        t << f.rdbuf();
        return parse_verdict(t.str()).kind;
    };
    CHECK(kind_of({"--wg", "8192"}) == ResultKind::Unsupported);
    CHECK(kind_of({"--wg", "8192", "--steps", "0"}) == ResultKind::Usage);
}

TEST_CASE("a batch runs its lines in one process, each with its own verdict, until one fails") {
    TempDir dir;
    auto verdict_of = [&](int k) {
        std::ifstream in(dir / ("v" + std::to_string(k)));
        std::stringstream text;
        text << in.rdbuf();
        return parse_verdict(text.str());
    };
    auto line = [&](const std::string &kernels, int k, const std::string &wg) {
        return "--kernels\t" + test::source(kernels) + "\t--verdict\t" + (dir / ("v" + std::to_string(k))) +
               "\t--variant\tsync\t--exact\t--wg\t" + wg + "\n";
    };
    // Right, right at another size, wrong (the starter), and a line never reached.
    std::ofstream(dir / "batch") << line("solutions", 1, "64") << line("solutions", 2, "1")
                                 << line("kernels", 3, "64") << line("solutions", 4, "64");
    const auto r = test::run_batch("lab01_workgroup_reduce", dir / "batch");
    CAPTURE(r.out);
    CAPTURE(r.err);
    CHECK(r.exit_code == 1);  // the failing line's own exit code
    CHECK(verdict_of(1).kind == ResultKind::Verified);
    CHECK(verdict_of(2).kind == ResultKind::Verified);
    CHECK(verdict_of(3).kind == ResultKind::Wrong);
    CHECK(verdict_of(3).exit_code == 1);
    CHECK_FALSE(fs::exists(dir / "v4"));  // the first failure ends the batch
    CHECK(contains(r.out, "== run 3 of 4: lab01_workgroup_reduce --kernels"));
    CHECK_FALSE(contains(r.out, "== run 4 of 4"));
    // Each line parses its own options: a bad one is that line's usage error.
    std::ofstream(dir / "bad") << line("solutions", 5, "64") << line("solutions", 6, "3000000");
    const auto bad = test::run_batch("lab01_workgroup_reduce", dir / "bad");
    CHECK(bad.exit_code == 2);
    CHECK(verdict_of(5).kind == ResultKind::Verified);
    CHECK(verdict_of(6).kind == ResultKind::Usage);

    // Only the grader's runner runs batches (synclab/protocol.hpp): a lab takes one run's options.
    test::check_usage_error("lab01_workgroup_reduce", {"--batch", dir / "batch"}, "batch");
    // Oclgrind counts its reports per process: a later Oclgrind run in one gets its cap past the
    // earlier runs' count (its own context and log too), and runs as it would alone.
    if (test::have_oclgrind()) {
        auto on_oclgrind = [&](int k, const std::string &wg) {
            std::string l = line("solutions", k, wg);
            return l.insert(l.size() - 1, "\t--device\toclgrind");
        };
        std::ofstream(dir / "og") << on_oclgrind(7, "16") << on_oclgrind(8, "1");
        const auto og = test::run_batch("lab01_workgroup_reduce", dir / "og");
        CAPTURE(og.err);
        CHECK(og.exit_code == 0);
        CHECK(verdict_of(7).kind == ResultKind::Verified);
        CHECK(verdict_of(8).kind == ResultKind::Verified);
        CHECK(verdict_of(8).findings.empty());
    }
}

TEST_CASE("a lab run loads only the drivers its device needs, and a later line that needs another is refused") {
    TempDir dir;
    auto line = [&](int k, const std::string &device) {
        return "--kernels\t" + test::source("solutions") + "\t--verdict\t" + (dir / ("v" + std::to_string(k))) +
               "\t--variant\tsync\t--wg\t16" + (device.empty() ? "" : "\t--device\t" + device) + "\n";
    };
    auto kind_of = [&](int k) {
        std::ifstream in(dir / ("v" + std::to_string(k)));
        std::stringstream text;
        text << in.rdbuf();
        return parse_verdict(text.str()).kind;
    };
    // The default device, then POCL by name: the same drivers, both run.
    std::ofstream(dir / "same") << line(1, "") << line(2, "pocl");
    const auto same = test::run_batch("lab01_workgroup_reduce", dir / "same");
    CAPTURE(same.err);
    CHECK(same.exit_code == 0);
    CHECK(kind_of(1) == ResultKind::Verified);
    CHECK(kind_of(2) == ResultKind::Verified);
    if (!test::have_oclgrind()) return;
    // POCL's run loaded no Oclgrind, and the loader reads its drivers once: refused in one line.
    std::ofstream(dir / "mixed") << line(3, "") << line(4, "oclgrind");
    const auto mixed = test::run_batch("lab01_workgroup_reduce", dir / "mixed");
    CHECK(mixed.exit_code == 2);
    CHECK(kind_of(3) == ResultKind::Verified);
    CHECK(kind_of(4) == ResultKind::Usage);
    CHECK(contains(mixed.err, "loaded its OpenCL drivers without Oclgrind for its first run"));
    CHECK(contains(mixed.err, "run --device 'oclgrind' in a process of its own"));
    // Its twin: Oclgrind first, alone in its process, runs; and a lab lists every driver still.
    std::ofstream(dir / "og") << line(5, "oclgrind");
    CHECK(test::run_batch("lab01_workgroup_reduce", dir / "og").exit_code == 0);
    CHECK(kind_of(5) == ResultKind::Verified);
    const auto listed = test::run_lab("lab01_workgroup_reduce", {"--list-devices"});
    CHECK(contains(listed.out, "Oclgrind"));
    CHECK(contains(listed.out, "Portable Computing Language"));
}

TEST_CASE("a grading draws one member of the drawn race checks: the same for the same kernel, each for some") {
    Declaration d{.dir = "42_some_topic",
                  .race_checks = {{"--wg", "64"}},
                  .drawn_checks = {{"--groups", "5"}, {"--groups", "6"}, {"--groups", "7"}}};
    const grade::Recipe r = grade::recipe_of(d);
    const auto once = grade::race_checks_of(r, "7", "kernel void k() {}");
    REQUIRE(once.size() == 2);
    CHECK(once.front() == d.race_checks.front());  // the declared checks first, in order
    CHECK(std::count(d.drawn_checks.begin(), d.drawn_checks.end(), once.back()) == 1);
    CHECK(grade::race_checks_of(r, "7", "kernel void k() {}") == once);  // a function of its inputs
    // Over texts that differ by a byte, and over keys, every member is drawn.
    std::map<std::vector<std::string>, int> by_text, by_key;
    for (int i = 0; i < 60; ++i) {
        by_text[grade::race_checks_of(r, "7", "kernel void k() {}" + std::string(i, ' ')).back()]++;
        by_key[grade::race_checks_of(r, std::to_string(i), "kernel void k() {}").back()]++;
    }
    CHECK(by_text.size() == 3);
    CHECK(by_key.size() == 3);
    for (const auto &[shape, n] : by_text) CHECK(n >= 10);  // none rare: 20 expected of 60
    // No drawn set: the declared checks alone.
    CHECK(grade::race_checks_of(grade::recipe_of(Declaration{.dir = "43_other",
                                                             .race_checks = {{"-n", "9"}}}),
                                "7", "x") == std::vector<std::vector<std::string>>{{"-n", "9"}});
}

}  // TEST_SUITE
