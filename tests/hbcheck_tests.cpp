// hbcheck on Oclgrind: the small kernels of tests/hbcheck/, each run by oclgrind-kernel with the
// hbcheck plugin as tests/hbcheck/cases.txt says, and each bug beside its fixed twin: the race
// must be reported (at the lines the manifest names, with the fix tests/hbcheck/fixes.txt names)
// and the twin must be clean.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <unistd.h>

#include "support.hpp"
#include "synclab/protocol.hpp"

namespace fs = std::filesystem;

namespace {

// Where the build puts the plugin: build/lib beside build/bin.
const std::string kPlugin = SYNCLAB_TEST_BIN_DIR "/../lib/libsynclab_hbcheck.so";

std::string cases_dir() { return test::source("tests/hbcheck"); }

struct Case {
    std::string name, sim, expect;  // expect: "race" or "clean"
    int threads = 0;
    int line_a = 0, line_b = 0;     // race:A,B (0: not asked)
    int manifest_line = 0;
};

// cases.txt: "NAME SIMFILE EXPECT THREADS" a line; '#' starts a comment. Fails on a line it cannot
// read: a case misspelt must not silently go unchecked.
std::vector<Case> read_cases() {
    const std::string path = cases_dir() + "/cases.txt";
    std::ifstream in(path);
    REQUIRE_MESSAGE(in, "cannot read " << path);
    std::vector<Case> cases;
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
        std::stringstream ss(line);
        Case c;
        c.manifest_line = n;
        std::string expect, extra;
        if (!(ss >> c.name)) continue;  // blank
        const bool read = static_cast<bool>(ss >> c.sim >> expect >> c.threads) && !(ss >> extra);
        REQUIRE_MESSAGE(read, "cases.txt:" << n << ": want NAME SIMFILE EXPECT THREADS: " << line);
        static const std::regex shape(R"((clean|race)(?::(\d+),(\d+))?)");
        std::smatch m;
        REQUIRE_MESSAGE(std::regex_match(expect, m, shape),
                        "cases.txt:" << n << ": EXPECT is clean, race or race:A,B, not " << expect);
        c.expect = m[1];
        if (m[2].matched) {
            REQUIRE_MESSAGE(c.expect == "race", "cases.txt:" << n << ": lines only for race");
            c.line_a = std::stoi(m[2]);
            c.line_b = std::stoi(m[3]);
        }
        REQUIRE_MESSAGE(c.threads >= 1, "cases.txt:" << n << ": THREADS is at least 1");
        cases.push_back(c);
    }
    REQUIRE_MESSAGE(!cases.empty(), path << " lists no case");
    return cases;
}

// fixes.txt: "NAME A,B FIX" a line: the finding of case NAME at lines A and B (either order) says
// "Fix: FIX", word for word ("-": any whole fix). '#' starts a comment line.
struct Fix {
    std::string name, text;
    int line_a = 0, line_b = 0, manifest_line = 0;
};

std::vector<Fix> read_fixes() {
    const std::string path = cases_dir() + "/fixes.txt";
    std::ifstream in(path);
    REQUIRE_MESSAGE(in, "cannot read " << path);
    std::vector<Fix> fixes;
    static const std::regex shape(R"(^(\S+)\s+(\d+),(\d+)\s+(\S(?:.*\S)?)\s*$)");
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        if (line.empty() || line[0] == '#') continue;
        std::smatch m;
        REQUIRE_MESSAGE(std::regex_match(line, m, shape),
                        "fixes.txt:" << n << ": want NAME A,B FIX");
        fixes.push_back({m[1], m[4], std::stoi(m[2]), std::stoi(m[3]), n});
    }
    return fixes;
}

// One "unordered race" finding of the plugin: the source lines of its two accesses (0: none
// given) and its "Fix:" line.
struct Finding {
    int first = 0, second = 0;
    std::string fix;
    bool at(int a, int b) const {
        return (first == a && second == b) || (first == b && second == a);
    }
};

int line_after(const std::string &block, const std::string &label) {
    const auto at = block.find(label);
    if (at == std::string::npos) return 0;
    static const std::regex line(R"(At line (\d+))");
    std::smatch m;
    const std::string rest = block.substr(at);
    return std::regex_search(rest, m, line) ? std::stoi(m[1]) : 0;
}

std::vector<Finding> findings(const std::string &log) {
    const std::string mark = "unordered race at ";
    std::vector<Finding> out;
    for (auto at = log.find(mark); at != std::string::npos;) {
        const auto next = log.find(mark, at + mark.size());
        const std::string block = log.substr(at, next == std::string::npos ? next : next - at);
        const auto second = block.find("Second entity:");
        std::string fix;
        if (const auto f = block.find("\tFix: "); f != std::string::npos)
            fix = block.substr(f + 6, block.find('\n', f) - (f + 6));
        out.push_back({line_after(block.substr(0, second), "First entity:"),
                       line_after(block, "Second entity:"), fix});
        at = next;
    }
    return out;
}

int count(const std::string &text, const std::string &what) {
    int n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

// The values of the dumped argument `gave_up` (oclgrind-kernel prints "  gave_up[0] = 3").
std::vector<long> gave_up(const std::string &out) {
    static const std::regex entry(R"(gave_up\[\d+\] = (-?\d+))");
    std::vector<long> v;
    for (std::sregex_iterator it(out.begin(), out.end(), entry), end; it != end; ++it)
        v.push_back(std::stol((*it)[1]));
    return v;
}

std::string on_path(const std::string &tool) {
    const char *path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "/usr/bin:/bin");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        const fs::path p = fs::path(dir.empty() ? "." : dir) / tool;
        if (access(p.c_str(), X_OK) == 0) return p.string();
    }
    return "";
}

// Like test::have_oclgrind for what only these tests need: says so, and fails the test where
// SYNCLAB_REQUIRE_OCLGRIND asks for Oclgrind's checks to run.
bool have(bool present, const std::string &missing) {
    if (present) return true;
    if (std::getenv("SYNCLAB_REQUIRE_OCLGRIND"))
        FAIL_CHECK(missing << " (SYNCLAB_REQUIRE_OCLGRIND): its checks cannot run");
    else
        MESSAGE(missing << ": its checks are skipped");
    return false;
}

synclab::ProcessResult run_case(const std::string &oclgrind_kernel, const Case &c) {
    synclab::ProcessLimits limits;
    limits.timeout_s = 120;
    limits.cwd = cases_dir();  // the .sim names its .cl relative to its own folder
    std::map<std::string, std::string> env{
        {"OCLGRIND_PLUGINS", kPlugin},
        {"OCLGRIND_NUM_THREADS", std::to_string(c.threads)}};
    // A caller's Oclgrind settings must not change the verdict ("" unsets): a log file would take
    // the findings away, quick mode runs only two groups, a limit stops reporting.
    for (const char *name : {"OCLGRIND_LOG", "OCLGRIND_QUICK", "OCLGRIND_MAX_ERRORS",
                             "OCLGRIND_DATA_RACES", "OCLGRIND_UNIFORM_WRITES",
                             "OCLGRIND_UNINITIALIZED", "OCLGRIND_INTERACTIVE",
                             "OCLGRIND_BUILD_OPTIONS", "OCLGRIND_INST_COUNTS"})
        env.emplace(name, "");
    return synclab::run_process({oclgrind_kernel, c.sim}, env, limits);
}

}  // namespace

TEST_SUITE("oclgrind") {

TEST_CASE("hbcheck: cases.txt names every .sim of tests/hbcheck once, and every racy kernel has a clean twin") {
    const auto cases = read_cases();
    std::set<std::string> names, sims;
    std::map<std::string, std::set<std::string>> verdicts;  // .cl -> the expectations of its cases
    for (const auto &c : cases) {
        CAPTURE(c.name);
        CHECK_MESSAGE(names.insert(c.name).second, "case name used twice");
        CHECK_MESSAGE(sims.insert(c.sim).second, "a .sim listed twice");
        std::ifstream sim(cases_dir() + "/" + c.sim);
        std::string cl;
        CHECK_MESSAGE(static_cast<bool>(std::getline(sim, cl)), c.sim << " missing or empty");
        CHECK_MESSAGE(fs::exists(cases_dir() + "/" + cl), c.sim << " names " << cl << ", missing");
        verdicts[cl].insert(c.expect);
        if (c.line_a) {
            const int lines = test::line_count([&] {
                std::ifstream in(cases_dir() + "/" + cl);
                std::stringstream s;
                s << in.rdbuf();
                return s.str();
            }());
            CHECK_MESSAGE((c.line_a <= lines && c.line_b <= lines),
                          "race:" << c.line_a << "," << c.line_b << " past the end of " << cl);
        }
    }
    for (const auto &entry : fs::directory_iterator(cases_dir()))
        if (entry.path().extension() == ".sim")
            CHECK_MESSAGE(sims.count(entry.path().filename().string()),
                          entry.path().filename().string() << " is in no case of cases.txt");
    for (const auto &[cl, expects] : verdicts)
        if (expects.count("race"))
            CHECK_MESSAGE(expects.count("clean"), cl << " has a race case but no clean twin");
    // Every race case with lines names the fix of that pair, and every fix names such a case.
    const auto fixes = read_fixes();
    for (const auto &c : cases) {
        if (!c.line_a) continue;
        bool named = false;
        for (const auto &f : fixes)
            named |= f.name == c.name && ((f.line_a == c.line_a && f.line_b == c.line_b) ||
                                          (f.line_a == c.line_b && f.line_b == c.line_a));
        CHECK_MESSAGE(named, "fixes.txt has no fix for " << c.name << " at " << c.line_a << ","
                                                         << c.line_b);
    }
    for (const auto &f : fixes) {
        CAPTURE(f.manifest_line);
        CHECK_MESSAGE(names.count(f.name), "fixes.txt names " << f.name << ", no case");
    }
}

TEST_CASE("hbcheck: each kernel of tests/hbcheck reports the race cases.txt expects, and its twin none") {
    if (!test::have_oclgrind()) return;
    if (!have(fs::exists(kPlugin), "hbcheck plugin not built (" + kPlugin + ")")) return;
    const std::string oclgrind_kernel = on_path("oclgrind-kernel");
    if (!have(!oclgrind_kernel.empty(), "oclgrind-kernel not found on PATH")) return;

    const auto fixes = read_fixes();
    for (const auto &c : read_cases()) {
        SUBCASE(c.name.c_str()) {
            const auto r = run_case(oclgrind_kernel, c);
            INFO("case " << c.name << " (cases.txt:" << c.manifest_line << "): " << c.sim
                         << ", OCLGRIND_NUM_THREADS=" << c.threads << ", expects " << c.expect);
            CAPTURE(r.err);
            CAPTURE(r.out);
            REQUIRE_MESSAGE(!r.timed_out, "oclgrind-kernel " << r.describe());
            REQUIRE_MESSAGE((r.exited && r.exit_code == 0), "oclgrind-kernel " << r.describe());
            REQUIRE_MESSAGE(r.out.find("Argument '") != std::string::npos,
                            "the kernel did not run: nothing dumped");
            REQUIRE_MESSAGE(r.err.find("Loading Oclgrind plugin failed") == std::string::npos,
                            "the plugin did not load");
            // A spin that gave up broke the synchronisation the case is about.
            for (long n : gave_up(r.out))
                CHECK_MESSAGE(n == 0, "a spin gave up (gave_up = " << n << "): too few threads?");
            const auto found = findings(r.err);
            // Nothing else: every Oclgrind message names its kernel, every finding is a race.
            CHECK_MESSAGE(count(r.err, "Kernel:") == static_cast<int>(found.size()),
                          "Oclgrind reported something other than an unordered race");
            if (c.expect == "clean") {
                CHECK_MESSAGE(found.empty(), c.name << ": a clean case reported " << found.size()
                                                    << " unordered race(s)");
            } else {
                CHECK_MESSAGE(!found.empty(), c.name << ": no unordered race reported");
                if (c.line_a) {
                    bool at_lines = false;
                    for (const auto &f : found) at_lines |= f.at(c.line_a, c.line_b);
                    CHECK_MESSAGE(at_lines, c.name << ": no unordered race between lines "
                                                   << c.line_a << " and " << c.line_b);
                }
            }
            // Every finding tells its fix whole, on its line.
            for (const auto &f : found)
                CHECK_MESSAGE(f.fix.size() > 40, "a finding at lines "
                                                     << f.first << "," << f.second
                                                     << " has no whole Fix: line");
            // The fix fixes.txt names, once per pair of lines, word for word.
            for (const auto &x : fixes) {
                if (x.name != c.name) continue;
                CAPTURE(x.manifest_line);
                int at = 0;
                for (const auto &f : found)
                    if (f.at(x.line_a, x.line_b)) {
                        ++at;
                        if (x.text != "-")
                            CHECK_MESSAGE(f.fix == x.text, c.name << " at " << x.line_a << ","
                                                                  << x.line_b << ": " << f.fix);
                    }
                CHECK_MESSAGE(at == 1, c.name << ": " << at << " findings at lines " << x.line_a
                                              << "," << x.line_b << ", want one");
            }
        }
    }
}

}  // TEST_SUITE

namespace {

// tests/hbcheck/schedule/SIM by oclgrind-kernel under hbcheck's schedule (SYNCLAB_SCHEDULE=seed).
synclab::ProcessResult run_scheduled(const std::string &oclgrind_kernel, const std::string &sim,
                                     const std::string &seed, int threads) {
    synclab::ProcessLimits limits;
    limits.timeout_s = 60;
    limits.cwd = cases_dir() + "/schedule";
    std::map<std::string, std::string> env{{"OCLGRIND_PLUGINS", kPlugin},
                                           {"OCLGRIND_NUM_THREADS", std::to_string(threads)},
                                           {synclab::protocol::kSchedule, seed}};
    for (const char *name : {"OCLGRIND_LOG", "OCLGRIND_QUICK", "OCLGRIND_MAX_ERRORS",
                             "OCLGRIND_DATA_RACES", "OCLGRIND_INTERACTIVE"})
        env.emplace(name, "");
    return synclab::run_process({oclgrind_kernel, sim}, env, limits);
}

}  // namespace

TEST_SUITE("oclgrind") {

TEST_CASE("hbcheck's schedule: a lost arrival is a deadlock told with each group's waiting line, its twin finishes, and one seed gives one log") {
    if (!test::have_oclgrind()) return;
    if (!have(fs::exists(kPlugin), "hbcheck plugin not built (" + kPlugin + ")")) return;
    const std::string oclgrind_kernel = on_path("oclgrind-kernel");
    if (!have(!oclgrind_kernel.empty(), "oclgrind-kernel not found on PATH")) return;

    for (int threads : {4, 1}) {
        CAPTURE(threads);
        const auto lost = run_scheduled(oclgrind_kernel, "lost_arrival_lost.sim", "1", threads);
        CAPTURE(lost.err);
        REQUIRE_MESSAGE((lost.exited && lost.exit_code == 0), "oclgrind-kernel " << lost.describe());
        CHECK(count(lost.err, "\nDeadlock: every work-group that runs waits") == 1);
        // Told at once: before any spin ran out of its budget.
        for (long n : gave_up(lost.out)) CHECK(n == 0);
        if (threads == 4) {  // all four wait at the poll (line 17)
            CHECK(count(lost.err, " waits at ") == 4);
            CHECK(count(lost.err, "At line 17 (column") >= 4);
            CHECK(lost.err.find("never started") == std::string::npos);
        } else {  // one worker: group 0 waits for groups that cannot start
            CHECK(count(lost.err, " waits at ") == 1);
            CHECK(lost.err.find("3 group(s) never started: Oclgrind runs 1 at once here") != std::string::npos);
        }
        // The same seed: the same interleaving, so the same report, word for word (the workers'
        // stops after it come in the order the threads wake).
        const auto again = run_scheduled(oclgrind_kernel, "lost_arrival_lost.sim", "1", threads);
        const auto report = [](const std::string &log) { return log.substr(0, log.find("OCLGRIND FATAL")); };
        CHECK(report(again.err) == report(lost.err));
    }
    const auto counted = run_scheduled(oclgrind_kernel, "lost_arrival_counted.sim", "1", 4);
    CAPTURE(counted.err);
    REQUIRE_MESSAGE((counted.exited && counted.exit_code == 0), "oclgrind-kernel " << counted.describe());
    CHECK(counted.err.find("Deadlock") == std::string::npos);
    CHECK(count(counted.err, "Kernel:") == 0);
    for (long n : gave_up(counted.out)) CHECK(n == 0);
    CHECK(count(counted.out, "gave_up[0] = 0") == 1);
}

}  // TEST_SUITE
