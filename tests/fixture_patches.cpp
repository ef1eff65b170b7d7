// Fixtures as patches: tests/fixtures/patches/NAME.patch is a unified diff against a file of the
// source tree (its "--- " line names it: solutions/... or kernels/...), with the fixture's
// "// expect:" line among the comment lines before the diff. A patch that no longer applies fails
// with the fixture's name.
#include "support.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace fs = std::filesystem;

namespace test {

namespace {

std::vector<std::string> lines_of(const std::string &text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

std::string read_all(const fs::path &p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + p.string());
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Where the patched fixtures of this process live; removed at exit.
struct Scratch {
    fs::path dir;
    Scratch() {
        dir = fs::temp_directory_path() / ("synclab-fixtures-" + std::to_string(getpid()));
        fs::create_directories(dir);
    }
    ~Scratch() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};
Scratch &scratch() {
    static Scratch s;
    return s;
}

}  // namespace

std::string apply_patch(const std::string &base, const std::string &patch, const std::string &name) {
    const auto in = lines_of(base), p = lines_of(patch);
    std::vector<std::string> out;
    std::size_t next = 0;  // the next line of `in` not yet copied
    int hunk = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {
        if (p[i].rfind("@@ -", 0) != 0) continue;
        ++hunk;
        const std::size_t from = std::stoul(p[i].substr(4)) - 1;  // 1-based in the header
        if (from < next || from > in.size())
            throw std::runtime_error("fixture " + name + ": hunk " + std::to_string(hunk) +
                                     " starts at a line it cannot");
        out.insert(out.end(), in.begin() + next, in.begin() + from);
        next = from;
        for (++i; i < p.size() && p[i].rfind("@@ -", 0) != 0; ++i) {
            const std::string &l = p[i];
            const char op = l.empty() ? ' ' : l[0];
            const std::string text = l.empty() ? "" : l.substr(1);
            if (op == '+') {
                out.push_back(text);
            } else if (op == ' ' || op == '-') {
                if (next >= in.size() || in[next] != text)
                    throw std::runtime_error("fixture " + name + ": hunk " + std::to_string(hunk) +
                                             " does not apply at line " + std::to_string(next + 1) +
                                             " (expected \"" + text + "\")");
                if (op == ' ') out.push_back(in[next]);
                ++next;
            } else if (op != '\\') {
                break;  // the end of the diff
            }
        }
        --i;
    }
    if (!hunk) throw std::runtime_error("fixture " + name + ": no hunk in the patch");
    out.insert(out.end(), in.begin() + next, in.end());
    std::string s;
    for (const auto &l : out) s += l + "\n";
    return s;
}

// The patch's comment lines ("// ...") before the diff, then the patched file.
fs::path materialise(const fs::path &patch_file, const fs::path &into) {
    const std::string name = patch_file.stem().string();
    const std::string patch = read_all(patch_file);
    std::string header, base_rel;
    for (const auto &l : lines_of(patch)) {
        if (l.rfind("--- ", 0) == 0) {
            base_rel = l.substr(4, l.find_first_of(" \t", 4) - 4);
            break;
        }
        if (l.rfind("//", 0) == 0) header += l + "\n";
    }
    if (base_rel.empty()) throw std::runtime_error("fixture " + name + ": no --- line");
    const std::string patched = apply_patch(read_all(source(base_rel)), patch, name);
    const fs::path dir = into / name;
    fs::create_directories(dir);
    std::ofstream(dir / fs::path(base_rel).filename()) << header << patched;
    return dir;
}

std::string fixture(const std::string &name) {
    if (fs::exists(source("tests/fixtures/patches/" + name + ".patch")))
        return materialise(source("tests/fixtures/patches/" + name + ".patch"),
                           scratch().dir / "one").string();
    return source("tests/fixtures/submissions/" + name);
}

std::string fixture_class() {
    const fs::path dir = scratch().dir / "class";
    if (fs::exists(dir)) return dir.string();
    fs::create_directories(dir);
    for (const auto &e : fs::directory_iterator(source("tests/fixtures/submissions")))
        fs::copy(e.path(), dir / e.path().filename(), fs::copy_options::recursive);
    for (const auto &e : fs::directory_iterator(source("tests/fixtures/patches")))
        if (e.path().extension() == ".patch") materialise(e.path(), dir);
    return dir.string();
}

std::string stress_class() {
    const fs::path dir = scratch().dir / "stress";
    if (fs::exists(dir)) return dir.string();
    fs::create_directories(dir);
    for (const auto &e : fs::directory_iterator(source("tests/fixtures/stress")))
        if (e.path().extension() == ".patch") materialise(e.path(), dir);
    return dir.string();
}

}  // namespace test

TEST_SUITE("unit") {

TEST_CASE("a fixture patch applies to its base, and one that no longer applies names itself") {
    const std::string base = "a\nb\nc\nd\n";
    CHECK(test::apply_patch(base, "--- x\n+++ x\n@@ -2,2 +2,2 @@\n b\n-c\n+C\n", "ok") ==
          "a\nb\nC\nd\n");
    try {
        test::apply_patch(base, "--- x\n+++ x\n@@ -2,2 +2,2 @@\n b\n-q\n+C\n", "stale_07");
        FAIL("a stale patch applied");
    } catch (const std::runtime_error &e) {
        CHECK(std::string(e.what()).find("fixture stale_07") != std::string::npos);
    }
    // Every fixture patch of the tree applies.
    for (const auto &e : fs::directory_iterator(test::source("tests/fixtures/patches"))) {
        CAPTURE(e.path());
        CHECK_NOTHROW(test::fixture(e.path().stem().string()));
    }
    CHECK_NOTHROW(test::stress_class());
}

// ctest (doctest_discover_tests) splits a test's name at ';' into names that match no test: each
// half is reported passed, and the test never runs.
TEST_CASE("no test's name holds a semicolon, which would keep ctest from ever running it") {
    const std::regex named(R"re(TEST_CASE\("([^"]*)"\))re");
    for (const auto &e : fs::directory_iterator(test::source("tests"))) {
        if (e.path().extension() != ".cpp") continue;
        const std::string text = test::read_all(e.path());
        for (std::sregex_iterator m(text.begin(), text.end(), named), end; m != end; ++m) {
            CAPTURE(e.path().filename());
            CAPTURE((*m)[1].str());
            CHECK((*m)[1].str().find(';') == std::string::npos);
        }
    }
}

}  // TEST_SUITE
