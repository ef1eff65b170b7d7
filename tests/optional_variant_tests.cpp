// Optional variants (declared `.graded = false`) never decide a run's exit code: a starter's
// unwritten optional TODO is "not done", a wrong optional variant is reported and the run still
// exits 0 when every graded variant is right; a wrong graded one still exits 1.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "support.hpp"
#include "synclab/todo.hpp"

namespace fs = std::filesystem;

static const std::string kLab = "lab09_interworkgroup_barrier";
static const std::string kFile = "09_interworkgroup_barrier.cl";

static std::string read(const std::string &path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The student's part of `function` in `text`: from its "---- your code ----" to its end marker.
static std::string part_of(const std::string &text, const std::string &function) {
    const std::size_t at = text.find(function + "(");
    REQUIRE(at != std::string::npos);
    const std::size_t from = text.find("// ---- your code ----", at);
    const std::size_t to = text.find("// ---- end of your code ----", from);
    REQUIRE(to != std::string::npos);
    return text.substr(from, to - from);
}

// The solution's part of each function replaced by the starter's (its TODO left unwritten).
static std::vector<std::pair<std::string, std::string>> starter_parts(const std::vector<std::string> &functions) {
    const std::string solution = read(test::source("solutions/" + kFile));
    const std::string starter = read(test::source("kernels/" + kFile));
    std::vector<std::pair<std::string, std::string>> changes;
    for (const auto &f : functions) changes.emplace_back(part_of(solution, f), part_of(starter, f));
    return changes;
}

static synclab::ProcessResult run_on(const std::vector<std::pair<std::string, std::string>> &changes,
                                     const std::vector<std::string> &args) {
    const std::string dir = test::mutated(kFile, changes);
    std::vector<std::string> all{"--kernels", dir, "--steps", "8"};
    all.insert(all.end(), args.begin(), args.end());
    const auto r = test::run_lab(kLab, all);
    fs::remove_all(dir);
    return r;
}

static std::string row(const std::string &out, const std::string &label) {
    const std::size_t at = out.find("\n" + label + " ");
    return at == std::string::npos ? "" : out.substr(at + 1, out.find('\n', at + 1) - at - 1);
}

TEST_SUITE("unit") {

TEST_CASE("unwritten_part finds a TODO left in a kernel or in what it calls, and none once written") {
    const std::string todo = "int helper(int x) {\n    // ---- your code ----\n    // TODO (3 lines): "
                             "add\n    return 0;\n    // ---- end of your code ----\n}\n\n"
                             "__kernel void k(__global int *y) {\n    y[0] = STEP(helper(1));\n}\n\n"
                             "__kernel void other(__global int *y) { y[0] = 1;\n}\n";
    CHECK(synclab::unwritten_part(todo, {"k"}) == "helper");
    CHECK(synclab::unwritten_part(todo, {"other"}).empty());
    std::string written = todo;
    written.replace(written.find("// TODO (3 lines): add"), 22, "x += 1;");
    CHECK(synclab::unwritten_part(written, {"k"}).empty());
    // The starter as shipped: c11's part unwritten; the solution's written.
    const std::string starter = read(test::source("kernels/" + kFile));
    CHECK(synclab::unwritten_part(starter, {"barrierCentralizedC11"}) == "centralized_barrier_c11");
    const std::string solution = read(test::source("solutions/" + kFile));
    CHECK(synclab::unwritten_part(solution, {"barrierCentralizedC11"}).empty());
}

}  // TEST_SUITE unit

TEST_SUITE("lab") {

TEST_CASE("lab09 an optional variant never sets the exit code, a wrong graded barrier does") {
    // Every graded barrier right, c11 the starter's: "not done", exit 0.
    const auto c11 = starter_parts({"centralized_barrier_c11"});
    const auto r = run_on(c11, {});
    CAPTURE(r.out);
    CHECK(r.exit_code == 0);
    CHECK(row(r.out, "barrierCentralizedC11 (c11)").find("not done (optional: the TODO in "
                                                         "centralized_barrier_c11") != std::string::npos);
    CHECK(r.out.find("WRONG") == std::string::npos);
    // The same with the centralized barrier the starter's too: graded and wrong, exit 1.
    auto both = c11;
    const auto centralized = starter_parts({"centralized_barrier"});
    both.insert(both.end(), centralized.begin(), centralized.end());
    const auto bad = run_on(both, {});
    CAPTURE(bad.out);
    CHECK(bad.exit_code == 1);
    CHECK(row(bad.out, "barrierCentralized (centralized)").find("WRONG") != std::string::npos);
    CHECK(row(bad.out, "barrierCentralizedC11 (c11)").find("not done") != std::string::npos);
    // c11 written, wrong (the starter's body without its TODO): reported WRONG, exit 0 beside a
    // right centralized barrier.
    auto wrong = c11;
    std::istringstream lines(wrong[0].second);
    wrong[0].second.clear();
    for (std::string line; std::getline(lines, line);)
        if (line.find("----") != std::string::npos || line.find_first_not_of(' ') == std::string::npos ||
            line.compare(line.find_first_not_of(' '), 2, "//") != 0)
            wrong[0].second += line + "\n";  // the markers and the code, no comment
    wrong[0].second.pop_back();
    const auto w = run_on(wrong, {"--variant", "centralized,c11"});
    CAPTURE(w.out);
    CHECK(w.exit_code == 0);
    CHECK(row(w.out, "barrierCentralizedC11 (c11)").find("WRONG") != std::string::npos);
    CHECK(row(w.out, "barrierCentralized (centralized)").find("verified") != std::string::npos);
}

}  // TEST_SUITE lab
