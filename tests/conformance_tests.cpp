// The conformance set: every lab gets it from its declaration, with no lab-specific line here.
// The same checks run on a throw-away copy of lab 01 under a new number, to show that adding a
// lab is its folder, kernel, solution and handout and nothing else.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <unistd.h>

#include "grade/cores.hpp"  // dynamic_run_env
#include "grade/labs.hpp"
#include "support.hpp"
#include "synclab/oclgrind.hpp"
#include "synclab/verdict.hpp"
#include "synclab/protocol.hpp"

namespace fs = std::filesystem;

namespace {

struct Tree {
    std::string source, bin;  // the source tree and the folder of its lab executables
};

Tree project() { return {test::source(""), fs::path(test::lab("x")).parent_path().string()}; }

std::string slurp(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

struct Outcome {
    synclab::ProcessResult process;
    synclab::VerdictRecord verdict;
};

// Runs a lab with --verdict and reads the verdict back.
Outcome run(const Tree &t, const grade::Recipe &lab, std::vector<std::string> args,
            const std::map<std::string, std::string> &env = {}) {
    char dir[] = "/tmp/synclab-conformance-XXXXXX";
    REQUIRE(mkdtemp(dir));
    const std::string file = std::string(dir) + "/verdict.tsv";
    std::vector<std::string> argv{(fs::path(t.bin) / lab.executable).string(), "--verdict", file};
    argv.insert(argv.end(), args.begin(), args.end());
    synclab::ProcessLimits limits;
    limits.timeout_s = 300;
    std::map<std::string, std::string> e = env;
    e[synclab::protocol::kKernels] = "";
    e["TMPDIR"] = dir;
    Outcome o{synclab::run_process(argv, e, limits), synclab::parse_verdict(slurp(file))};
    fs::remove_all(dir);
    return o;
}

std::vector<grade::Recipe> labs_of(const Tree &t) {
    std::vector<std::string> problems;
    auto labs = grade::discover_labs(t.bin, &problems);
    for (const auto &p : problems) FAIL_CHECK("a lab executable that does not describe itself: " << p);
    return labs;
}

std::string kernels(const Tree &t, const std::string &which) { return t.source + "/" + which; }

// The declaration with every drawn count at its high end (the longest runs, the most groups), or
// its low end: each grading draws within.
synclab::Declaration drawn_at(const grade::Recipe &lab, bool high) {
    std::vector<unsigned> values;
    for (const auto &w : lab.declaration.draws) values.push_back(high ? w.high : w.low);
    return synclab::with_draws(lab.declaration, values);
}

// A usage error: exit 2, one line on stderr, the verdict says so.
void check_one_line_error(const Outcome &o, synclab::ResultKind kind, const std::string &says) {
    CAPTURE(o.process.err);
    CHECK(o.process.exited);
    CHECK(o.process.exit_code == 2);
    CHECK(test::line_count(o.process.err) == 1);
    CHECK(o.process.err.find(says) != std::string::npos);
    CHECK(o.verdict.kind == kind);
}

void folder_is_complete(const Tree &t, const std::string &dir) {
    CAPTURE(dir);
    for (const std::string &f : {"labs/" + dir + "/main.cpp", "labs/" + dir + "/declaration.hpp",
                                 "kernels/" + dir + ".cl", "solutions/" + dir + ".cl",
                                 "handouts/" + dir + ".md"})
        CHECK_MESSAGE(fs::is_regular_file(fs::path(t.source) / f), "missing " << f);
    CHECK_MESSAGE(fs::is_regular_file(fs::path(t.bin) / ("lab" + dir)), "not built: lab" << dir);
}

void solutions_verify(const Tree &t, const grade::Recipe &lab) {
    for (const auto &dev : test::dynamic_devices()) {
        CAPTURE(lab.executable);
        CAPTURE(dev.name);
        const synclab::Declaration d = drawn_at(lab, true);
        auto runs = d.grading;  // and every drawn race check's twin: a grading may draw any
        runs.insert(runs.end(), d.drawn_grading.begin(), d.drawn_grading.end());
        for (const auto &args : runs) {
            std::vector<std::string> a{"--kernels", kernels(t, "solutions"), "--device", dev.spec()};
            a.insert(a.end(), args.begin(), args.end());
            const Outcome o = run(t, lab, a, grade::dynamic_run_env(lab.declaration));  // as graded
            CAPTURE(o.process.out);
            CAPTURE(o.process.err);
            CHECK(o.process.exit_code == 0);
            CHECK(o.verdict.kind == synclab::ResultKind::Verified);
        }
    }
}

void starter_fails_its_todo(const Tree &t, const grade::Recipe &lab) {
    for (const auto &v : lab.declaration.variants) {
        if (v.demonstration) continue;
        CAPTURE(lab.executable);
        CAPTURE(v.name);
        std::vector<std::string> a{"--kernels", kernels(t, "kernels"), "--variant", v.name};
        const auto first = drawn_at(lab, false).grading.front();
        a.insert(a.end(), first.begin(), first.end());
        const Outcome o = run(t, lab, a, grade::dynamic_run_env(lab.declaration));  // as graded
        CAPTURE(o.process.out);
        CAPTURE(o.process.err);
        if (o.verdict.kind == synclab::ResultKind::Unsupported) {  // this device cannot run it (sub-groups)
            CHECK_FALSE(v.graded);
            continue;
        }
        CHECK(o.process.exit_code == (v.todo ? 1 : 0));
        CHECK(o.verdict.kind == (v.todo ? synclab::ResultKind::Wrong : synclab::ResultKind::Verified));
    }
}

void usage_errors(const Tree &t, const grade::Recipe &lab) {
    CAPTURE(lab.executable);
    const Outcome help = run(t, lab, {"--help"});
    CHECK(help.process.exit_code == 0);
    CHECK(help.process.out.find("--variant") != std::string::npos);
    CHECK(help.process.out.find(lab.declaration.description.substr(0, 20)) != std::string::npos);

    check_one_line_error(run(t, lab, {"--kernels", kernels(t, "solutions"), "--variant", "nope"}),
                         synclab::ResultKind::Usage, "unknown --variant 'nope'");
    check_one_line_error(run(t, lab, {"--kernels", t.source + "/no-such-folder"}), synclab::ResultKind::Usage,
                         "no-such-folder");

    // A syntax error on a known line: one line naming file:line, the verdict names it too.
    char dir[] = "/tmp/synclab-broken-XXXXXX";
    REQUIRE(mkdtemp(dir));
    const std::string text = slurp(kernels(t, "solutions") + "/" + lab.kernel_file);
    int lines = 0;
    for (char c : text) lines += c == '\n';
    std::ofstream(std::string(dir) + "/" + lab.kernel_file) << text << "this is not OpenCL C\n";
    const std::string where = lab.kernel_file + ":" + std::to_string(lines + 1);
    const Outcome broken = run(t, lab, {"--kernels", dir});
    check_one_line_error(broken, synclab::ResultKind::CompileError, where);
    CHECK(broken.verdict.where.find(where) != std::string::npos);
    fs::remove_all(dir);
}

// The --variant value that runs a lab's graded variants as the grader does: all in one list.
std::string graded_variants(const grade::Recipe &lab) {
    std::string all;
    for (const auto &v : lab.variants) all += (all.empty() ? "" : ",") + v;
    return all;
}

// The race check as the grader runs it: the lab's own Oclgrind settings (every check on but its
// declaration's oclgrind_off, same-value writes counted), the findings read from Oclgrind's log.
struct RaceCheck {
    Outcome outcome;
    std::vector<synclab::OclgrindFinding> findings;  // distinct
};
RaceCheck race_check(const Tree &t, const grade::Recipe &lab, const std::string &kernels_dir,
                     const std::string &variant,
                     const std::vector<std::vector<std::string>> &shapes) {
    char dir[] = "/tmp/synclab-race-XXXXXX";
    REQUIRE(mkdtemp(dir));
    const std::string log = std::string(dir) + "/oclgrind.log";
    // Empty values unset: the lab turns on its checks from its own declaration.
    std::map<std::string, std::string> env{{"OCLGRIND_DATA_RACES", ""},
                                           {"OCLGRIND_UNIFORM_WRITES", ""},
                                           {"OCLGRIND_UNINITIALIZED", ""},
                                           {"OCLGRIND_LOG", log}};
    RaceCheck r;
    for (const auto &shape : shapes) {  // as the grader: until one shape finds something
        std::vector<std::string> a{"--kernels", kernels_dir, "--device", "oclgrind", "--variant", variant};
        a.insert(a.end(), shape.begin(), shape.end());
        r.outcome = run(t, lab, a, env);
        r.findings = synclab::oclgrind_findings(slurp(log));
        if (!r.findings.empty() || r.outcome.process.exit_code != 0) break;
    }
    fs::remove_all(dir);
    return r;
}

// The declared race checks, then every member of the drawn set: a grading may draw any of them.
std::vector<std::vector<std::string>> every_race_check(const grade::Recipe &lab) {
    const synclab::Declaration d = drawn_at(lab, true);
    auto shapes = d.race_checks;
    shapes.insert(shapes.end(), d.drawn_checks.begin(), d.drawn_checks.end());
    return shapes;
}

void solutions_clean_on_oclgrind(const Tree &t, const grade::Recipe &lab) {
    CAPTURE(lab.executable);
    REQUIRE_MESSAGE(!lab.declaration.race_checks.empty(), "no race check: " << lab.declaration.race_check_skipped);
    for (const auto &shape : every_race_check(lab)) {
        const RaceCheck r = race_check(t, lab, kernels(t, "solutions"), graded_variants(lab), {shape});
        CAPTURE(shape);
        CAPTURE(r.outcome.process.out);
        CAPTURE(r.outcome.process.err);
        CHECK(r.outcome.process.exit_code == 0);
        CHECK(r.outcome.verdict.kind == synclab::ResultKind::Verified);
        for (const auto &f : r.findings) FAIL_CHECK(f.friendly());
    }
}

using test::Expect;
using test::expectation;

// The first of Oclgrind's kinds in the grader's order, over every graded variant; "pass": none.
// A race check's wrong answer with no finding fails as one, as the grader's does.
std::string kind_of(const RaceCheck &r) {
    int best = synclab::kOclgrindNotFailing;
    for (const auto &f : r.findings) best = std::min(best, synclab::oclgrind_priority(f.kind));
    if (best < synclab::kOclgrindNotFailing) return synclab::kOclgrindFailingKinds[best];
    return r.outcome.verdict.kind == synclab::ResultKind::Wrong ? "wrong-answer" : "pass";
}

}  // namespace

TEST_SUITE("conformance") {

TEST_CASE("every lab folder has its main, declaration, starter, solution, handout and executable") {
    const Tree t = project();
    std::set<std::string> dirs;
    for (const auto &e : fs::directory_iterator(fs::path(t.source) / "labs"))
        if (e.is_directory() && std::regex_match(e.path().filename().string(), std::regex(R"(\d\d_.+)")))
            dirs.insert(e.path().filename().string());
    REQUIRE_FALSE(dirs.empty());
    for (const auto &d : dirs) folder_is_complete(t, d);
    std::set<std::string> described;
    for (const auto &lab : labs_of(t)) described.insert(lab.declaration.dir);
    CHECK(described == dirs);  // every folder a lab that describes itself, and no other
}

TEST_CASE("every lab's solutions verify on every device present, at every grading size") {
    const Tree t = project();
    for (const auto &lab : labs_of(t)) solutions_verify(t, lab);
}

TEST_CASE("every lab's starter fails exactly its TODO variants") {
    const Tree t = project();
    for (const auto &lab : labs_of(t)) starter_fails_its_todo(t, lab);
}

TEST_CASE("every lab: --help, a bad --variant, a missing --kernels folder, a syntax error") {
    const Tree t = project();
    for (const auto &lab : labs_of(t)) usage_errors(t, lab);
}

TEST_CASE("every lab's solutions are clean on Oclgrind") {
    if (!test::have_oclgrind()) return;
    const Tree t = project();
    for (const auto &lab : labs_of(t)) solutions_clean_on_oclgrind(t, lab);
}

TEST_CASE("every lab has a race check on Oclgrind") {
    for (const auto &lab : labs_of(project())) {
        CAPTURE(lab.executable);
        CHECK(!lab.declaration.race_checks.empty());
        CHECK(lab.declaration.race_check_skipped.empty());
    }
}

// The value after `flag` in a race check's arguments, 0 where absent.
std::size_t arg_value(const std::vector<std::string> &args, const std::string &flag) {
    const auto at = std::find(args.begin(), args.end(), flag);
    return at == args.end() || at + 1 == args.end() ? 0 : std::stoul(*(at + 1));
}

TEST_CASE("every lab draws a race check from a set of multi-group shapes the declared ones do not use") {
    for (const auto &lab : labs_of(project())) {
        CAPTURE(lab.executable);
        const auto &drawn = lab.declaration.drawn_checks;
        REQUIRE(drawn.size() >= 3);
        std::set<std::vector<std::string>> distinct(drawn.begin(), drawn.end());
        CHECK(distinct.size() == drawn.size());
        // The work-group sizes (--wg, --block) a set of argument lists names.
        auto sizes_of = [](const std::vector<std::vector<std::string>> &sets) {
            std::set<std::string> out;
            for (const auto &args : sets)
                for (const auto &flag : {"--wg", "--block"}) {
                    const auto at = std::find(args.begin(), args.end(), flag);
                    if (at != args.end() && at + 1 != args.end()) out.insert(*(at + 1));
                }
            return out;
        };
        const auto declared_sizes = sizes_of(lab.declaration.race_checks);
        const auto sizes = sizes_of(drawn);
        for (const auto &size : sizes) CHECK_MESSAGE(declared_sizes.count(size) == 0, size);
        for (const auto &member : drawn) {
            CAPTURE(member);
            CHECK(std::find(lab.declaration.race_checks.begin(), lab.declaration.race_checks.end(), member) == lab.declaration.race_checks.end());
            const std::size_t groups = arg_value(member, "--groups");
            if (lab.declaration.oclgrind_groups) {
                // Groups that meet: each a worker of its own, at a count neither a square nor a
                // power of two (a grid's groups are its tiles; its persistent kernel's, the workers).
                const std::size_t threads = arg_value(member, "--oclgrind-threads");
                CHECK(threads >= 5);
                CHECK(threads <= 7);
                if (groups) CHECK(groups == threads);
            } else if (groups) {
                CHECK(groups >= 5);
            } else {  // -n over --wg: several groups
                CHECK(arg_value(member, "-n") > 2 * arg_value(member, "--wg"));
            }
        }
        CHECK(sizes.size() >= 2);  // more than one work-group size
    }
}

TEST_CASE("every lab grades over a handful of argument sets that vary the work-group size") {
    for (const auto &lab : labs_of(project())) {
        CAPTURE(lab.executable);
        // Sizes and parameters a kernel must not hard-code, yet a class of 200 grades in minutes.
        CHECK(lab.declaration.grading.size() >= 3);
        CHECK(lab.declaration.grading.size() <= 6);
        std::set<std::string> wgs;
        for (const auto &args : lab.declaration.grading) {  // --block: a 2D lab's work-group shape
            auto at = std::find(args.begin(), args.end(), "--wg");
            if (at == args.end()) at = std::find(args.begin(), args.end(), "--block");
            wgs.insert(at == args.end() ? "default" : *(at + 1));
        }
        CHECK(wgs.size() >= 3);
    }
}

// A fixture that says "drawn: every" is one the declared race checks miss (they find nothing) and
// every member of the drawn set finds, so any grading catches it; one that expects a pass passes
// every member. The grader's fixture test (grade_tests.cpp) grades every fixture as a whole.
TEST_CASE("a fixture the declared race checks miss is found by every drawn member, and a right one by none") {
    if (!test::have_oclgrind()) return;
    const Tree t = project();
    std::map<std::string, grade::Recipe> by_file;
    for (const auto &lab : labs_of(t)) by_file[lab.kernel_file] = lab;
    int drawn_every = 0;
    for (const auto &folder : fs::directory_iterator(test::fixture_class()))
        for (const auto &file : fs::directory_iterator(folder.path())) {
            const Expect e = expectation(slurp(file.path().string()));
            const bool right = e.kinds == std::set<std::string>{"pass"};
            if (!e.drawn_every && !right) continue;
            CAPTURE(file.path().string());
            REQUIRE(by_file.count(file.path().filename().string()));
            const grade::Recipe &lab = by_file.at(file.path().filename().string());
            const std::string dir = file.path().parent_path().string();
            CHECK(kind_of(race_check(t, lab, dir, graded_variants(lab), drawn_at(lab, true).race_checks)) == "pass");
            for (const auto &member : lab.declaration.drawn_checks) {
                CAPTURE(member);
                CHECK(e.kinds.count(kind_of(race_check(t, lab, dir, graded_variants(lab), {member}))) == 1);
            }
            drawn_every += e.drawn_every;
        }
    CHECK(drawn_every >= 1);
}

TEST_CASE("every handout's grading section lists its lab's grading runs and race check") {
    const Tree t = project();
    for (const auto &lab : labs_of(t)) {
        CAPTURE(lab.executable);
        const std::string handout = slurp(t.source + "/handouts/" + lab.declaration.dir + ".md");
        const auto at = handout.find("## How it is graded");
        REQUIRE(at != std::string::npos);
        const std::string section = handout.substr(at, handout.find("\n## ", at + 1) - at);
        auto line = [](const std::vector<std::string> &args) {
            std::string s;
            for (const auto &a : args) s += (s.empty() ? "" : " ") + a;
            return s;
        };
        std::string block;
        for (const auto &args : lab.declaration.grading) block += line(args) + "\n";
        CHECK_MESSAGE(section.find("```\n" + block + "```") != std::string::npos,
                      "the grading runs, one per line:\n" << block);
        auto declared = lab.declaration.race_checks;  // as declared: {name} where a count is drawn
        declared.insert(declared.end(), lab.declaration.drawn_checks.begin(), lab.declaration.drawn_checks.end());
        for (const auto &shape : declared) {  // as Markdown code
            std::string flat = section;
            std::replace(flat.begin(), flat.end(), '\n', ' ');
            CHECK_MESSAGE(flat.find("--device oclgrind " + line(shape) + "`") != std::string::npos,
                          "the race check --device oclgrind " << line(shape));
        }
    }
}

TEST_CASE("the README's lab table is the labs' declarations, row for row") {
    const Tree t = project();
    const std::string readme = slurp(t.source + "/README.md");
    std::string want;
    for (const auto &lab : labs_of(t))
        want += "| " + lab.id + " | `" + lab.executable + "` | " + lab.declaration.summary + " |\n";
    const std::string head = "| lab | executable | what it shows |\n| --- | --- | --- |\n";
    CHECK_MESSAGE(readme.find(head + want) != std::string::npos,
                  "README.md's Labs table must be, after its header:\n" << want);
}

}  // TEST_SUITE

// The lecture label: Makefile.lecture builds with g++ alone, no CMake. One build serves both
// halves (the helper layer compiled once, unoptimised: the build is what is tested).
TEST_SUITE("e2e") {

TEST_CASE("Makefile.lecture builds lab 01 with g++ alone, and a copy of lab 01 under a new number is a lab: built, listed by the grader, conformant") {
    const Tree here = project();
    char root_buf[] = "/tmp/synclab-newlab-XXXXXX";
    REQUIRE(mkdtemp(root_buf));
    const fs::path root = root_buf;
    const std::string from = "01_workgroup_reduce", to = "97_copy_reduce";
    // The helper layer and the lecture Makefile as they are, lab 01's files, and lab 01's files
    // again renamed: nothing else is written anywhere.
    fs::copy(fs::path(here.source) / "common", root / "common", fs::copy_options::recursive);
    fs::copy_file(fs::path(here.source) / "Makefile.lecture", root / "Makefile.lecture");
    fs::create_directories(root / "labs");
    fs::copy(fs::path(here.source) / "labs" / from, root / "labs" / to, fs::copy_options::recursive);
    fs::copy(fs::path(here.source) / "labs" / from, root / "labs" / from, fs::copy_options::recursive);
    // and the grader's runner, which runs every child of the grader from the labs' modules
    fs::copy_file(fs::path(here.source) / "labs" / "module_entry.cpp", root / "labs" / "module_entry.cpp");
    fs::create_directories(root / "tools" / "labs-runner");
    fs::copy_file(fs::path(here.source) / "tools" / "labs-runner" / "runner.cpp",
                  root / "tools" / "labs-runner" / "runner.cpp");
    for (const std::string d : {"kernels", "solutions"}) {
        fs::create_directories(root / d);
        fs::copy_file(fs::path(here.source) / d / (from + ".cl"), root / d / (to + ".cl"));
        fs::copy_file(fs::path(here.source) / d / (from + ".cl"), root / d / (from + ".cl"));
    }
    fs::create_directories(root / "handouts");
    fs::copy_file(fs::path(here.source) / "handouts" / (from + ".md"), root / "handouts" / (to + ".md"));

    synclab::ProcessLimits limits;
    limits.timeout_s = 600;
    const auto built = synclab::run_process(
        {"/bin/sh", "-c", "cd '" + root.string() + "' && make -s -j2 -f Makefile.lecture OUT=out CXXFLAGS='-O0 -std=c++20 -Wall' lab01 lab97 grading"},
        {}, limits);
    CAPTURE(built.err);
    REQUIRE(built.exit_code == 0);
    const fs::path bin = root / "out" / "bin";
    // Lab 01, as a lecture shows it: built by the Makefile, it runs and verifies.
    const auto lab01 = synclab::run_process({(bin / "lab01_workgroup_reduce").string(), "--kernels",
                                             (root / "solutions").string(), "--variant", "sync"},
                                            {}, limits);
    CAPTURE(lab01.out);
    CHECK(lab01.exit_code == 0);
    CHECK(lab01.out.find("verified") != std::string::npos);
    fs::copy_file(test::lab("synclab-grade"), bin / "synclab-grade");

    const Tree t{root.string(), bin.string()};
    std::vector<grade::Recipe> labs;
    for (const auto &l : labs_of(t))
        if (l.id == "97") labs.push_back(l);
    REQUIRE(labs.size() == 1);
    const grade::Recipe &lab = labs.front();
    CHECK(lab.id == "97");
    CHECK(lab.kernel_file == to + ".cl");
    folder_is_complete(t, to);
    solutions_verify(t, lab);
    starter_fails_its_todo(t, lab);
    usage_errors(t, lab);
    if (test::have_oclgrind()) solutions_clean_on_oclgrind(t, lab);

    const std::map<std::string, std::string> env{{"SYNCLAB_SOURCE_DIR", root.string()},
                                                 {synclab::protocol::kKernels, ""}};
    const auto list = synclab::run_process({(bin / "synclab-grade").string(), "--list-labs"}, env, limits);
    CAPTURE(list.err);
    CHECK(list.out.find("97  lab97_copy_reduce  97_copy_reduce.cl") != std::string::npos);
    const auto graded = synclab::run_process(
        {(bin / "synclab-grade").string(), "--kernels", (root / "solutions").string(), "--labs",
         "97", "--quick", "--no-oclgrind", "--csv", (root / "g.csv").string(), "--junit",
         (root / "junit").string()},
        env, limits);
    CAPTURE(graded.out);
    CAPTURE(graded.err);
    CHECK(graded.exit_code == 0);
    CHECK(slurp((root / "g.csv").string()).find("solutions,97,pass") != std::string::npos);
    fs::remove_all(root);
}

}  // TEST_SUITE
