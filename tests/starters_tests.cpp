// One master per kernel: every starter (kernels/NN_topic.cl) is what scripts/starters.py writes
// from its master, the solution (solutions/NN_topic.cl), and every TODO's line count is what the
// solution's part adds. The script parses the masters; these tests run its --check on the tree,
// and on a copy changed as an author would, that it names what differs and writes it again.
#include <doctest/doctest.h>

#include "grade_support.hpp"  // TempDir

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "support.hpp"
#include "synclab/process.hpp"

namespace fs = std::filesystem;

namespace {

std::vector<std::string> read_lines(const fs::path &p) {
    std::ifstream in(p, std::ios::binary);
    REQUIRE_MESSAGE(in, "cannot read " << p.string());
    std::vector<std::string> out;
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

void write_lines(const fs::path &p, const std::vector<std::string> &lines) {
    std::ofstream out(p, std::ios::binary);
    for (const auto &l : lines) out << l << "\n";
}

std::string trim(const std::string &s) {
    const auto a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
    return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// The labs with a master: labs/NN_topic folders whose solutions/NN_topic.cl exists.
std::vector<std::string> labs_with_masters(const fs::path &root) {
    std::vector<std::string> out;
    for (const auto &e : fs::directory_iterator(root / "labs"))
        if (e.is_directory() && std::regex_match(e.path().filename().string(), std::regex(R"(\d\d_.+)")) &&
            fs::is_regular_file(root / "solutions" / (e.path().filename().string() + ".cl")))
            out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

// A temporary copy of what the starters come from: labs/ (the folders' names), kernels/,
// solutions/ and scripts/starters.py.
struct Copy {
    gradetest::TempDir dir;  // removed with everything in it
    fs::path root = dir.path;
    Copy() {
        const fs::path src = test::source("");
        for (const auto &lab : labs_with_masters(src)) fs::create_directories(root / "labs" / lab);
        for (const std::string d : {"kernels", "solutions"})
            fs::copy(src / d, root / d, fs::copy_options::recursive);
        fs::create_directories(root / "scripts");
        fs::copy_file(src / "scripts" / "starters.py", root / "scripts" / "starters.py");
    }
    fs::path master(const std::string &lab) const { return root / "solutions" / (lab + ".cl"); }
    fs::path starter(const std::string &lab) const { return root / "kernels" / (lab + ".cl"); }
};

// The index (0-based) of the first line of a master after `from` that is given code: outside
// every starter block and region, not a blank, a comment or a preprocessor line, and unique.
std::size_t given_code_line(const std::vector<std::string> &lines, std::size_t from) {
    bool inside = false;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string t = trim(lines[i]);
        if (t == "// ---- starter ----") inside = true;
        else if (t == "// ---- end of your code ----") inside = false;
        else if (!inside && i >= from && !t.empty() && t.rfind("//", 0) != 0 && t[0] != '#' &&
                 std::count(lines.begin(), lines.end(), lines[i]) == 1)
            return i;
    }
    FAIL("no given line of code after line " << from + 1);
    return 0;
}

// The 1-based line of `text` in `lines`, which must hold it once.
int line_of(const std::vector<std::string> &lines, const std::string &text) {
    REQUIRE(std::count(lines.begin(), lines.end(), text) == 1);
    return static_cast<int>(std::find(lines.begin(), lines.end(), text) - lines.begin()) + 1;
}

// scripts/starters.py ARGS, the copy of it in `root`: how it ended and what it said.
synclab::ProcessResult run_script(const fs::path &root, std::vector<std::string> args) {
    std::vector<std::string> argv{"/usr/bin/env", "python3", (root / "scripts" / "starters.py").string()};
    argv.insert(argv.end(), args.begin(), args.end());
    synclab::ProcessLimits limits;
    limits.timeout_s = 60;
    const auto r = synclab::run_process(argv, {}, limits);
    REQUIRE_MESSAGE(r.exited, "scripts/starters.py did not run (" << r.describe()
                                                                  << "): is python3 installed?");
    return r;
}

bool contains(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("every starter is what scripts/starters.py writes from its master, TODO counts included") {
    const fs::path root = test::source("");
    REQUIRE(labs_with_masters(root).size() >= 10);
    const auto r = run_script(root, {"--check"});
    CHECK_MESSAGE(r.exit_code == 0, r.err << "(edit the master solutions/NN_topic.cl, then run "
                                             "scripts/starters.py: docs/adding-a-lab.md)");
}

TEST_CASE("scripts/starters.py names a starter that differs from its master and writes it again") {
    Copy copy;
    const std::string lab = "09_interworkgroup_barrier";
    const auto master = read_lines(copy.master(lab)), before = read_lines(copy.starter(lab));
    REQUIRE(run_script(copy.root, {"--check"}).exit_code == 0);

    // A given line changed in the master: --check names the starter's line and writes nothing.
    const std::size_t at = given_code_line(master, 150);
    const int starter_line = line_of(before, master[at]);
    auto changed = master;
    changed[at] += "  // changed once";
    write_lines(copy.master(lab), changed);
    auto check = run_script(copy.root, {"--check"});
    CAPTURE(check.err);
    CHECK(check.exit_code == 1);
    CHECK(contains(check.err, "starters: kernels/" + lab + ".cl:" + std::to_string(starter_line) +
                                  " differs from what solutions/" + lab + ".cl gives"));
    CHECK(read_lines(copy.starter(lab)) == before);

    // A run writes it, with the change in it and nothing else, and --check then passes.
    const auto rewrite = run_script(copy.root, {});
    CHECK(rewrite.exit_code == 0);
    CHECK(rewrite.out == "starters: rewrote kernels/" + lab + ".cl\n");
    auto after = before;
    after[starter_line - 1] += "  // changed once";
    CHECK(read_lines(copy.starter(lab)) == after);
    CHECK(run_script(copy.root, {"--check"}).exit_code == 0);

    // A starter edited by hand is named at its line; a missing one is written.
    write_lines(copy.master(lab), master);
    write_lines(copy.starter(lab), before);
    auto edited = before;
    edited[starter_line + 1] += "  // by hand";
    write_lines(copy.starter(lab), edited);
    check = run_script(copy.root, {"--check"});
    CHECK(check.exit_code == 1);
    CHECK(contains(check.err, "kernels/" + lab + ".cl:" + std::to_string(starter_line + 2) + " differs"));
    fs::remove(copy.starter(lab));
    CHECK(contains(run_script(copy.root, {"--check"}).err, "kernels/" + lab + ".cl is missing"));
    CHECK(run_script(copy.root, {lab.substr(0, 2)}).out == "starters: wrote kernels/" + lab + ".cl\n");
    CHECK(read_lines(copy.starter(lab)) == before);
}

TEST_CASE("scripts/starters.py names a master's misplaced marker and a TODO's wrong line count") {
    Copy copy;
    const std::string lab = "07_atomics";
    const auto master = read_lines(copy.master(lab));
    auto check = [&](const std::vector<std::string> &lines, const std::string &said) {
        write_lines(copy.master(lab), lines);
        const auto r = run_script(copy.root, {"--check", "07"});
        CAPTURE(r.err);
        CHECK(r.exit_code == 1);
        CHECK(contains(r.err, said));
    };
    const int block = line_of(master, "    // TODO (2 lines): add one to count and one to total so that no update is lost.") - 1;
    REQUIRE(trim(master[block - 1]) == "// ---- starter ----");
    const std::string where = "solutions/" + lab + ".cl:";

    auto lines = master;  // a region without its starter block
    lines.erase(lines.begin() + block - 1, lines.begin() + block + 1);
    check(lines, where + std::to_string(block) + ": a region without its \"// ---- starter ----\" block");
    lines = master;  // a region left open
    lines.push_back("    // ---- starter ----");
    check(lines, where + std::to_string(master.size() + 1) + ": a region never ends");
    lines = master;  // a placeholder written as code in the starter block
    lines.insert(lines.begin() + block + 1, "    atomic_inc(count);");
    check(lines, where + std::to_string(block + 2) + ": code in a starter block");
    lines = master;  // a starter block without a TODO
    lines[block] = "    // add one to count and one to total";
    check(lines, where + std::to_string(block) + ": the starter block has no TODO");
    lines = master;  // a count that is not the solution's
    lines[block].replace(lines[block].find("2 lines"), 7, "3 lines");
    check(lines, where + std::to_string(block) + ": the TODO says 3 lines; the solution's part adds 2");
    lines[block].replace(lines[block].find("3 lines"), 7, "about 3 lines");  // within 2 lines
    write_lines(copy.master(lab), lines);
    CHECK_FALSE(contains(run_script(copy.root, {"--check"}).err, "the TODO says"));
}

}  // TEST_SUITE
