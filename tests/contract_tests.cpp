// The lab <-> grader contract: declarations and verdicts survive their machine-readable form, and
// the scaffolding's CSV table puts every value in its named column.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "synclab/declaration.hpp"
#include "synclab/lab.hpp"
#include "synclab/verdict.hpp"

using namespace synclab;

TEST_SUITE("unit") {

TEST_CASE("a declaration reads back as written, and a bad description is refused by line") {
    Declaration d{.dir = "42_some_topic",
                  .summary = "a summary with `code`",
                  .description = "two\tfields\nand lines",
                  .variants = {{.name = "a", .kernels = {"k1", "k2"}, .todo = true},
                               {.name = "b", .kernels = {"k3"}, .demonstration = true},
                               {.name = "c", .kernels = {"k4"}, .graded = false}},
                  .grading = {{"-n", "5"}, {"--wg", "64", "--trials", "2"}},
                  .race_check = {"--wg", "64"},
                  .oclgrind_off = {"uninitialized"}};
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
    CHECK(r.race_check == d.race_check);
    CHECK(r.oclgrind_off == d.oclgrind_off);
    CHECK(r.find("b") != nullptr);
    CHECK(r.find("z") == nullptr);

    CHECK_THROWS_WITH(parse_description(""), doctest::Contains("empty"));
    CHECK_THROWS_WITH(parse_description("hello\n"), doctest::Contains("line 1"));
    CHECK_THROWS_WITH(parse_description("synclab-lab\t2\n"), doctest::Contains("version 2"));
    CHECK_THROWS_WITH(parse_description("synclab-lab\t1\ndir\t01_x\nbogus\tx\n"),
                      doctest::Contains("line 3"));
    CHECK_THROWS_WITH(parse_description("synclab-lab\t1\ndir\tx\n"), doctest::Contains("NN_topic"));
}

TEST_CASE("a verdict file reads back: the first result stands, and garbage is no verdict") {
    char path[] = "/tmp/synclab-verdict-XXXXXX";
    const int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    REQUIRE(verdict::open(path));
    verdict::seed(77);
    verdict::variant("sync", "wrong", "reduceWithSync: 1/5\ttrials\nwrong");
    verdict::variant("nosync", "verified", "");
    verdict::result(1, "timeout", "", "stopped after 3 s");
    verdict::result(1, "wrong", "", "too late");  // a watchdog's timeout is not overwritten
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    std::remove(path);
    const VerdictRecord r = parse_verdict(text.str());
    CHECK(r.version == 1);
    CHECK(r.seed == "77");
    REQUIRE(r.variants.size() == 2);
    CHECK(r.variants[0].state == "wrong");
    CHECK(r.variants[0].detail == "reduceWithSync: 1/5 trials wrong");
    CHECK(r.finished);
    CHECK(r.exit_code == 1);
    CHECK(r.kind == "timeout");
    CHECK(r.message == "stopped after 3 s");
    CHECK(parse_verdict("variant\tsync\twrong\tx\nresult\t0\tverified\t-\t\n").version == 0);
    CHECK_FALSE(parse_verdict("synclab-verdict\t1\nseed\t1\n").finished);  // cut short
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
