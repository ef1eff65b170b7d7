// Which finding leads: the one nearest the cause, the same in the lab's printout, its verdict and
// the grader's row. A missing group barrier before the local races it lets happen; the student's
// code before given code; the acquire fence after the last read that needs it, whatever the
// schedule.
#include <doctest/doctest.h>

#include <cstdio>
#include <regex>
#include <unistd.h>

#include "grade_support.hpp"
#include "hbcheck_launch.hpp"
#include "support.hpp"
#include "synclab/oclgrind.hpp"
#include "synclab/verdict.hpp"

namespace fs = std::filesystem;

namespace {

using synclab::OclgrindFinding;

OclgrindFinding made(const std::string &kind, std::vector<int> lines, const std::string &fix = "",
                     const std::string &group2 = "0,0,0") {
    OclgrindFinding f;
    f.kind = kind;
    f.kernel = "k";
    f.file = "k.cl";
    f.line = lines.front();
    f.lines = lines;
    f.fix = fix;
    f.entities = {{0, 0, "0,0,0", "writes", lines.front()}, {1, 0, group2, "reads", lines.back()}};
    return f;
}

// Lines 3 to 6 are the student's.
const std::string kSource = "a\nb\n// ---- your code ----\nc\nd\n// ---- end of your code ----\ne\nf\n";

const std::string kLab = "lab09_interworkgroup_barrier", kFile = "/09_interworkgroup_barrier.cl";

// The grader's race-check shape for lab 09.
std::vector<std::string> shape(const std::string &variant) {
    return {"--variant", variant, "-n", "64", "--wg", "16", "--steps", "3", "--groups", "4",
            "--trials", "1"};
}

// The lab on Oclgrind: the first finding it printed for `variant`, and the first it recorded.
struct Told {
    std::string printed, recorded;
};
Told lab_first(const std::string &dir, const std::string &variant, std::vector<std::string> args) {
    char path[] = "/tmp/synclab-order-XXXXXX";
    const int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    close(fd);
    args.insert(args.begin(), {"--kernels", dir, "--device", "oclgrind"});
    args.insert(args.end(), {"--verdict", path});
    const auto r = test::run_lab(kLab, args, {{"OCLGRIND_LOG", ""}, {"OCLGRIND_MAX_ERRORS", ""}});
    CAPTURE(r.out);
    CAPTURE(r.err);
    REQUIRE_FALSE(r.timed_out);
    const auto v = synclab::parse_verdict(gradetest::read_file(path));
    std::remove(path);
    Told t;
    const std::string head = "Oclgrind: " + variant + " WRONG: ";
    if (const auto at = r.out.find(head); at != std::string::npos)
        t.printed = r.out.substr(at + head.size(), r.out.find('\n', at) - at - head.size());
    for (const auto &f : v.findings)
        if (f.variant == variant && t.recorded.empty()) t.recorded = f.message;
    return t;
}

// The line an acquire-fence hint names (0: none).
int acquire_line(const std::string &message) {
    static const std::regex at(R"(an acquire fence after the (?:read|atomic) at line (\d+))");
    std::smatch m;
    return std::regex_search(message, m, at) ? std::stoi(m[1]) : 0;
}

// The hint of the missing group barrier before the master arrives at `line`.
std::string barrier_before(int line) {
    return "a barrier(CLK_GLOBAL_MEM_FENCE) in every group before its master work-item arrives "
           "(the atomic at line " + std::to_string(line) + ")";
}

bool starts_with(const std::string &s, const std::string &head) { return s.rfind(head, 0) == 0; }

// The first message of `text` names one of the fixture's two plain flag stores as the cause.
bool names_plain_store(const std::string &text, const std::string &file) {
    const std::string first = text.substr(0, text.find("; memory-model race"));
    for (const char *store : {"in[me] = goal;", "get_local_size(0)) out[g] = goal;"})
        if (gradetest::contains(first, "the plain store at line " +
                                           std::to_string(test::line_of(file, store)) + " sets"))
            return true;
    return false;
}

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("a memory-model finding whose fix is a group barrier leads the local races of its kernel, one whose fix is a fence does not") {
    const auto race = made("data-race", {4, 5});
    const auto barrier = made("memory-model", {1, 1}, "a barrier(CLK_GLOBAL_MEM_FENCE) in every "
                              "group before its master work-item arrives (the atomic at line 4)", "1,0,0");
    std::vector<OclgrindFinding> found{race, barrier};
    synclab::order_findings(found, kSource, "k.cl");
    CHECK(found.front().kind == "memory-model");
    // A fence's fix does not make the group wait: the race keeps its place.
    auto fence = barrier;
    fence.fix = "an acquire fence after the atomic at line 4 would order them";
    found = {race, fence};
    synclab::order_findings(found, kSource, "k.cl");
    CHECK(found.front().kind == "data-race");
    // Nor does a group barrier lead the races of another kernel.
    auto other = barrier;
    other.kernel = "other";
    found = {race, other};
    synclab::order_findings(found, kSource, "k.cl");
    CHECK(found.front().kind == "data-race");
}

TEST_CASE("a finding wholly in given code follows one in the student's code, one whose fix names the student's line does not") {
    const auto given = made("data-race", {1, 8});
    const auto mine = made("uninitialized", {4});
    std::vector<OclgrindFinding> found{given, mine};
    synclab::order_findings(found, kSource, "k.cl");
    CHECK(found.front().kind == "uninitialized");
    // Given lines with a fix in the student's code: the student's finding, kind order holds.
    auto fixed_there = made("memory-model", {1, 1}, "the plain store at line 5 hands over a word");
    found = {mine, fixed_there};
    synclab::order_findings(found, kSource, "k.cl");
    CHECK(found.front().kind == "memory-model");
    // A file that marks no parts, or another file: kind order alone.
    found = {given, mine};
    synclab::order_findings(found, "a\nb\nc\nd\ne\nf\ng\nh\n", "k.cl");
    CHECK(found.front().kind == "data-race");
    found = {given, mine};
    synclab::order_findings(found, kSource, "other.cl");
    CHECK(found.front().kind == "data-race");
    CHECK(synclab::student_parts(kSource) == std::vector<std::pair<int, int>>{{3, 6}});
}

// A generation barrier of two groups: each adds to one counter, then polls it. The one that adds
// last polls the word it wrote itself, which still carries the other's release: the acquire
// fence belongs after the poll, where it covers the add too, as for the group that adds first.
TEST_CASE("hbcheck model: a missing acquire is named after the last read that needs it, a poll of the group's own add included") {
    using namespace hbtest;
    for (bool acquire : {true, false}) {
        CAPTURE(acquire);
        Launch l(2, 1);
        const auto y = l.item(0), x = l.item(1);
        l.write(y, kData, kWriteData);
        l.fence(y);
        l.rmw(y, kCounter, kArrive);
        l.fence(x);
        l.rmw(x, kCounter, kBump);  // reads y's release
        l.poll(x, kCounter, kPollGen);
        if (acquire) l.fence(x);
        l.read(x, kData, kReadData);
        CHECK(l.clean() == acquire);
        if (!acquire) {
            CHECK(l.first().cause == hbcheck::Cause::AcquireMissing);
            CHECK(l.first().site == kPollGen);
        }
    }
}

}  // TEST_SUITE("unit")

TEST_SUITE("oclgrind") {

TEST_CASE("lab 09 without the group barrier before arriving leads with that barrier, not the local race it causes, and the solution is clean") {
    if (!test::have_oclgrind()) return;
    const std::string dir = test::fixture("arrive_no_barrier_09");
    const int inc = test::line_of(dir + kFile, "atomic_inc(&ctl[COUNT])");
    for (const auto &args : {shape("centralized"), std::vector<std::string>{"--variant", "centralized"}}) {
        const auto t = lab_first(dir, "centralized", args);
        CAPTURE(t.printed);
        CHECK(starts_with(t.printed, "memory-model race in kernel barrierCentralized"));
        CHECK(gradetest::contains(t.printed, barrier_before(inc)));
        CHECK(t.recorded == t.printed);
    }
    CHECK(lab_first(test::source("solutions"), "centralized", shape("centralized")).printed.empty());
}

TEST_CASE("lab 09's plain flag store leads with a finding in the student's code, and the solution is clean") {
    if (!test::have_oclgrind()) return;
    const std::string dir = test::fixture("flag_plain_store_09");
    const auto parts = synclab::student_parts(gradetest::read_file(dir + kFile));
    const auto t = lab_first(dir, "decentralized", shape("decentralized"));
    CAPTURE(t.printed);
    CHECK(names_plain_store(t.printed, dir + kFile));
    // Its place or its fix is in the student's part.
    static const std::regex named(R"((?:\.cl:|line )(\d+))");
    bool in_part = false;
    for (std::sregex_iterator m(t.printed.begin(), t.printed.end(), named), end; m != end; ++m)
        for (const auto &[first, last] : parts)
            in_part |= std::stoi((*m)[1]) >= first && std::stoi((*m)[1]) <= last;
    CHECK(in_part);
    CHECK(t.recorded == t.printed);
    CHECK(lab_first(test::source("solutions"), "decentralized", shape("decentralized")).printed.empty());
}

TEST_CASE("a missing acquire fence is named after the poll, in every schedule and shape, and the solution is clean") {
    if (!test::have_oclgrind()) return;
    struct Case {
        const char *fixture, *variant, *poll;
    };
    for (const Case c : {Case{"generation_no_acquire_09", "generation", "while (!((old ^ ctl[COUNT]) & FLIP))"},
                         Case{"centralized_no_acquire_09", "centralized", "while (ctl[GEN] == gen"}}) {
        CAPTURE(c.fixture);
        const std::string dir = test::fixture(c.fixture);
        const int poll = test::line_of(dir + kFile, c.poll);
        std::vector<std::vector<std::string>> runs{{"--variant", c.variant}};
        for (const char *s : {"1", "2", "3", "5"}) {
            runs.push_back(shape(c.variant));
            runs.back().insert(runs.back().end(), {"--schedule", s});
        }
        for (const auto &args : runs) {
            const auto t = lab_first(dir, c.variant, args);
            CAPTURE(t.printed);
            CHECK(acquire_line(t.printed) == poll);
            CHECK(t.recorded == t.printed);
        }
        CHECK(lab_first(test::source("solutions"), c.variant, shape(c.variant)).printed.empty());
    }
}

}  // TEST_SUITE("oclgrind")

TEST_SUITE("grade") {

TEST_CASE("the grader's row leads with the finding the lab leads with: the cause, in the student's code, the fence after the poll") {
    if (!test::have_oclgrind()) return;
    gradetest::TempDir out;
    const std::string cls = out / "class";
    for (const char *f : {"arrive_no_barrier_09", "flag_plain_store_09", "generation_no_acquire_09"}) {
        fs::create_directories(fs::path(cls) / f);
        fs::copy_file(test::fixture(f) + kFile, cls + "/" + f + kFile);
    }
    fs::create_directories(fs::path(cls) / "solution");
    fs::copy_file(test::source("solutions") + kFile, cls + "/solution" + kFile);
    const auto r = gradetest::run_grader({"--class", cls, "--labs", "09", "--seed", "7", "--csv",
                                          out / "gradebook.csv"}, 590);
    CAPTURE(r.out);
    REQUIRE_FALSE(r.timed_out);
    const auto rows = gradetest::by_student(gradetest::read_gradebook(out / "gradebook.csv"));
    // The first Oclgrind finding of a row: after "Oclgrind: " where the dynamic runs failed.
    auto first = [&](const std::string &student) {
        std::string reason = rows.at(student).reason;
        if (const auto at = reason.find("; Oclgrind: "); at != std::string::npos)
            reason = reason.substr(at + 12);
        return reason;
    };
    const std::string arrive = cls + "/arrive_no_barrier_09" + kFile;
    CHECK(starts_with(first("arrive_no_barrier_09"), "memory-model race in kernel barrierCentralized"));
    CHECK(gradetest::contains(first("arrive_no_barrier_09"),
                              barrier_before(test::line_of(arrive, "atomic_inc(&ctl[COUNT])"))));
    const std::string flag = cls + "/flag_plain_store_09" + kFile;
    CHECK(starts_with(first("flag_plain_store_09"), "memory-model race in kernel barrierDecentralized"));
    CHECK(names_plain_store(first("flag_plain_store_09"), flag));
    const std::string gen = cls + "/generation_no_acquire_09" + kFile;
    CHECK(acquire_line(first("generation_no_acquire_09")) ==
          test::line_of(gen, "while (!((old ^ ctl[COUNT]) & FLIP))"));
    CHECK(rows.at("solution").kind == "pass");
    CHECK(gradetest::contains(rows.at("solution").reason, "Oclgrind: no findings"));
}

}  // TEST_SUITE("grade")
