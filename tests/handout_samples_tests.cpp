// Handouts follow the programs: every sample table in handouts/NN_topic.md has the columns the lab
// prints now. The lab runs once, small; its table header is compared, word for word, with every
// header line of the handout's samples.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support.hpp"

// The words of a line: column widths change with the kernels' names, the columns do not.
static std::vector<std::string> words(const std::string &line) {
    std::istringstream in(line);
    std::vector<std::string> out;
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}

// Every line of `text` that starts with `prefix`, inside ``` blocks only when `blocks`.
static std::vector<std::string> lines_starting(const std::string &text, const std::string &prefix,
                                               bool blocks) {
    std::istringstream in(text);
    std::vector<std::string> out;
    bool inside = false;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("```", 0) == 0) inside = !inside;
        else if ((inside || !blocks) && line.rfind(prefix, 0) == 0) out.push_back(line);
    }
    return out;
}

struct Sample {
    std::string lab, handout, prefix;  // prefix: how the table's header line starts
    std::vector<std::string> args;     // a small run that prints the table
};

TEST_SUITE("lab") {

TEST_CASE("handout samples of labs 08, 09 and 10 have the tables' current columns") {
    const std::vector<Sample> samples{
        {"lab08_reduction_ladder", "08_reduction_ladder", "rung ",
         {"-n", "5000", "--trials", "1", "--variant", "v1"}},
        {"lab09_interworkgroup_barrier", "09_interworkgroup_barrier", "kernel (method)",
         {"-n", "64", "--steps", "2", "--trials", "1", "--variant", "relaunch"}},
        {"lab10_laplace", "10_laplace", "kernel (variant)",
         {"--grid", "16x8", "--sweeps", "2", "--variant", "naive"}}};
    for (const Sample &s : samples) {
        CAPTURE(s.lab);
        std::vector<std::string> args{"--kernels", test::source("solutions")};
        args.insert(args.end(), s.args.begin(), s.args.end());
        const auto r = test::run_lab(s.lab, args);
        CAPTURE(r.out);
        REQUIRE(r.exit_code == 0);
        const auto printed = lines_starting(r.out, s.prefix, false);
        REQUIRE(printed.size() == 1);
        std::ifstream in(test::source("handouts/" + s.handout + ".md"));
        std::ostringstream text;
        text << in.rdbuf();
        const auto shown = lines_starting(text.str(), s.prefix, true);
        CHECK_FALSE(shown.empty());  // a handout shows its table at least once
        for (const std::string &line : shown) {
            CAPTURE(line);
            CHECK(words(line) == words(printed[0]));
        }
    }
}

// The comparison itself: a header with a column more, or one less, differs; the same columns at
// other widths do not.
TEST_CASE("handout sample headers: the same columns match at any width, a changed column does not") {
    CHECK(words("rung kernel   passes groups") == words("rung   kernel passes  groups"));
    CHECK_FALSE(words("rung kernel passes groups % host") == words("rung kernel passes groups"));
    const std::string text = "x\n```\nkernel (method) groups took\n```\nkernel (method) outside\n";
    CHECK(lines_starting(text, "kernel (method)", true).size() == 1);
    CHECK(lines_starting(text, "kernel (method)", false).size() == 2);
}

}  // TEST_SUITE lab
