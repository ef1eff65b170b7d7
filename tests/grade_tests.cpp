// synclab-grade: every fixture graded into the right class, the solutions passing, the starter
// failing only its TODO, and a class of 50 graded in isolation with an incremental gradebook.
#include <doctest/doctest.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <poll.h>
#include <pty.h>
#include <set>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "grade_support.hpp"
#include "synclab/verdict.hpp"
#include "synclab/protocol.hpp"
// grade_lab() itself, to watch its stop flag at work without a signal in this process.
#include "grade/lab_grading.hpp"

extern char **environ;

namespace fs = std::filesystem;


using namespace gradetest;

TEST_SUITE("grade") {

using test::Expect;

// (student, lab) -> what the fixture says.
std::map<std::pair<std::string, std::string>, Expect> fixture_expectations(const std::string &root) {
    std::map<std::pair<std::string, std::string>, Expect> out;
    for (const auto &student : fs::directory_iterator(root))
        for (const auto &file : fs::directory_iterator(student.path())) {
            CAPTURE(file.path());
            out[{student.path().filename().string(), file.path().filename().string().substr(0, 2)}] =
                test::expectation(read_file(file.path().string()));
        }
    return out;
}

TEST_CASE("the grader grades every fixture as the fixture says and leaves the folder untouched" * doctest::test_suite("e2e")) {
    const std::string folder = test::fixture_class();
    const auto expected = fixture_expectations(folder);
    std::set<std::string> labs;
    for (const auto &[key, e] : expected) labs.insert(key.second);
    std::string lab_list;
    for (const auto &l : labs) lab_list += (lab_list.empty() ? "" : ",") + l;
    const auto before = listing(folder);
    TempDir out;
    const bool oclgrind = test::have_oclgrind();
    // Without Oclgrind the labs whose groups meet are refused unless --no-oclgrind says so.
    std::vector<std::string> args{"--class", folder, "--labs", lab_list, "--timeout", "10", "--seed",
                                  "7", "--csv", out / "gradebook.csv", "--junit", out / "junit"};
    if (!oclgrind) args.push_back("--no-oclgrind");
    const auto r = run_grader(args, 590);
    CAPTURE(r.out);
    CAPTURE(r.err);
    REQUIRE_FALSE(r.timed_out);
    REQUIRE(r.exited);
    CHECK(r.exit_code == 1);  // some fixtures fail
    std::map<std::pair<std::string, std::string>, Row> rows;
    for (const auto &row : read_gradebook(out / "gradebook.csv")) rows[{row.student, row.lab}] = row;
    // The labs whose groups meet: their dynamic runs alone never pass (their fences unjudged).
    std::set<std::string> meet;
    for (const auto &lab : grade::discover_labs(fs::path(test::lab(kGrader)).parent_path().string(), nullptr))
        if (lab.declaration.oclgrind_groups) meet.insert(lab.id);
    for (const auto &[key, want] : expected) {
        CAPTURE(key.first);
        CAPTURE(key.second);
        REQUIRE(rows.count(key));
        const Row &row = rows.at(key);
        CAPTURE(row.reason);
        const auto &kinds = oclgrind ? want.kinds : want.without_oclgrind;
        if (!kinds.count("any")) CHECK(kinds.count(row.kind) == 1);
        // The dynamic runs' kind: a failure of theirs stays the grade, the race check only says
        // why; a row failed on Oclgrind had every dynamic run right.
        static const std::set<std::string> dynamic_kinds{"compile-error", "wrong-answer", "crash",
                                                         "timeout", "error"};
        const bool dynamic_failed = dynamic_kinds.count(row.kind) && !contains(row.reason, "on Oclgrind:");
        if (!want.without_oclgrind.count("any"))
            CHECK(want.without_oclgrind.count(dynamic_failed ? row.kind : meet.count(key.second) ? "error" : "pass") == 1);
        CHECK(row.grade == (row.kind == "pass" ? "pass" : "fail"));
        // A compile error's file:line is the build's, with or without Oclgrind.
        if (!want.reason.empty() && (oclgrind || row.kind == "compile-error"))
            CHECK(contains(row.reason, want.reason));
        if (key.second == "01")
            CHECK(contains(read_file(out / ("junit/" + key.first + ".xml")),
                           row.kind == "pass" ? "<testcase" : "<failure type=\"" + row.kind));
    }
    // A lab whose file a student did not hand in is "missing", never a failure of another kind.
    for (const auto &[key, row] : rows)
        if (!expected.count(key)) CHECK(row.kind == "missing");
    if (oclgrind) {  // the Oclgrind finding also explains the CPU's wrong answers
        CHECK(contains(rows.at({"missing_loop_barrier_01", "01"}).reason, "01_workgroup_reduce.cl:"));
        CHECK(contains(rows.at({"wild_write", "01"}).reason, "out-of-bounds"));
    }
    CHECK(contains(r.out, "FAIL timeout"));
    // The lab's watchdog names the kernel it stopped.
    CHECK(contains(rows.at({"infinite_loop", "01"}).reason, "kernel reduceWithSync never finished"));
    CHECK(listing(folder) == before);
}

// The drawn race check is the one the handed-in text draws: two copies of lab 01's solution that
// differ only in a comment, chosen to draw different members, each meet their own.
TEST_CASE("the grader runs the drawn race check the submitted text draws, a comment changing it") {
    if (!test::have_oclgrind()) return;
    const auto labs = grade::discover_labs(fs::path(test::lab(kGrader)).parent_path().string(), nullptr);
    const auto lab = std::find_if(labs.begin(), labs.end(), [](const auto &l) { return l.id == "01"; });
    REQUIRE(lab != labs.end());
    const std::string solution = read_file(test::source("solutions/01_workgroup_reduce.cl"));
    const auto drawn_by = [&](const std::string &text) { return grade::race_checks_of(*lab, "7", text).back(); };
    std::string other = solution;
    for (int i = 0; drawn_by(other) == drawn_by(solution); ++i) {
        REQUIRE(i < 100);
        other = solution + "// " + std::to_string(i) + "\n";
    }
    TempDir dir;
    write_text(dir.path / "class/a/01_workgroup_reduce.cl", solution);
    write_text(dir.path / "class/b/01_workgroup_reduce.cl", other);
    const auto r = run_grader({"--class", dir / "class", "--labs", "01", "--seed", "7", "--draw-key", "7",
                               "--csv", dir / "g.csv", "--junit", dir / "junit"});
    CAPTURE(r.out);
    CHECK(r.exit_code == 0);
    auto line = [](const std::vector<std::string> &args) {
        std::string s;
        for (const auto &a : args) s += (s.empty() ? "" : " ") + a;
        return "--device oclgrind " + s;
    };
    for (const auto &[student, text] : {std::pair{"a", solution}, std::pair{"b", other}}) {
        CAPTURE(student);
        const std::string junit = read_file(dir / ("junit/" + std::string(student) + ".xml"));
        CHECK(contains(junit, line(drawn_by(text))));
        CHECK_FALSE(contains(junit, line(drawn_by(text == solution ? other : solution))));
    }
    // A course's own --draw-key draws afresh: a key under which a's text draws another member.
    std::string key = "course";
    for (int i = 0; grade::race_checks_of(*lab, key, solution).back() == drawn_by(solution); ++i) {
        REQUIRE(i < 100);
        key = "course " + std::to_string(i);
    }
    const auto keyed = run_grader({"--kernels", dir / "class/a", "--labs", "01", "--seed", "7",
                                   "--draw-key", key, "--junit", dir / "keyed"});
    CAPTURE(keyed.out);
    CHECK(keyed.exit_code == 0);
    const std::string junit = read_file(dir / "keyed/a.xml");
    CHECK(contains(junit, line(grade::race_checks_of(*lab, key, solution).back())));
    CHECK_FALSE(contains(junit, line(drawn_by(solution))));
}

// A lab whose dynamic runs failed is graded already: its declared race checks still run to say
// why, in one process, up to the first that fails too (a kernel wrong on Oclgrind without a
// finding has no race to blame), and no drawn member runs; the same lab right runs one (the test
// above).
TEST_CASE("a lab already failed by its dynamic runs meets its declared race checks and no drawn one") {
    if (!test::have_oclgrind()) return;
    const auto labs = grade::discover_labs(fs::path(test::lab(kGrader)).parent_path().string(), nullptr);
    const auto lab = std::find_if(labs.begin(), labs.end(), [](const auto &l) { return l.id == "01"; });
    REQUIRE(lab != labs.end());
    REQUIRE_FALSE(lab->declaration.drawn_checks.empty());
    auto line = [](const std::vector<std::string> &args) {
        std::string s;
        for (const auto &a : args) s += (s.empty() ? "" : " ") + a;
        return "--device oclgrind " + s;
    };
    TempDir dir;
    for (const char *f : {"constant_answer", "correct_for_loop"}) copy_fixture(f, dir.path / "class" / f);
    const auto r = run_grader({"--class", dir / "class", "--labs", "01", "--seed", "7", "--csv",
                               dir / "g.csv", "--junit", dir / "junit"});
    CAPTURE(r.out);
    CHECK(r.exit_code == 1);
    const std::string failed = read_file(dir / "junit/constant_answer.xml"),
                      right = read_file(dir / "junit/correct_for_loop.xml");
    CHECK(contains(failed, "<failure type=\"wrong-answer\""));
    // constant_answer is wrong on Oclgrind too, with no finding: its first check ends them.
    const auto &declared = lab->declaration.race_checks;
    CHECK(contains(failed, line(declared.front())));
    for (std::size_t i = 1; i < declared.size(); ++i) CHECK_FALSE(contains(failed, line(declared[i])));
    int drawn_failed = 0, drawn_right = 0;
    for (const auto &member : lab->declaration.drawn_checks) {
        drawn_failed += contains(failed, line(member));
        drawn_right += contains(right, line(member));
    }
    CHECK(drawn_failed == 0);
    CHECK(drawn_right == 1);
}

TEST_CASE("grading the solutions passes every gradable lab") {
    TempDir out;
    // The grader's own POCL setting does not reach the labs: they run on two compute units.
    const auto r = run_grader({"--kernels", test::source("solutions"), "--timeout", "30", "--csv",
                          out / "g.csv", "--junit", out / "junit"}, 590,
                              {{"POCL_CPU_MAX_CU_COUNT", "1"}, {"POCL_MAX_PTHREAD_COUNT", "1"}});
    CAPTURE(r.out);
    CAPTURE(r.err);
    CHECK(r.exit_code == 0);
    const auto rows = read_gradebook(out / "g.csv");
    REQUIRE_FALSE(rows.empty());
    bool lab01 = false;
    for (const auto &row : rows) {
        CAPTURE(row.reason);
        CHECK(row.grade == "pass");
        lab01 |= row.lab == "01";
    }
    CHECK(lab01);
    if (test::have_oclgrind()) CHECK(contains(rows.front().reason, "Oclgrind: no findings"));
    const std::string junit = read_file(out / "junit/solutions.xml");
    CHECK(contains(junit, "failures=\"0\""));
    // Lab 09 names the compute units it found in each run's first line (Oclgrind's: 1).
    CHECK(contains(junit, "resident at once (2 compute units)"));
}

TEST_CASE("with a list of devices every dynamic run happens on each of them") {
    std::string list;
    for (const auto &d : test::dynamic_devices()) {
        if (!list.empty()) list += ",";
        list += d.spec();
    }
    const std::size_t n = test::dynamic_devices().size();
    TempDir out;
    const auto r = run_grader({"--kernels", test::source("solutions"), "--labs", "01", "--device", list,
                          "--no-oclgrind", "--csv", out / "g.csv", "--junit", out / "junit"});
    CAPTURE(r.out);
    CHECK(r.exit_code == 0);
    const auto rows = read_gradebook(out / "g.csv");
    REQUIRE(rows.size() == 1);
    // One run per grading argument set of lab 01's declaration, and its drawn twin, on each device.
    std::size_t per_device = 0;
    for (const auto &lab : grade::discover_labs(fs::path(test::lab(kGrader)).parent_path().string(), nullptr))
        if (lab.id == "01") per_device = lab.declaration.grading.size() + !lab.declaration.drawn_grading.empty();
    REQUIRE(per_device > 1);
    CHECK(contains(rows[0].reason, std::to_string(per_device * n) + " run(s) right"));
    // The starter fails, and the reason names the device the failing run used.
    const auto bad = run_grader({"--kernels", test::source("kernels"), "--labs", "01", "--device", list,
                            "--no-oclgrind", "--csv", out / "k.csv", "--junit", out / "junit"});
    CHECK(bad.exit_code == 1);
    CHECK(contains(read_gradebook(out / "k.csv").at(0).reason,
                   "--device " + test::dynamic_devices().front().spec()));
}

// Scripted labs named lab9N_x, and as synclab-labs a scripted runner of them: FAKE_9N_x lists how
// each of that lab's runs ends (ok, wrong, crash, unsupported, quit: exit 0 with no verdict and
// runs left, hang: as its watchdog ends it, or later: a crash unless the lab is its process's
// first, as if an earlier lab had left the process broken); FAKE_BUILD_PER_SIZE makes it declare
// build-per-size. Every run logs "pid lab step", the POCL settings it was given and its --seed
// ("-": none), and says its step on stderr. FAKE_STALE=9N_x: the runner describes that lab otherwise
// than its executable does; FAKE_NOLOAD=9N_x: the runner cannot load that lab for a grading run
// (and for --describe too with FAKE_NOPROBE).
const char *kScriptedLabs = R"SH(#!/bin/bash
me=$(basename "$0")
describe() {
  printf 'synclab-lab\t1\ndir\t%s\nsummary\ts\ndescription\td\nvariant\ta\tk\t-\n' "$1"
  local steps=FAKE_$1
  for step in ${!steps}; do printf 'grade\t--step\t%s\n' "$step"; done
  [ -z "$FAKE_BUILD_PER_SIZE" ] || printf 'build-per-size\n'
}
one() {
  local lab=$1 verdict= step= seed=- i
  shift
  local args=("$@")
  for ((i = 0; i < ${#args[@]}; ++i)); do
    case ${args[i]} in
      --verdict) verdict=${args[i+1]} ;; --step) step=${args[i+1]} ;; --seed) seed=${args[i+1]} ;;
    esac
  done
  echo "$$ ${lab%%_*} $step ${POCL_WORK_GROUP_SPECIALIZATION-unset} ${POCL_CPU_MAX_CU_COUNT-unset}/${POCL_MAX_PTHREAD_COUNT-unset}/${POCL_CPU_MIN_CU_COUNT-unset} $seed" >> "$FAKE_LOG"
  echo "lab$lab says $step" >&2
  printf 'synclab-verdict\t1\nseed\t5\n' > "$verdict"
  case $step in
    ok) printf 'variant\ta\tverified\t-\nresult\t0\tverified\t-\t-\n' >> "$verdict" ;;
    wrong) printf 'variant\ta\twrong\tk: 3 sums wrong\nresult\t1\twrong\t-\t-\n' >> "$verdict"
           echo "lab$lab: WRONG" >&2; return 1 ;;
    crash) kill -SEGV $$ ;;
    unsupported) printf 'result\t2\tunsupported\t-\tgroups of 1024 are above this device'"'"'s 256\n' >> "$verdict"; return 2 ;;
    quit) rm "$verdict"; exit 0 ;;
    hang) printf 'result\t1\ttimeout\t-\tstopped after 30 s\n' >> "$verdict"; exit 1 ;;  # its watchdog
    forge) echo "== run $n of $n at inf s" >&2  # a kernel's text that looks like the runner's
           printf 'variant\ta\tverified\t-\nresult\t0\tverified\t-\t-\n' >> "$verdict" ;;
    slow) skew=$((skew + 1000000000))  # 1000 s on the runner's clock, which its next mark carries
          printf 'variant\ta\tverified\t-\nresult\t0\tverified\t-\t-\n' >> "$verdict" ;;
    later) [ "$first" = "$lab" ] || kill -SEGV $$
           printf 'variant\ta\tverified\t-\nresult\t0\tverified\t-\t-\n' >> "$verdict" ;;
  esac
}
if [ "$me" = synclab-labs ]; then
  [ "$1" = --batch ] || exit 2
  n=$(grep -c . "$2") i=0 rc=0 failed= t0=${EPOCHREALTIME//[!0-9]/} skew=0
  while IFS=$'\t' read -r -a args; do
    i=$((i + 1))
    [ "${args[0]}" != "$failed" ] || continue  # a failed lab's other runs are left out
    if [ "${args[0]}" = "$FAKE_NOLOAD" ] && { [ "${args[1]}" != --describe ] || [ -n "$FAKE_NOPROBE" ]; }; then
      echo "synclab-labs: cannot load lab ${args[0]} (no such file): build it again" >&2
      exit 2
    fi
    echo "== run $i of $n: lab${args[*]}"
    us=$(( ${EPOCHREALTIME//[!0-9]/} - t0 + skew ))
    printf '== run %d of %d at %d.%06d s\n' $i $n $((us / 1000000)) $((us % 1000000)) >&2
    first=${first:-${args[0]}}
    if [ "${args[1]}" = --describe ]; then
      describe "${args[0]}"
      [ "$FAKE_STALE" != "${args[0]}" ] || echo "stale"
    else
      one "${args[@]}"
      rc=$?
      if [ $rc = 0 ]; then failed=; else failed=${args[0]}; fi
    fi
  done < "$2"
  exit $rc
fi
lab=${me#lab}
[ "$1" = --describe ] && { describe "$lab"; exit 0; }
exit 0  # --list-devices: no Oclgrind here
)SH";

TEST_CASE("a lab's grading runs share one process, which stops at the first failure and names it") {
    TempDir dir;
    const fs::path bin = dir.path / "bin", student = dir.path / "class" / "s1";
    fs::create_directories(bin);
    fs::create_directories(student);
    fs::copy_file(test::lab(kGrader), bin / kGrader);
    for (const char *name : {"lab99_scripted", "synclab-labs"}) {  // every run goes through the runner
        std::ofstream(bin / name) << kScriptedLabs;
        fs::permissions(bin / name, fs::perms::owner_all);
    }
    std::ofstream(student / "99_scripted.cl") << "kernel void k() {}\n";
    fs::create_directories(dir.path / "kernels");  // the project's starter, which the grader looks for
    fs::copy_file(student / "99_scripted.cl", dir.path / "kernels" / "99_scripted.cl");
    const std::string log = dir / "log";
    auto grade = [&](const std::string &steps, bool per_size = false, bool quick = false) {
        fs::remove(log);
        // The grader's own POCL setting (a host's 16 threads) must not reach the lab.
        std::map<std::string, std::string> env{{"FAKE_99_scripted", steps}, {"FAKE_LOG", log},
                                               {"SYNCLAB_GRADE_SANDBOX", "off"},
                                               {"POCL_CPU_MAX_CU_COUNT", "16"},
                                               {"POCL_MAX_PTHREAD_COUNT", "16"},
                                               {"POCL_CPU_MIN_CU_COUNT", "16"}};
        if (per_size) env["FAKE_BUILD_PER_SIZE"] = "1";
        const std::string csv = dir / "g.csv";
        synclab::ProcessLimits limits;
        limits.timeout_s = 60;
        std::vector<std::string> argv{(bin / kGrader).string(), "--kernels", student.string(),
                                      "--csv", csv, "--junit", dir / "junit", "--restart"};
        if (quick) argv.push_back("--quick");
        const auto r = synclab::run_process(argv, env, limits);
        CAPTURE(r.out);
        CAPTURE(r.err);
        REQUIRE(r.exited);
        const auto rows = read_gradebook(csv);
        REQUIRE(rows.size() == 1);
        std::vector<std::vector<std::string>> runs;  // {pid, step, POCL settings}
        std::istringstream in(read_file(log));
        for (std::string pid, lab, step, spec, cus, seed; in >> pid >> lab >> step >> spec >> cus >> seed;)
            runs.push_back({pid, step, spec, cus});
        return std::make_pair(rows[0], runs);
    };

    const auto [pass, pass_runs] = grade("ok ok ok");
    CHECK(pass.grade == "pass");
    CHECK(contains(pass.reason, "3 run(s) right"));
    REQUIRE(pass_runs.size() == 3);
    for (const auto &run : pass_runs) {
        CHECK(run[0] == pass_runs[0][0]);  // one process
        CHECK(run[2] == "0");  // one build meets every size: POCL compiles once for all of them
        CHECK(run[3] == "2/2/unset");  // two threads, whatever the host (or the grader's setting) has
    }
    const auto [per_size, per_size_runs] = grade("ok ok", true);
    REQUIRE(per_size_runs.size() == 2);
    CHECK(per_size_runs[0][2] == "1");  // a build per size: POCL specialises, as it would anyway
    CHECK(per_size_runs[0][3] == "2/2/unset");

    const auto [wrong, wrong_runs] = grade("ok wrong ok");
    CHECK(wrong.kind == "wrong-answer");
    // The run again, pasted in any folder: the lab and their folder by absolute path, the failed
    // variant.
    const std::string lab = (bin / "lab99_scripted").string();
    CHECK(contains(wrong.reason, "a WRONG (k: 3 sums wrong) (repeat it: " + lab + " --kernels " +
                                     student.string() + " --variant a --step wrong --seed 5)"));
    CHECK(wrong_runs.size() == 2);  // nothing after the first failure

    const auto [crash, crash_runs] = grade("ok ok crash ok");
    CHECK(crash.kind == "crash");
    CHECK(contains(crash.reason, "SIGSEGV"));
    CHECK(contains(crash.reason, "(repeat it: " + lab + " --kernels " + student.string() +
                                     " --variant a --step crash --seed 5)"));
    CHECK(crash_runs.size() == 3);

    // A run the device cannot make is not checked, said so, and the runs after it go on in a
    // new process; a lab with no run made is never a pass.
    const auto [unrun, unrun_runs] = grade("ok unsupported ok");
    CHECK(unrun.grade == "pass");
    CHECK(contains(unrun.reason, "2 run(s) right"));
    CHECK(contains(unrun.reason, "not checked: --step unsupported (groups of 1024 are above this device's 256)"));
    REQUIRE(unrun_runs.size() == 3);
    CHECK(unrun_runs[1][0] == unrun_runs[0][0]);
    CHECK(unrun_runs[2][0] != unrun_runs[0][0]);
    // Before a failure, last, and under --quick (the first run the device can make, alone).
    struct Case {
        const char *steps;
        bool quick;
        const char *grade, *says;
        std::size_t logged;
    };
    for (const Case &c : {Case{"unsupported wrong", false, "fail", "wrong answer: a WRONG", 2},
                          Case{"ok ok unsupported", false, "pass", "2 run(s) right", 3},
                          Case{"unsupported ok wrong", true, "pass", "1 run(s) right", 2}}) {
        CAPTURE(c.steps);
        const auto [row, logged] = grade(c.steps, false, c.quick);
        CHECK(row.grade == c.grade);
        CHECK(contains(row.reason, c.says));
        CHECK(contains(row.reason, "not checked: --step unsupported"));
        CHECK(logged.size() == c.logged);
    }
    const auto [none, none_runs] = grade("unsupported unsupported");
    CHECK(none.grade == "fail");
    CHECK(none.kind == "error");
    CHECK(contains(none.reason, "no grading run could run here: --step unsupported"));
    CHECK(none_runs.size() == 2);

    // A batch that ends well before its last run is no pass: the run it left is an error.
    const auto [quit, quit_runs] = grade("ok quit ok");
    CHECK(quit.kind == "error");
    CHECK(contains(quit.reason, "left no verdict"));
    CHECK(quit_runs.size() == 2);
}

TEST_CASE("a submission's labs share one process, one that fails after another is run again first") {
    TempDir dir;
    const fs::path bin = dir.path / "bin", student = dir.path / "class" / "s1";
    fs::create_directories(bin);
    fs::create_directories(student);
    fs::create_directories(dir.path / "kernels");  // the project's starters, which the grader looks for
    fs::copy_file(test::lab(kGrader), bin / kGrader);
    const std::vector<std::string> labs{"97_a", "98_b", "99_c"};
    for (const std::string &name : std::vector<std::string>{"lab97_a", "lab98_b", "lab99_c", "synclab-labs"}) {
        std::ofstream(bin / name) << kScriptedLabs;
        fs::permissions(bin / name, fs::perms::owner_all);
    }
    for (const auto &l : labs) {
        std::ofstream(student / (l + ".cl")) << "kernel void k() {}\n";
        fs::copy_file(student / (l + ".cl"), dir.path / "kernels" / (l + ".cl"));
    }
    const std::string log = dir / "log";
    std::vector<std::string> seeds;  // each logged run's --seed
    std::map<std::string, double> seconds;  // each lab's row's
    // Each lab's grade, and the runs as logged: {pid, lab, step}.
    auto grade = [&](const std::string &a, const std::string &b, const std::string &c,
                     std::map<std::string, std::string> env = {}) {
        fs::remove(log);
        seeds.clear();
        env.insert({{"FAKE_97_a", a}, {"FAKE_98_b", b}, {"FAKE_99_c", c}, {"FAKE_LOG", log},
                    {"SYNCLAB_GRADE_SANDBOX", "off"}});
        const std::string csv = dir / "g.csv";
        synclab::ProcessLimits limits;
        limits.timeout_s = 60;
        const auto r = synclab::run_process({(bin / kGrader).string(), "--kernels", student.string(),
                                             "--csv", csv, "--junit", dir / "junit", "--restart",
                                             "-j", "1"},
                                            env, limits);
        CAPTURE(r.out);
        CAPTURE(r.err);
        REQUIRE(r.exited);
        const auto rows = read_gradebook(csv);
        REQUIRE(rows.size() == 3);
        std::map<std::string, std::string> kinds;
        for (const auto &row : rows) kinds[row.lab] = row.kind;
        for (const auto &row : rows) seconds[row.lab] = std::stod(row.seconds);
        std::vector<std::vector<std::string>> runs;
        std::istringstream in(read_file(log));
        for (std::string pid, lab, step, spec, cus, seed; in >> pid >> lab >> step >> spec >> cus >> seed;) {
            runs.push_back({pid, lab, step});
            seeds.push_back(seed);
        }
        return std::make_pair(kinds, runs);
    };
    auto pids = [](const std::vector<std::vector<std::string>> &runs) {
        std::vector<std::string> out;  // one entry a process, in order
        for (const auto &r : runs)
            if (out.empty() || out.back() != r[0]) out.push_back(r[0]);
        return out.size();
    };

    // All right: one process for every run of the three labs, and the report says so.
    auto [kinds, runs] = grade("ok ok", "ok", "ok ok");
    CHECK(kinds == std::map<std::string, std::string>{{"97", "pass"}, {"98", "pass"}, {"99", "pass"}});
    CHECK(runs.size() == 5);
    CHECK(pids(runs) == 1);
    CHECK(contains(read_file(dir / "junit/s1.xml"), "shared one process with labs 97, 98, 99"));
    // A row's seconds hold its own runs in the shared process, as the runner's marks time them:
    // the 1000 s its clock jumps in lab 98's slow run (more than the whole grading may take,
    // 60 s) are lab 98's alone.
    std::tie(kinds, runs) = grade("ok", "ok slow", "ok");
    CHECK(kinds == std::map<std::string, std::string>{{"97", "pass"}, {"98", "pass"}, {"99", "pass"}});
    CHECK(pids(runs) == 1);
    CHECK(seconds.at("98") >= 1000);
    CHECK(seconds.at("97") < 1000);
    CHECK(seconds.at("99") < 1000);
    // A line that only looks like the runner's mark gives no row an impossible time.
    std::tie(kinds, runs) = grade("forge", "ok", "ok");
    CHECK(kinds == std::map<std::string, std::string>{{"97", "pass"}, {"98", "pass"}, {"99", "pass"}});
    for (const auto &[lab, t] : seconds) {
        CAPTURE(lab);
        CHECK(std::isfinite(t));
    }

    // Lab 98 crashes after lab 97 in that process, as if 97 had broken it: 98 is run again as
    // the first of a new one, whose verdict counts, and 99 goes on after it there.
    std::tie(kinds, runs) = grade("ok", "ok later", "ok");
    CHECK(kinds == std::map<std::string, std::string>{{"97", "pass"}, {"98", "pass"}, {"99", "pass"}});
    REQUIRE(runs.size() == 6);
    CHECK(runs[0][1] == "97");            // 97, then 98 in the first process...
    CHECK(runs[2] == std::vector<std::string>{runs[0][0], "98", "later"});
    CHECK(runs[3][0] != runs[0][0]);      // ...98 again, first in a second one, then 99
    CHECK(runs[3][1] == "98");
    CHECK(runs[4] == std::vector<std::string>{runs[3][0], "98", "later"});
    CHECK(runs[5] == std::vector<std::string>{runs[3][0], "99", "ok"});
    CHECK(pids(runs) == 2);
    // Run again on the inputs it had: the seeds its runs recorded.
    CHECK(seeds[1] == "-");
    CHECK(seeds[3] == "5");
    CHECK(seeds[4] == "5");
    CHECK(seeds[5] == "-");
    // Each run's report holds its own output, not the process's: lab 99's, run last in the
    // second process, none of lab 98's.
    const std::string report = read_file(dir / "junit/s1.xml");
    const std::size_t at98 = report.find("name=\"lab 98\""), at99 = report.find("name=\"lab 99\"");
    REQUIRE(at98 != std::string::npos);
    REQUIRE(at99 != std::string::npos);
    CHECK(contains(report.substr(at98, at99 - at98), "lab98_b says later"));
    CHECK(contains(report.substr(at99), "lab99_c says ok"));
    CHECK_FALSE(contains(report.substr(at99), "lab98_b says"));
    // The same after another lab's failure, and after a hang its watchdog ended: run again first.
    std::tie(kinds, runs) = grade("wrong", "later", "ok");
    CHECK(kinds == std::map<std::string, std::string>{{"97", "wrong-answer"}, {"98", "pass"}, {"99", "pass"}});
    REQUIRE(runs.size() == 4);
    CHECK(runs[1] == std::vector<std::string>{runs[0][0], "98", "later"});
    CHECK(runs[2][0] != runs[0][0]);
    CHECK(runs[3] == std::vector<std::string>{runs[2][0], "99", "ok"});
    std::tie(kinds, runs) = grade("ok", "hang ok", "ok");
    CHECK(kinds == std::map<std::string, std::string>{{"97", "pass"}, {"98", "timeout"}, {"99", "pass"}});
    REQUIRE(runs.size() == 4);
    CHECK(runs[1] == std::vector<std::string>{runs[0][0], "98", "hang"});
    CHECK(runs[2][1] == "98");
    CHECK(runs[2][0] != runs[0][0]);
    CHECK(runs[3][1] == "99");
    CHECK(runs[3][0] != runs[2][0]);
    // A lab that is last and run again alone still gets its seeds.
    std::tie(kinds, runs) = grade("ok", "ok", "later");
    CHECK(kinds.at("99") == "pass");
    REQUIRE(runs.size() == 4);
    CHECK(runs[3][1] == "99");
    CHECK(runs[3][0] != runs[0][0]);
    CHECK(seeds[3] == "5");

    // A wrong answer after another lab is the lab's own: it stands, not run again, its other
    // runs are left out, and the next lab goes on in the same process.
    std::tie(kinds, runs) = grade("ok", "wrong ok", "ok");
    CHECK(kinds == std::map<std::string, std::string>{{"97", "pass"}, {"98", "wrong-answer"}, {"99", "pass"}});
    REQUIRE(runs.size() == 3);
    CHECK(runs[1] == std::vector<std::string>{runs[0][0], "98", "wrong"});
    CHECK(runs[2] == std::vector<std::string>{runs[0][0], "99", "ok"});
    // A submission of starters, every lab wrong: one process for all.
    std::tie(kinds, runs) = grade("wrong ok", "wrong", "ok wrong");
    CHECK(kinds == std::map<std::string, std::string>{{"97", "wrong-answer"}, {"98", "wrong-answer"}, {"99", "wrong-answer"}});
    CHECK(runs.size() == 4);
    CHECK(pids(runs) == 1);

    // So is a run the device cannot make: the lab's other runs go on in its own executable.
    std::tie(kinds, runs) = grade("ok", "unsupported ok", "ok");
    CHECK(kinds == std::map<std::string, std::string>{{"97", "pass"}, {"98", "pass"}, {"99", "pass"}});
    REQUIRE(runs.size() == 4);
    CHECK(runs[1] == std::vector<std::string>{runs[0][0], "98", "unsupported"});
    CHECK(runs[2] == std::vector<std::string>{runs[0][0], "99", "ok"});
    CHECK(runs[3][1] == "98");
    CHECK(runs[3][0] != runs[0][0]);
    CHECK(pids(runs) == 2);

    // The first lab's failure is its own: the next labs go on in a new process together.
    std::tie(kinds, runs) = grade("crash", "ok", "ok");
    CHECK(kinds == std::map<std::string, std::string>{{"97", "crash"}, {"98", "pass"}, {"99", "pass"}});
    REQUIRE(runs.size() == 3);
    CHECK(runs[0][1] == "97");
    CHECK(runs[1][0] != runs[0][0]);
    CHECK(runs[2][0] == runs[1][0]);

    // Every child runs in the runner: one that describes a lab otherwise than its executable (a
    // stale module), or cannot describe it at all, is a build to mend, and nothing is graded.
    for (const auto &broken : {std::map<std::string, std::string>{{"FAKE_STALE", "98_b"}},
                               std::map<std::string, std::string>{{"FAKE_NOLOAD", "98_b"}, {"FAKE_NOPROBE", "1"}}}) {
        auto env = broken;
        env.insert({{"FAKE_LOG", log}, {"SYNCLAB_GRADE_SANDBOX", "off"}});
        synclab::ProcessLimits limits;
        limits.timeout_s = 60;
        const auto r = synclab::run_process({(bin / kGrader).string(), "--kernels", student.string(),
                                             "--csv", dir / "broken.csv", "--junit", dir / "junit", "--restart"},
                                            env, limits);
        CAPTURE(r.err);
        CHECK(r.exit_code == 2);
        CHECK(test::line_count(r.err) == 1);
        CHECK(contains(r.err, "cannot run lab 98_b as its executable does: build the labs again"));
    }
    // A runner that cannot load a lab when it runs it (after another lab's failure said something
    // on stderr): that lab's row says why; the lab before it keeps its own failure, the one after
    // it is graded in a process of its own.
    std::tie(kinds, runs) = grade("wrong", "ok", "ok", {{"FAKE_NOLOAD", "98_b"}});
    CAPTURE(read_file(dir / "g.csv"));
    CHECK(kinds == std::map<std::string, std::string>{{"97", "wrong-answer"}, {"98", "error"}, {"99", "pass"}});
    CHECK(contains(read_file(dir / "g.csv"), "cannot load lab 98_b"));
    REQUIRE(runs.size() == 2);
    CHECK(runs[0][1] == "97");
    CHECK(runs[1][1] == "99");
    CHECK(runs[1][0] != runs[0][0]);

    // SYNCLAB_GRADE_SHARED=off: a process a lab.
    std::tie(kinds, runs) = grade("ok", "ok", "ok", {{"SYNCLAB_GRADE_SHARED", "off"}});
    CHECK(kinds.at("99") == "pass");
    CHECK(pids(runs) == 3);
}

TEST_CASE("synclab-labs runs each lab from its own module, all on its one copy of the scaffolding") {
    TempDir dir;
    const std::string runner = test::lab("synclab-labs");
    auto run = [&](const std::string &batch) {
        std::ofstream(dir / "batch") << batch;
        synclab::ProcessLimits limits;
        limits.timeout_s = 120;
        return synclab::run_process({runner, "--batch", dir / "batch"}, {{synclab::protocol::kKernels, ""}}, limits);
    };
    // Every lab describes itself through the runner exactly as its executable does: the modules
    // keep their own declarations (GCC's one-per-process inline variables once gave lab 02
    // lab 01's).
    std::vector<std::string> dirs;
    for (const auto &e : fs::directory_iterator(fs::path(runner).parent_path())) {
        const std::string name = e.path().filename().string();
        if (name.size() > 5 && name.rfind("lab", 0) == 0 && std::isdigit(static_cast<unsigned char>(name[3])) &&
            e.is_regular_file())
            dirs.push_back(name.substr(3));
    }
    std::sort(dirs.begin(), dirs.end());
    REQUIRE(dirs.size() >= 2);
    std::string batch;
    for (const auto &d : dirs) batch += d + "\t--describe\n";
    const auto described = run(batch);
    REQUIRE(described.exited);
    CHECK(described.exit_code == 0);
    std::vector<std::string> said;
    std::istringstream in(described.out);
    for (std::string l; std::getline(in, l);) {
        if (l.rfind("== run ", 0) == 0) said.emplace_back();
        else if (!said.empty()) said.back() += l + "\n";
    }
    REQUIRE(said.size() == dirs.size());
    for (std::size_t i = 0; i < dirs.size(); ++i) {
        CAPTURE(dirs[i]);
        const auto own = test::run_lab("lab" + dirs[i], {"--describe"});
        CHECK(said[i] == own.out);
    }

    // Two labs' solutions in one process, each verified.
    const std::string solutions = test::source("solutions");
    const auto both = run("01_workgroup_reduce\t--kernels\t" + solutions + "\t--variant\tsync\t--verdict\t" +
                          (dir / "v1") + "\n02_host_final_sum\t--kernels\t" + solutions +
                          "\t--variant\thost\t--verdict\t" + (dir / "v2") + "\n");
    CAPTURE(both.out);
    CAPTURE(both.err);
    CHECK(both.exit_code == 0);
    CHECK(synclab::parse_verdict(read_file(dir / "v1")).kind == synclab::ResultKind::Verified);
    CHECK(synclab::parse_verdict(read_file(dir / "v2")).kind == synclab::ResultKind::Verified);

    // A line that fails leaves out its lab's other lines; the next lab goes on, and the runner
    // exits as its last line did.
    const auto on = run("01_workgroup_reduce\t--kernels\t" + solutions +
                        "\t--variant\tsync\t--wg\t3\t--verdict\t" + (dir / "w1") +
                        "\n01_workgroup_reduce\t--kernels\t" + solutions +
                        "\t--variant\tsync\t--verdict\t" + (dir / "w2") +
                        "\n02_host_final_sum\t--kernels\t" + solutions +
                        "\t--variant\thost\t--verdict\t" + (dir / "w3") + "\n");
    CAPTURE(on.out);
    CHECK(on.exit_code == 0);
    CHECK(synclab::parse_verdict(read_file(dir / "w1")).exit_code == 2);
    CHECK_FALSE(fs::exists(dir / "w2"));
    CHECK(synclab::parse_verdict(read_file(dir / "w3")).kind == synclab::ResultKind::Verified);

    // Oclgrind's report cap counts every run of a process; each run's own lies past the earlier
    // runs' count, across labs (the modules share the runner's scaffolding): after a run that
    // used up a cap of its own, a race is still reported and a right kernel stays clean.
    if (test::have_oclgrind()) {
        const auto og = run("07_atomics\t--kernels\t" + solutions + "\t--variant\tplain\t--device\toclgrind\t" +
                            "--groups\t2\t--wg\t1024\t--iters\t2\t--verdict\t" + (dir / "o1") +
                            "\n01_workgroup_reduce\t--kernels\t" + solutions + "\t--variant\tnosync\t" +
                            "--device\toclgrind\t--groups\t2\t--verdict\t" + (dir / "o2") +
                            "\n02_host_final_sum\t--kernels\t" + solutions + "\t--variant\thost\t" +
                            "--device\toclgrind\t-n\t1000\t--verdict\t" + (dir / "o3") + "\n");
        CAPTURE(og.out);
        CHECK(og.exit_code == 0);
        CHECK(contains(og.out, "Oclgrind stopped reporting after 10000 errors"));
        const auto racy = synclab::parse_verdict(read_file(dir / "o2"));
        REQUIRE_FALSE(racy.findings.empty());
        CHECK(racy.findings.front().kind == synclab::FindingKind::DataRace);
        CHECK_FALSE(contains(og.out.substr(og.out.find("lab01_workgroup_reduce")), "stopped reporting"));
        const auto clean = synclab::parse_verdict(read_file(dir / "o3"));
        CHECK(clean.kind == synclab::ResultKind::Verified);
        CHECK(clean.findings.empty());
    }

    // Bad input: one line, exit 2.
    for (const auto &[line, says] : std::vector<std::pair<std::string, std::string>>{
             {"ls\t-l\n", "line 1 names no lab (ls): begin each line with a lab's folder name"},
             {"77_nothing\t--describe\n", "cannot load lab 77_nothing"},
             {"01_workgroup_reduce\t--batch\tx\n", "names --batch itself"}}) {
        const auto bad = run(line);
        CHECK(bad.exit_code == 2);
        CHECK(contains(bad.err, says));
        CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
    }
}

TEST_CASE("grading the starter fails lab 01 on its TODO kernel and not by a crash or a build error") {
    TempDir out;
    const auto r = run_grader({"--kernels", test::source("kernels"), "--timeout", "30", "--csv",
                          out / "g.csv", "--junit", out / "junit"});
    CAPTURE(r.out);
    CAPTURE(r.err);
    CHECK(r.exit_code == 1);
    bool lab01 = false;
    for (const auto &row : read_gradebook(out / "g.csv")) {
        CAPTURE(row.lab);
        CAPTURE(row.reason);
        // Every starter builds and runs; its unfinished parts give wrong answers or races.
        CHECK(row.kind != "compile-error");
        CHECK(row.kind != "crash");
        CHECK(row.kind != "timeout");
        CHECK(row.kind != "error");
        CHECK(row.kind != "missing");
        // Each starter fails on the kernels its TODOs leave unfinished, and only on those.
        static const std::map<std::string, std::string> todo{
            {"02", "dotPartials"},
            {"03", "multi-kernel"},  // reducePartials, run by the multi-kernel path
            {"04", "reduceBarrier"},
            {"05", "failed variants: evenodd kway expensive"},
            {"08", "failed variants: v4 v5 v6 v7"}};
        if (todo.count(row.lab)) {
            CHECK(row.grade == "fail");
            CHECK(contains(row.reason, todo.at(row.lab)));
        }
        if (row.lab != "01") continue;
        lab01 = true;
        CHECK(row.grade == "fail");
        CHECK((row.kind == "wrong-answer" || row.kind == "data-race"));
        CHECK(contains(row.reason, "reduceWithSync"));
        CHECK_FALSE(contains(row.reason, "reduceNoSync"));  // the demonstration is not graded
    }
    CHECK(lab01);
}

TEST_CASE("a class of 50 is graded in isolation and an interrupted gradebook resumes" * doctest::test_suite("e2e")) {
    // Each generated student: a fixture copy, an empty folder (missing) or one nested in kernels/.
    const std::vector<std::pair<std::string, std::string>> kinds{
        {"correct_for_loop", "pass"},        {"constant_answer", "wrong-answer"},
        {"correct_interleaved", "pass"},     {"wild_write", "crash"},
        {"correct_private_sum", "pass"},     {"compile_error", "compile-error"},
        {"", "missing"},                     {"missing_loop_barrier_01", "wrong-answer"},
        {"nested", "pass"}};
    TempDir dir;
    const fs::path klass = dir.path / "class";
    std::map<std::string, std::string> want;
    for (int i = 0; i < 50; ++i) {
        char name[8];
        std::snprintf(name, sizeof name, "s%02d", i);
        const fs::path to = klass / name;
        fs::create_directories(to);
        // s25 hangs: the first run is interrupted while it runs, the second times it out.
        const auto &[fixture, kind] =
            i == 25 ? std::pair<std::string, std::string>{"infinite_loop", "timeout"}
                    : kinds[i % kinds.size()];
        if (fixture == "nested") copy_fixture("correct_for_loop", to / "kernels");
        else if (!fixture.empty()) copy_fixture(fixture, to);
        want[name] = kind;
    }
    const std::string csv = dir / "out/gradebook.csv", junit = dir / "out/junit",
                      log = dir / "grader.log";

    // Run 1: interrupted (SIGINT, as Ctrl-C) while s25 hangs.
    std::vector<std::string> args{test::lab(kGrader), "--class", klass.string(), "--labs", "01", "--quick",
                                  "--timeout", "120", "--seed", "11", "--csv", csv,
                                  "--junit", junit, "-j", "1"};
    // The grader's private folder (its children's copies) is in this test's TMPDIR.
    const std::string tmp = dir / "tmp";
    fs::create_directories(tmp);
    const pid_t pid = spawn_logged(args, log, {{"TMPDIR", tmp}});
    // s00..s24 graded (-j 1: one at a time), and s25's lab child running its endless kernel.
    int status = 0;
    bool ended = false;  // too soon: a failure the checks below name
    test::wait_until([&] { return (ended = waitpid(pid, &status, WNOHANG) == pid) ||
                                  (fs::exists(csv) && rows_in(csv) >= 25 && lab_running(tmp)); },
                     150, "s25's lab runs");
    if (!ended) {
        kill(pid, SIGINT);
        if (!ends_within(pid, 60, "the grader stops on SIGINT", status)) return;  // killed, not left
    }
    const std::string first_log = read_file(log);
    CAPTURE(first_log);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 128 + SIGINT);
    CHECK(contains(first_log, "--resume"));
    CHECK(rows_in(csv) == 25);  // s00..s24, each flushed as it was graded
    const auto first = by_student(read_gradebook(csv));
    for (const auto &[name, row] : first) {
        CAPTURE(name);
        CHECK(name < "s25");
        CHECK(row.kind == want[name]);  // s03's crash and s05's build error stopped nobody
    }
    CHECK_FALSE(lab_running(tmp));  // the hanging child was killed with it
    CHECK_FALSE(running_with(tmp + "/"));
    CHECK(fs::exists(junit + "/s24.xml"));
    CHECK_FALSE(fs::exists(junit + "/s25.xml"));

    // A row cut short by a kill is dropped and graded again.
    const std::string kept = read_file(csv);
    { std::ofstream(csv, std::ios::app) << "s25,01,pa"; }

    // Run 2: --resume grades only the rest; s25 now times out, and the students after it go on.
    const auto r = run_grader({"--class", klass.string(), "--labs", "01", "--quick", "--timeout", "4", "--seed", "11",
                          "--csv", csv, "--junit", junit, "--resume"});
    CAPTURE(r.out);
    CAPTURE(r.err);
    CHECK(r.exit_code == 1);
    // The finished rows kept as they were (the gradebook is written again in student order, with
    // each student's total row).
    std::map<std::string, grade::Result> before;
    for (const auto &row : grade::parse_gradebook(kept)) before[row.student] = row;
    const auto after = rows_by_student(csv);
    for (const auto &[name, row] : before) {
        CAPTURE(name);
        REQUIRE(after.count(name));
        CHECK(grade::csv_row(after.at(name)) == grade::csv_row(row));
    }
    int kept_lines = 0;
    for (std::size_t at = 0; (at = r.out.find("(kept from the gradebook)", at)) != std::string::npos; ++at)
        ++kept_lines;
    CHECK(kept_lines == 25);
    const auto rows = by_student(read_gradebook(csv));
    CHECK(rows.size() == 50);
    for (const auto &[name, kind] : want) {
        CAPTURE(name);
        REQUIRE(rows.count(name));
        CHECK(rows.at(name).kind == kind);
        CHECK(fs::exists(junit + "/" + name + ".xml"));
    }
    CHECK(contains(rows.at("s25").reason, "timed out after 4 s"));
    CHECK(contains(rows.at("s03").reason, "SIGSEGV"));
}

// Runs the grader on a pseudo-terminal: what a person at a terminal sees, byte for byte.
std::string grader_on_a_terminal(const std::vector<std::string> &args, int &exit_code) {
    std::vector<std::string> argv{test::lab(kGrader)};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char *> cargv;
    for (auto &a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    int master = -1;
    const pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
    REQUIRE(pid >= 0);
    if (pid == 0) {
        unsetenv(synclab::protocol::kKernels);
        execv(cargv[0], cargv.data());
        _exit(127);
    }
    std::string out;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(150);
    char buf[4096];
    while (std::chrono::steady_clock::now() < deadline) {
        pollfd p{master, POLLIN, 0};
        if (poll(&p, 1, 500) <= 0) continue;
        const ssize_t n = read(master, buf, sizeof buf);
        if (n <= 0) break;  // EIO: the grader and its children closed the terminal
        out.append(buf, static_cast<std::size_t>(n));
    }
    close(master);
    if (std::chrono::steady_clock::now() >= deadline) kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return out;
}

TEST_CASE("on a terminal a progress line says how far and the time left, and is gone at the end") {
    TempDir dir;
    for (const char *student : {"ann", "bob", "cy"}) {
        fs::create_directories(dir / std::string("class/") + student);
        fs::copy_file(test::source("solutions/01_workgroup_reduce.cl"),
                      dir / (std::string("class/") + student + "/01_workgroup_reduce.cl"));
    }
    const std::vector<std::string> args{"--class", dir / "class", "--labs", "01", "--quick",
                                        "-j", "1", "--csv", dir / "g.csv", "--junit", dir / "j"};
    int rc = -1;
    const std::string tty = grader_on_a_terminal(args, rc);
    CAPTURE(tty);
    CHECK(rc == 0);
    const std::string clear = "\r\033[K";
    // Before the first row, then redrawn after each: done/total, and once a row is graded the
    // time left.
    CHECK(contains(tty, clear + "[0/3] "));
    CHECK(contains(tty, clear + "[1/3] about "));
    CHECK(contains(tty, clear + "[2/3] about "));
    CHECK(contains(tty, " s left"));
    // Each row clears the progress line and takes its place; no progress is left behind it.
    for (const char *row : {"[1/3] ann, lab 01: pass", "[2/3] bob, lab 01: pass",
                            "[3/3] cy, lab 01: pass"})
        CHECK(contains(tty, clear + row));
    CHECK_FALSE(contains(tty, clear + "[3/3] \r"));
    CHECK_FALSE(contains(tty.substr(tty.find("[3/3] cy")), "\033["));
    // Not on a terminal (a log, CI): the rows alone, no control characters.
    fs::remove(dir / "g.csv");
    const auto piped = run_grader(args);
    CAPTURE(piped.out);
    CHECK(piped.exit_code == 0);
    CHECK(contains(piped.out, "[3/3] cy, lab 01: pass"));
    CHECK_FALSE(contains(piped.out, "\033"));
    CHECK_FALSE(contains(piped.out, "\r"));
}

TEST_CASE("by default the grader runs as many labs at once as it has CPUs: its affinity, not the host's") {
    TempDir dir;
    for (const char *who : {"a", "b", "c"})
        write_text(dir.path / "class" / who / "01_workgroup_reduce.cl",
                   read_file(test::source("solutions/01_workgroup_reduce.cl")));
    auto at_a_time = [&](const std::string &cpus) {
        std::vector<std::string> argv{"/usr/bin/taskset", "-c", cpus, test::lab(kGrader), "--class", dir / "class",
                                      "--labs", "01", "--quick", "--no-oclgrind", "--csv",
                                      dir / ("g" + cpus + ".csv"), "--junit", dir / ("j" + cpus)};
        synclab::ProcessLimits limits;
        limits.timeout_s = 300;
        const auto r = synclab::run_process(argv, {{synclab::protocol::kKernels, ""}}, limits);
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        return r.out;
    };
    CHECK(contains(at_a_time("0"), "3 submissions x 1 lab(s), 1 at a time"));
    cpu_set_t set;
    CPU_ZERO(&set);
    REQUIRE(sched_getaffinity(0, sizeof set, &set) == 0);
    if (CPU_COUNT(&set) >= 2 && CPU_ISSET(0, &set) && CPU_ISSET(1, &set))
        CHECK(contains(at_a_time("0,1"), "3 submissions x 1 lab(s), 2 at a time"));
}

TEST_CASE("the grader refuses bad use in one line with exit 2") {
    TempDir out;
    const std::string sub = test::fixture("correct_for_loop");
    const std::vector<std::vector<std::string>> bad{
        {},                                                           // neither mode
        {"--kernels", sub, "--class", test::fixture_class()},
        {"--kernels", sub, "--labs", "99"},
        {"--kernels", out / "absent"},
        {"--kernels", sub, "--timeout", "0"},
        {"--kernels", sub, "--timeout", "-1"},
        {"--kernels", sub, "--timeout", "2000000"},                   // above kMaxTimeout
        {"--kernels", sub, "--memory", "99999999999999"},             // MiB << 20 would wrap
        {"--kernels", sub, "--memory", "1048577"},
        {"--kernels", sub, "--csv", sub + "/gradebook.csv"},          // into the submission
        {"--kernels", sub, "--bogus"},
        {"--kernels", sub, "--device", "no-such-device"},              // named before any child runs
    };
    for (const auto &args : bad) {
        std::vector<std::string> all = args;
        if (std::find(all.begin(), all.end(), "--csv") == all.end())
            all.insert(all.end(), {"--csv", out / "g.csv"});
        all.insert(all.end(), {"--junit", out / "junit"});
        const auto r = run_grader(all, 30);
        CAPTURE(r.err);
        CHECK(r.exit_code == 2);
        CHECK(test::line_count(r.err) == 1);
    }
    CHECK_FALSE(fs::exists(sub + "/gradebook.csv"));
    const auto help = run_grader({"--help"}, 30);
    CHECK(help.exit_code == 0);
    CHECK(contains(help.out, "Exit codes"));
    CHECK(contains(help.out, "--resume"));
    CHECK(contains(help.out, "130 for Ctrl-C, 143 for SIGTERM"));
    // The largest accepted limits grade as usual (the lab's own --timeout stays in its range).
    const auto edge = run_grader({"--kernels", sub, "--labs", "01", "--quick", "--timeout", "1000000",
                             "--memory", "1048576", "--csv", out / "edge.csv", "--junit", out / "junit"});
    CAPTURE(edge.out);
    CAPTURE(edge.err);
    CHECK(edge.exit_code == 0);
    REQUIRE(read_gradebook(out / "edge.csv").size() == 1);
    CHECK(read_gradebook(out / "edge.csv").at(0).kind == "pass");
}

TEST_CASE("student names that map to one JUnit file name get distinct files") {
    TempDir dir;
    const fs::path klass = dir.path / "class";
    copy_fixture("correct_for_loop", klass / "a_b");  // clean: keeps a_b.xml
    copy_fixture("constant_answer", klass / "a b");
    copy_fixture("constant_answer", klass / "A?b");  // A_b: the same file where case is ignored
    const std::vector<std::string> args{"--class", klass.string(), "--labs", "01", "--quick",
                                        "--seed", "3", "--csv", dir / "g.csv", "--junit",
                                        dir / "junit"};
    const auto r = run_grader(args);
    CAPTURE(r.out);
    CAPTURE(r.err);
    CHECK(r.exit_code == 1);
    CHECK(read_gradebook(dir / "g.csv").size() == 3);
    std::set<std::string> files;
    for (const auto &e : fs::directory_iterator(dir.path / "junit")) files.insert(e.path().filename());
    // Each name's own file: a_b's as it is, the others with a hash of their exact names.
    const std::string a_space = grade::file_name("a b") + ".xml", a_query = grade::file_name("A?b") + ".xml";
    const std::set<std::string> want{"a_b.xml", a_space, a_query};
    CHECK(want.size() == 3);
    CHECK(files == want);
    const std::string clean = read_file(dir / "junit/a_b.xml");
    CHECK(contains(clean, "<testsuite name=\"a_b\""));
    CHECK(contains(clean, "failures=\"0\""));
    CHECK(contains(read_file(dir / ("junit/" + a_query)), "<testsuite name=\"A?b\""));
    CHECK(contains(read_file(dir / ("junit/" + a_space)), "<testsuite name=\"a b\""));
    CHECK(contains(read_file(dir / ("junit/" + a_space)), "<failure type=\"wrong-answer\""));
    // --resume writes the same files again: the names do not depend on what is left to grade.
    std::vector<std::string> again = args;
    again.push_back("--resume");
    CHECK(run_grader(again).exit_code == 1);
    files.clear();
    for (const auto &e : fs::directory_iterator(dir.path / "junit")) files.insert(e.path().filename());
    CHECK(files == want);
    CHECK(contains(read_file(dir / ("junit/" + a_space)), "<testsuite name=\"a b\""));
}

TEST_CASE("a kernel that floods its output with printf is still graded by its answer") {
    TempDir dir;
    const fs::path klass = dir.path / "class";
    // Right answer, megabytes of lines: passes, and the report says output was left out.
    with_code_at_end(test::source("solutions/01_workgroup_reduce.cl"),
                     "    for (int k = 0; k < 64; ++k) printf(\"work-item %d says %d\\n\", i, k);\n",
                     klass / "flood_right");
    // Wrong answer, one endless line (no newline): wrong-answer, with a short reason.
    with_code_at_end(test::fixture("constant_answer") + "/01_workgroup_reduce.cl",
                     "    for (int k = 0; k < 256; ++k) printf(\"%d \", k);\n",
                     klass / "flood_wrong");
    const auto r = run_grader({"--class", klass.string(), "--labs", "01", "--quick", "--seed", "5",
                          "--csv", dir / "g.csv", "--junit", dir / "junit"});
    CAPTURE(r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.out.size() < 20000);
    const auto rows = by_student(read_gradebook(dir / "g.csv"));
    REQUIRE(rows.size() == 2);
    CHECK(rows.at("flood_right").kind == "pass");
    const Row &wrong = rows.at("flood_wrong");
    CAPTURE(wrong.reason);
    CHECK(wrong.kind == "wrong-answer");
    CHECK(contains(wrong.reason, "WRONG"));
    CHECK(contains(wrong.reason, "--seed 5"));
    CHECK(wrong.reason.size() < 1000);
    const std::string right_xml = read_file(dir / "junit/flood_right.xml");
    CHECK(contains(right_xml, "bytes of output left out of the middle"));
    CHECK(right_xml.size() < 100000);  // a few lines of it, not megabytes
    const std::string wrong_xml = read_file(dir / "junit/flood_wrong.xml");
    CHECK(contains(wrong_xml, "more characters)"));  // the endless line, cut
    CHECK(wrong_xml.size() < 100000);
}

TEST_CASE("grade_lab kills its running child as soon as the stop flag rises") {
    // No signal here: only the flag, which run_process watches while the child runs, so a
    // signal that lands just before a fork cannot leave that child running to its timeout.
    const auto labs =
        grade::discover_labs(fs::path(test::lab(kGrader)).parent_path().string(), nullptr);
    const grade::Recipe *lab01 = nullptr;
    for (const auto &r : labs)
        if (r.id == "01") lab01 = &r;
    REQUIRE(lab01);
    TempDir dir;
    copy_fixture("infinite_loop", dir.path / "hang");
    fs::create_directories(dir.path / "work");
    grade::Settings settings;
    settings.bin_dir = fs::path(test::lab(kGrader)).parent_path().string();
    settings.timeout_s = 120;
    settings.race_check = false;
    settings.quick = true;
    static volatile int stop = 0;
    stop = 1;  // already set: nothing runs
    CHECK(grade::grade_lab(*lab01, "hang", dir / "hang", settings, &stop, dir / "work").finished() == false);
    stop = 0;
    std::atomic<bool> returned{false};
    std::thread raiser([&] {  // raised while the lab child runs, 120 s before its timeout
        test::wait_until([&] { return returned || lab_running(dir / "work"); }, 100, "the lab child runs");
        stop = 1;
    });
    const auto r = grade::grade_lab(*lab01, "hang", dir / "hang", settings, &stop, dir / "work");
    returned = true;
    raiser.join();
    // Unfinished, not a row to keep: stopped, where the 120 s timeout would have made a row.
    CHECK_FALSE(r.finished());
    CHECK_FALSE(running_with(dir / "work"));
}

TEST_CASE("SIGTERM stops the grader with exit 143 and kills the running lab") {
    TempDir dir;
    const fs::path klass = dir.path / "class";
    copy_fixture("correct_for_loop", klass / "s1");
    copy_fixture("infinite_loop", klass / "s2");
    const std::string csv = dir / "g.csv", log = dir / "grader.log";
    std::vector<std::string> args{test::lab(kGrader), "--class", klass.string(), "--labs", "01",
                                  "--quick", "--timeout", "120", "--csv", csv, "--junit",
                                  dir / "junit", "-j", "1"};
    const std::string hang = dir / "tmp";
    fs::create_directories(hang);
    const pid_t pid = spawn_logged(args, log, {{"TMPDIR", hang}});
    // s1's row is written and s2's lab child runs its endless kernel.
    int status = 0;
    bool ended = false;  // too soon: a failure the checks below name
    test::wait_until([&] { return (ended = waitpid(pid, &status, WNOHANG) == pid) ||
                                  (fs::exists(csv) && rows_in(csv) >= 1 && lab_running(hang)); },
                     100, "s2's lab runs");
    if (!ended) {
        kill(pid, SIGTERM);
        if (!ends_within(pid, 60, "the grader stops on SIGTERM", status)) return;  // killed, not left
    }
    CAPTURE(read_file(log));
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 128 + SIGTERM);
    CHECK_FALSE(running_with(hang));
    const auto rows = read_gradebook(csv);
    REQUIRE(rows.size() == 1);  // s1's finished row; s2's interrupted one is not kept
    CHECK(rows[0].student == "s1");
    CHECK(rows[0].kind == "pass");
}

TEST_CASE("an instructor folder named by SYNCLAB_GRADE_KERNELS passes every lab") {
    const char *dir = std::getenv("SYNCLAB_GRADE_KERNELS");
    if (!dir || !*dir) {
        MESSAGE("not asked: set SYNCLAB_GRADE_KERNELS=DIR to grade DIR here (ctest -L grade)");
        return;
    }
    // A relative path is taken from the source tree when it is not found from here.
    std::string folder = dir;
    if (!fs::is_directory(folder) && fs::is_directory(test::source(folder)))
        folder = test::source(folder);
    TempDir out;
    const auto r = run_grader({"--kernels", folder, "--csv", out / "g.csv", "--junit", out / "junit"}, 590);
    MESSAGE(r.out);
    if (!r.err.empty()) MESSAGE(r.err);
    CHECK(r.exit_code == 0);
}

}  // TEST_SUITE
