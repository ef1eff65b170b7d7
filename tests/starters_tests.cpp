// Given code written once: every starter (kernels/NN_topic.cl) is its solution
// (solutions/NN_topic.cl) but for the regions a student writes, each between the lines
//     // ---- your code ----
//     // ---- end of your code ----
// (the solution's code there, the starter's TODO text), line 1's "(starter)" for "(solution)",
// and the starter's "Your task" paragraph (a comment paragraph that begins "// Your task:", with
// the "//" or blank line before it). scripts/starters.py rewrites the starters from the solutions
// by the same rules; docs/adding-a-lab.md says how to use it.
#include <doctest/doctest.h>

#include "grade_support.hpp"  // TempDir

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "support.hpp"
#include "synclab/process.hpp"

namespace fs = std::filesystem;

namespace {

const std::string kBegin = "// ---- your code ----";
const std::string kEnd = "// ---- end of your code ----";
const std::string kTask = "// Your task:";

std::vector<std::string> read_lines(const fs::path &p) {
    std::ifstream in(p, std::ios::binary);
    REQUIRE_MESSAGE(in, "cannot read " << p.string());
    std::vector<std::string> out;
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

std::string trim(const std::string &s) {
    const auto a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
    return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

struct Line {
    int number;  // 1-based, in its file
    std::string text;
};

// A kernel file cut at its markers: the lines both files must share (the marker lines among
// them), and each region's lines.
struct Cut {
    std::vector<Line> given;
    std::vector<std::vector<Line>> regions;
    std::string problem;  // a marker out of place, a misplaced "Your task": "file:line: what"
};

Cut cut(const std::vector<std::string> &lines, const std::string &name, bool starter) {
    Cut c;
    int open = 0;  // the line of the region's begin marker; 0: outside any region
    bool seen_region = false;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const int n = static_cast<int>(i) + 1;
        const std::string mark = trim(lines[i]);
        auto fail = [&](const std::string &what) {
            c.problem = name + ":" + std::to_string(n) + ": " + what;
            return c;
        };
        if (mark == kBegin) {
            if (open) return fail("a region begins inside the one begun at line " + std::to_string(open));
            c.given.push_back({n, lines[i]});
            c.regions.emplace_back();
            open = n;
            seen_region = true;
        } else if (mark == kEnd) {
            if (!open) return fail("a region ends that never began");
            c.given.push_back({n, lines[i]});
            open = 0;
        } else if (open) {
            c.regions.back().push_back({n, lines[i]});
        } else if (starter && lines[i].rfind(kTask, 0) == 0) {
            // The starter's "Your task" paragraph, and the separator line before it.
            if (seen_region) return fail("\"Your task\" must come before the first region");
            if (c.given.empty() || (c.given.back().text != "//" && !c.given.back().text.empty()))
                return fail("\"Your task\" must follow a \"//\" or blank line");
            c.given.pop_back();
            while (i + 1 < lines.size() && lines[i + 1].rfind("// ", 0) == 0) ++i;
        } else {
            std::string text = lines[i];
            if (starter && n == 1 && text.find("(starter)") != std::string::npos)
                text.replace(text.find("(starter)"), 9, "(solution)");
            c.given.push_back({n, text});
        }
    }
    if (open) c.problem = name + ":" + std::to_string(open) + ": a region never ends";
    return c;
}

// "" when the starter is its solution outside the regions; else what differs first, naming
// the file and line.
std::string compare(const fs::path &starter, const fs::path &solution, const std::string &kname,
                    const std::string &sname) {
    const Cut k = cut(read_lines(starter), kname, true), s = cut(read_lines(solution), sname, false);
    if (!k.problem.empty()) return k.problem;
    if (!s.problem.empty()) return s.problem;
    const std::size_t n = std::min(k.given.size(), s.given.size());
    for (std::size_t i = 0; i < n; ++i)
        if (k.given[i].text != s.given[i].text)
            return kname + ":" + std::to_string(k.given[i].number) + " differs from " + sname + ":" +
                   std::to_string(s.given[i].number) + " outside the student's regions:\n  starter:  " +
                   k.given[i].text + "\n  solution: " + s.given[i].text;
    if (k.given.size() > n)
        return kname + ":" + std::to_string(k.given[n].number) + " has given code that " + sname +
               " lacks: " + k.given[n].text;
    if (s.given.size() > n)
        return sname + ":" + std::to_string(s.given[n].number) + " has given code that " + kname +
               " lacks: " + s.given[n].text;
    return "";
}

// The labs with a kernel: labs/NN_topic folders whose kernels/NN_topic.cl exists.
std::vector<std::string> labs_with_kernels(const fs::path &root) {
    std::vector<std::string> out;
    for (const auto &e : fs::directory_iterator(root / "labs"))
        if (e.is_directory() && std::regex_match(e.path().filename().string(), std::regex(R"(\d\d_.+)")) &&
            fs::is_regular_file(root / "kernels" / (e.path().filename().string() + ".cl")))
            out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

std::string compare_lab(const fs::path &root, const std::string &lab) {
    return compare(root / "kernels" / (lab + ".cl"), root / "solutions" / (lab + ".cl"),
                   "kernels/" + lab + ".cl", "solutions/" + lab + ".cl");
}

// A temporary copy of what the starters come from: labs/ (the folders' names), kernels/,
// solutions/ and scripts/starters.py.
struct Copy {
    gradetest::TempDir dir;  // removed with everything in it
    fs::path root = dir.path;
    Copy() {
        const fs::path src = test::source("");
        for (const auto &lab : labs_with_kernels(src)) fs::create_directories(root / "labs" / lab);
        for (const std::string d : {"kernels", "solutions"})
            fs::copy(src / d, root / d, fs::copy_options::recursive);
        fs::create_directories(root / "scripts");
        fs::copy_file(src / "scripts" / "starters.py", root / "scripts" / "starters.py");
    }
};

void write_lines(const fs::path &p, const std::vector<std::string> &lines) {
    std::ofstream out(p, std::ios::binary);
    for (const auto &l : lines) out << l << "\n";
}

// The index (0-based) of the first line of `lines` after `from` that is given code in both files
// and not a marker, a blank or a comment: a line of code both files hold.
std::size_t given_code_line(const std::vector<std::string> &lines, std::size_t from) {
    bool inside = false;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string t = trim(lines[i]);
        if (t == kBegin) inside = true;
        else if (t == kEnd) inside = false;
        else if (!inside && i >= from && !t.empty() && t.rfind("//", 0) != 0 && t[0] != '#')
            return i;
    }
    FAIL("no given line of code after line " << from + 1);
    return 0;
}

// scripts/starters.py ARGS, the copy of it in `root`: how it ended and what it said.
synclab::ProcessResult run_script(const fs::path &root, std::vector<std::string> args) {
    std::vector<std::string> argv{"/usr/bin/env", "python3", (root / "scripts" / "starters.py").string()};
    argv.insert(argv.end(), args.begin(), args.end());
    synclab::ProcessLimits limits;
    limits.timeout_s = 60;
    return synclab::run_process(argv, {}, limits);
}

bool have_python3() {
    synclab::ProcessLimits limits;
    limits.timeout_s = 30;
    const auto r = synclab::run_process({"/usr/bin/env", "python3", "-c", "pass"}, {}, limits);
    if (r.exited && r.exit_code == 0) return true;
    MESSAGE("python3 not found: scripts/starters.py not run");
    return false;
}

// The line counts a region's TODO text gives: "TODO (3 lines)", "TODO (about 20 lines)",
// "TODO (optional, about 25 lines, ...)" add up; a region with a "fix" (an edit of code the
// starter holds) is not counted.
struct Promise {
    int lines = 0;
    bool about = false, counted = false, fixes = false;
};
Promise promised(const std::vector<Line> &region) {
    Promise p;
    const std::regex todo(R"(TODO \(([^)]*))"), count(R"((about )?(\d+) (lines?|fix(es)?)\b)");
    for (const auto &l : region)
        for (std::sregex_iterator m(l.text.begin(), l.text.end(), todo), end; m != end; ++m) {
            const std::string inside = (*m)[1].str();
            std::smatch c;
            if (!std::regex_search(inside, c, count)) continue;
            if (c[3].str().rfind("fix", 0) == 0) {
                p.fixes = true;
                continue;
            }
            p.counted = true;
            p.about = p.about || c[1].matched;
            p.lines += std::stoi(c[2].str());
        }
    return p;
}

// The lines a student writes in a region: the solution's lines of code there (not blank, not
// only a comment) that the starter's region does not already hold.
int written(const std::vector<Line> &solution, const std::vector<Line> &starter) {
    std::vector<std::string> held;
    for (const auto &l : starter) held.push_back(trim(l.text));
    int n = 0;
    for (const auto &l : solution) {
        const std::string t = trim(l.text);
        if (t.empty() || t.rfind("//", 0) == 0) continue;
        n += std::find(held.begin(), held.end(), t) == held.end();
    }
    return n;
}

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("every starter is its solution outside the student's regions") {
    const fs::path root = test::source("");
    const auto labs = labs_with_kernels(root);
    REQUIRE(labs.size() >= 10);
    for (const auto &lab : labs) {
        CAPTURE(lab);
        REQUIRE_MESSAGE(fs::is_regular_file(root / "solutions" / (lab + ".cl")),
                        "no solutions/" << lab << ".cl");
        const std::string differs = compare_lab(root, lab);
        CHECK_MESSAGE(differs.empty(), differs << "\n(change given code in the solution, then run "
                                               "scripts/starters.py to rewrite the starter)");
        // Both files mark the same regions, and every region of the starter says what to write.
        const auto k = cut(read_lines(root / "kernels" / (lab + ".cl")), lab, true);
        const auto s = cut(read_lines(root / "solutions" / (lab + ".cl")), lab, false);
        CHECK(!k.regions.empty());
        REQUIRE(k.regions.size() == s.regions.size());
        for (const auto &r : k.regions) {
            bool todo = false;
            for (const auto &l : r) todo = todo || l.text.find("TODO") != std::string::npos;
            CHECK_MESSAGE(todo, "kernels/" << lab << ".cl: the region at line "
                                           << (r.empty() ? 0 : r.front().number) << " has no TODO");
        }
    }
}

TEST_CASE("the starter check fails on a copy whose given line was changed and names the file and line") {
    Copy copy;
    const std::string lab = "07_atomics";
    REQUIRE(compare_lab(copy.root, lab).empty());  // the real pair passes

    // A given line changed in the solution: the message names both files and the first line.
    const fs::path sol = copy.root / "solutions" / (lab + ".cl");
    const auto original = read_lines(sol);
    auto changed = original;
    const std::size_t at = given_code_line(changed, 100);
    changed[at] += "  // changed";
    write_lines(sol, changed);
    const auto kernel = read_lines(copy.root / "kernels" / (lab + ".cl"));
    // The starter's line that is the solution's line `at`: the same place among the given lines.
    const Cut kc = cut(kernel, lab, true), sc = cut(original, lab, false);
    REQUIRE(kc.given.size() == sc.given.size());
    int starter_line = 0;
    for (std::size_t i = 0; i < sc.given.size(); ++i)
        if (sc.given[i].number == static_cast<int>(at) + 1) starter_line = kc.given[i].number;
    REQUIRE(starter_line > 0);
    std::string said = compare_lab(copy.root, lab);
    CAPTURE(said);
    CHECK(said.find("kernels/07_atomics.cl:" + std::to_string(starter_line) + " differs from "
                    "solutions/07_atomics.cl:" + std::to_string(at + 1)) == 0);
    CHECK(said.find("// changed") != std::string::npos);

    // The same change in the starter instead.
    write_lines(sol, original);
    auto k2 = kernel;
    k2[starter_line - 1] += "  // changed";
    write_lines(copy.root / "kernels" / (lab + ".cl"), k2);
    said = compare_lab(copy.root, lab);
    CHECK(said.find("kernels/07_atomics.cl:" + std::to_string(starter_line)) == 0);
    write_lines(copy.root / "kernels" / (lab + ".cl"), kernel);

    // A given line the starter lacks, and a region left open.
    changed = original;
    changed.insert(changed.begin() + at, "    barrier(CLK_GLOBAL_MEM_FENCE);");
    write_lines(sol, changed);
    said = compare_lab(copy.root, lab);
    CHECK(said.find(" differs from solutions/07_atomics.cl:" + std::to_string(at + 1)) !=
          std::string::npos);
    changed = original;
    changed.push_back(kBegin);
    write_lines(sol, changed);
    said = compare_lab(copy.root, lab);
    CHECK(said == "solutions/07_atomics.cl:" + std::to_string(original.size() + 1) +
                      ": a region never ends");

    // Inside a region the two files may differ as they like.
    changed = original;
    for (std::size_t i = 0; i < changed.size(); ++i)
        if (trim(changed[i]) == kBegin) {
            changed.insert(changed.begin() + i + 1, "    // another way to write it");
            break;
        }
    write_lines(sol, changed);
    CHECK(compare_lab(copy.root, lab).empty());
}

TEST_CASE("scripts/starters.py rewrites a starter from its solution and the committed starters are what it gives") {
    if (!have_python3()) return;
    // The committed starters are what the script derives.
    const auto here = run_script(test::source(""), {"--check"});
    CAPTURE(here.err);
    CHECK(here.exit_code == 0);

    // A given line changed in a copy's solution: --check names the starter, a run rewrites it, and
    // the rewritten starter passes the check with the change in it.
    Copy copy;
    const std::string lab = "09_interworkgroup_barrier";
    const fs::path sol = copy.root / "solutions" / (lab + ".cl"), kern = copy.root / "kernels" / (lab + ".cl");
    auto lines = read_lines(sol);
    const std::size_t at = given_code_line(lines, 150);
    const std::string was = lines[at];
    lines[at] += "  // changed once";
    write_lines(sol, lines);
    const auto before = read_lines(kern);
    CHECK_FALSE(compare_lab(copy.root, lab).empty());
    const auto check = run_script(copy.root, {"--check"});
    CAPTURE(check.err);
    CHECK(check.exit_code == 1);
    CHECK(check.err.find("kernels/" + lab + ".cl:") != std::string::npos);
    CHECK(read_lines(kern) == before);  // --check rewrites nothing

    const auto rewrite = run_script(copy.root, {});
    CAPTURE(rewrite.out);
    CHECK(rewrite.exit_code == 0);
    CHECK(rewrite.out == "starters: rewrote kernels/" + lab + ".cl\n");
    CHECK(compare_lab(copy.root, lab).empty());
    const auto after = read_lines(kern);
    CHECK(std::count(after.begin(), after.end(), was + "  // changed once") == 1);
    CHECK(after.size() == before.size());
    CHECK(run_script(copy.root, {"--check"}).exit_code == 0);
}

TEST_CASE("every starter's TODO line counts are the solution's") {
    const fs::path root = test::source("");
    for (const auto &lab : labs_with_kernels(root)) {
        const auto k = cut(read_lines(root / "kernels" / (lab + ".cl")), lab, true);
        const auto s = cut(read_lines(root / "solutions" / (lab + ".cl")), lab, false);
        REQUIRE(k.regions.size() == s.regions.size());
        for (std::size_t r = 0; r < k.regions.size(); ++r) {
            const Promise p = promised(k.regions[r]);
            if (!p.counted || p.fixes) continue;
            const int n = written(s.regions[r], k.regions[r]);
            CAPTURE(lab);
            CAPTURE(k.regions[r].front().number);
            CAPTURE(p.lines);
            CAPTURE(n);
            // "about N": within a quarter of N (at least 2 lines either way); otherwise exact.
            if (p.about)
                CHECK_MESSAGE(std::abs(n - p.lines) <= std::max(2, p.lines / 4),
                              "kernels/" << lab << ".cl:" << k.regions[r].front().number << " says about "
                                         << p.lines << " lines; solutions/" << lab << ".cl writes "
                                         << n);
            else
                CHECK_MESSAGE(n == p.lines, "kernels/" << lab << ".cl:" << k.regions[r].front().number
                                                       << " says " << p.lines << " lines; solutions/"
                                                       << lab << ".cl writes " << n);
        }
    }
}

}  // TEST_SUITE
