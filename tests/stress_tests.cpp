// Stress schedules (synclab/stress.hpp): protocol bugs between work-groups that the plain runs and
// the race check pass (tests/fixtures/stress) fail under the grader's schedules, each named by a
// seed whose command fails again; the solutions pass the same schedules. And `--stress` on a lab.
#include "grade_support.hpp"
#include "grade/cores.hpp"  // dynamic_run_env, stress_run_env
#include "synclab/process.hpp"
#include "synclab/cpus.hpp"
#include "synclab/stress.hpp"

#include <doctest/doctest.h>
#include <sched.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;
using namespace gradetest;

namespace {

std::vector<std::string> words(const std::string &line) {
    std::istringstream in(line);
    std::vector<std::string> out;
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}

}  // namespace

TEST_SUITE("grade") {

// How often the schedules catch each protocol bug depends on the cores the grader has free: that
// is measured by scripts/bench_stress.sh, not tested. This test holds what holds on any machine:
// a kernel wrong under the stress arguments (and right in every plain run) fails as `stress`, named
// by its seed, with a command that fails again; the solutions pass; the stress machinery's macro
// is visible to no check.
TEST_CASE("a stress schedule that goes wrong names its seed and a command that fails again, and never fails a solution") {
    TempDir cls, out;
    fs::create_directories(cls.path / "solutions");
    for (const char *f : {"07_atomics.cl", "09_interworkgroup_barrier.cl", "10_laplace.cl"})
        fs::copy(test::source(std::string("solutions/") + f), cls.path / "solutions" / f);
    const std::string solution09 = read_file(test::source("solutions/09_interworkgroup_barrier.cl"));
    // Wrong only past step 100: the stress arguments' 128 steps, never a plain run's 16.
    const std::string loop = "    STEP_LOOP(go, me, parts, centralized_barrier(ctl, parts, budget, &go, 1))\n";
    REQUIRE(solution09.find(loop) != std::string::npos);
    std::string late = solution09;
    late.replace(late.find(loop), loop.size(),
                 loop + "    if (steps > 100 && get_global_id(0) == 0) { a[0] += 1; b[0] += 1; }\n");
    fs::create_directories(cls.path / "09_wrong_past_step_100");
    std::ofstream(cls.path / "09_wrong_past_step_100" / "09_interworkgroup_barrier.cl") << late;
    // The stress machinery's macro is visible to no check: the count reset first "only where not
    // stressed" is right everywhere.
    const std::string right = "            atomic_xchg(&ctl[COUNT], 0u);  // ready for the next barrier before anyone leaves\n"
                              "            fence_if(fenced);\n            atomic_inc(&ctl[GEN]);\n";
    const std::string wrong = "            fence_if(fenced);\n            atomic_inc(&ctl[GEN]);\n"
                              "            atomic_xchg(&ctl[COUNT], 0u);\n";
    REQUIRE(solution09.find(right) != std::string::npos);
    std::string twin = solution09;
    twin.replace(twin.find(right), right.size(), "#ifndef SYNCLAB_STRESS_CELL\n" + right + "#else\n" + wrong + "#endif\n");
    fs::create_directories(cls.path / "solutions_reset_first_unless_stressed");
    std::ofstream(cls.path / "solutions_reset_first_unless_stressed" / "09_interworkgroup_barrier.cl") << twin;

    const auto r = run_grader({"--class", cls.path.string(), "--labs", "07,09,10", "--no-oclgrind",
                               "--timeout", "60", "--csv", out / "g.csv", "--junit", out / "junit"},
                              590);
    CAPTURE(r.out);
    CAPTURE(r.err);
    REQUIRE(r.exited);
    CHECK(r.exit_code == 1);
    int checked = 0;
    for (const Row &row : read_gradebook(out / "g.csv")) {
        CAPTURE(row.student);
        CAPTURE(row.lab);
        CAPTURE(row.reason);
        if (row.student != "solutions" && row.lab != "09") {
            CHECK(row.kind == "missing");
            continue;
        }
        ++checked;
        if (row.student != "09_wrong_past_step_100") {
            // Right under every schedule, and still no pass: without Oclgrind no fence between
            // work-groups was judged (docs/grading.md, "Where Oclgrind is missing").
            CHECK(row.kind == "error");
            CHECK(contains(row.reason, "not judged: --no-oclgrind"));
            CHECK(contains(row.reason, "stress schedule(s) right"));
            continue;
        }
        REQUIRE(row.kind == "stress");
        const std::size_t at = row.reason.find("repeat it: ");
        REQUIRE(at != std::string::npos);
        const auto cmd = words(row.reason.substr(at + 11));
        REQUIRE(cmd.size() > 8);
        // Absolute paths: the lab and the student's own folder, so it pastes in any folder.
        CHECK(fs::path(cmd[0]).is_absolute());
        CHECK(fs::path(cmd[0]).filename().string().rfind("lab09_", 0) == 0);
        CHECK(cmd[2] == (cls.path / row.student).string());
        CHECK(cmd[cmd.size() - 6] == "--stress");
        CHECK(cmd[cmd.size() - 4] == "--seed");
        CHECK(cmd[cmd.size() - 2] == "--repeat");
        synclab::ProcessLimits from_root;  // run from another folder than ours
        from_root.cwd = "/";
        from_root.timeout_s = 120;
        const auto rerun = synclab::run_process(cmd, {}, from_root);
        CAPTURE(rerun.out);
        CHECK(rerun.exit_code == 1);
        CHECK(contains(rerun.out, "stress schedule 1 of 1 failed"));
    }
    CHECK(checked == 5);  // the solutions' three labs, the twin, the late bug
}

TEST_CASE("--stress runs seeded schedules, repeats one, and refuses what it cannot do in one line") {
    const std::string sol = test::source("solutions");
    const auto ok = test::run_lab("lab09_interworkgroup_barrier",
                                  {"--kernels", sol, "--variant", "centralized", "--steps", "4",
                                   "--stress", "2", "--seed", "40"});
    CAPTURE(ok.out);
    CAPTURE(ok.err);
    CHECK(ok.exit_code == 0);
    CHECK(contains(ok.out, "== stress schedule 1 of 2: seed 40"));
    CHECK(contains(ok.out, "== stress schedule 2 of 2: seed 41"));
    CHECK(contains(ok.out, "stress: all 2 schedules verified"));
    // --repeat tries each schedule again with its own seed.
    const auto again = test::run_lab("lab09_interworkgroup_barrier",
                                     {"--kernels", sol, "--variant", "centralized", "--steps", "4",
                                      "--stress", "1", "--seed", "40", "--repeat", "2"});
    CAPTURE(again.out);
    CHECK(again.exit_code == 0);
    CHECK(contains(again.out, "== stress schedule 1 of 1: seed 40 (try 1 of 2)"));
    CHECK(contains(again.out, "== stress schedule 1 of 1: seed 40 (try 2 of 2)"));
    // ...and stops at the first try that fails: the starter's barrier, which does not wait.
    const auto starter = test::run_lab("lab09_interworkgroup_barrier",
                                       {"--kernels", test::source("kernels"), "--variant", "centralized",
                                        "--steps", "4", "--stress", "1", "--seed", "40", "--repeat", "3"});
    CAPTURE(starter.out);
    CHECK(starter.exit_code == 1);
    CHECK(contains(starter.out, "(try 1 of 3)"));
    CHECK(!contains(starter.out, "(try 2 of 3)"));
    CHECK(contains(starter.out, "--stress 1 --seed 40 --repeat 3\n"));
    // --stress takes a process of its own: POCL's threads are set before its first OpenCL call.
    TempDir batch;
    std::ofstream(batch / "runs") << "--kernels\t" << sol << "\t--variant\tcentralized\t--steps\t4\n"
                                  << "--kernels\t" << sol << "\t--variant\tcentralized\t--stress\t1\n";
    const auto beside = test::run_batch("lab09_interworkgroup_barrier", batch / "runs");
    CAPTURE(beside.err);
    CHECK(beside.exit_code == 2);
    std::size_t said = 0;  // lines besides the runner's markers
    std::istringstream err_lines(beside.err);
    for (std::string l; std::getline(err_lines, l);) said += l.rfind("== run ", 0) != 0;
    CHECK(said == 1);
    CHECK(contains(beside.err, "--stress takes a process of its own"));
    // Listing the devices is an OpenCL call too; the same line alone is a stress run.
    std::ofstream(batch / "listed") << "--list-devices\n"
                                    << "--kernels\t" << sol << "\t--variant\tcentralized\t--steps\t4\t--stress\t1\n";
    const auto listed = test::run_batch("lab09_interworkgroup_barrier", batch / "listed");
    CAPTURE(listed.err);
    CHECK(listed.exit_code == 2);
    CHECK(contains(listed.err, "--stress takes a process of its own"));
    std::ofstream(batch / "alone") << "--kernels\t" << sol
                                   << "\t--variant\tcentralized\t--steps\t4\t--stress\t1\n";
    CHECK(test::run_batch("lab09_interworkgroup_barrier", batch / "alone").exit_code == 0);
    for (const std::vector<std::string> &bad :
         {std::vector<std::string>{"--stress", "1", "--device", "oclgrind"},
          std::vector<std::string>{"--stress", "20000"}, std::vector<std::string>{"--repeat", "2"},
          std::vector<std::string>{"--stress", "1", "--repeat", "0"}}) {
        std::vector<std::string> args{"--kernels", sol, "--variant", "centralized"};
        args.insert(args.end(), bad.begin(), bad.end());
        const auto r = test::run_lab("lab09_interworkgroup_barrier", args);
        CAPTURE(r.err);
        if (bad.back() == "oclgrind" && !test::have_oclgrind()) continue;  // none to refuse
        CHECK(r.exit_code == 2);
        CHECK(test::line_count(r.err) == 1);
        const bool repeat = std::find(bad.begin(), bad.end(), "--repeat") != bad.end();
        CHECK(contains(r.err, repeat ? "--repeat" : "--stress"));
    }
    // A compile error behind the stress prelude still names the student's file and line.
    TempDir dir;
    std::string text = read_file(sol + "/09_interworkgroup_barrier.cl");
    text.insert(text.find("__kernel void barrierCentralized("), "int broken = ;\n");
    std::ofstream(dir / "09_interworkgroup_barrier.cl") << text;
    const int line = test::line_of(dir / "09_interworkgroup_barrier.cl", "int broken");
    const auto bad = test::run_lab("lab09_interworkgroup_barrier",
                                   {"--kernels", dir.path.string(), "--variant", "centralized",
                                    "--stress", "1"});
    CAPTURE(bad.err);
    CHECK(bad.exit_code == 2);
    CHECK(contains(bad.err, "09_interworkgroup_barrier.cl:" + std::to_string(line)));
}

TEST_CASE("--warm-up builds what the stress run then finds in POCL's cache, and shares a process only with stress lines") {
    const std::string sol = test::source("solutions");
    // What a run left in a POCL cache: its folders (a program, its kernels, each build for a
    // work-group size), not its temporary files.
    auto built = [](const fs::path &cache) {
        std::set<std::string> out;
        for (const auto &e : fs::recursive_directory_iterator(cache))
            if (e.is_directory()) out.insert(fs::relative(e.path(), cache).string());
        return out;
    };
    const std::vector<std::string> stress{"--kernels", sol, "--variant", "centralized,generation",
                                          "--steps", "8", "--stress", "1", "--seed", "40"};
    // Alone, a stress run builds its program and its kernels into the cache...
    TempDir alone;
    const auto first = test::run_lab("lab09_interworkgroup_barrier", stress,
                                     {{"POCL_CACHE_DIR", alone.path.string()}});
    CAPTURE(first.err);
    REQUIRE(first.exit_code == 0);
    CHECK(built(alone.path).size() >= 3);  // the program, and a build of each kernel
    // ...after a warm-up (one step, no delays) it builds nothing: the same text, the same sizes.
    TempDir cache;
    const std::map<std::string, std::string> env{{"POCL_CACHE_DIR", cache.path.string()}};
    std::vector<std::string> warm = stress;
    warm.insert(warm.end(), {"--steps", "1", "--warm-up"});
    const auto w = test::run_lab("lab09_interworkgroup_barrier", warm, env);
    CAPTURE(w.out);
    CAPTURE(w.err);
    CHECK(w.exit_code == 0);
    CHECK(contains(w.out, "== warm-up"));
    CHECK(!contains(w.out, "== stress schedule"));
    const std::set<std::string> before = built(cache.path);
    CHECK(before == built(alone.path));
    const auto then = test::run_lab("lab09_interworkgroup_barrier", stress, env);
    CAPTURE(then.err);
    CHECK(then.exit_code == 0);
    CHECK(contains(then.out, "stress: all 1 schedules verified"));
    CHECK(built(cache.path) == before);
    // Stress lines, warm-ups among them, share a process (the same settings); nothing else does
    // after one, nor before one.
    TempDir batch;
    const std::string line = "--kernels\t" + sol + "\t--variant\tcentralized\t--steps\t1\t--stress\t1";
    std::ofstream(batch / "warm") << line << "\t--warm-up\n" << line << "\t--warm-up\n" << line << "\n";
    const auto together = test::run_batch("lab09_interworkgroup_barrier", batch / "warm");
    CAPTURE(together.err);
    CHECK(together.exit_code == 0);
    CHECK(contains(together.out, "stress: all 1 schedules verified"));
    const std::string plain = "--kernels\t" + sol + "\t--variant\tcentralized\t--steps\t1";
    std::ofstream(batch / "after") << line << "\t--warm-up\n" << plain << "\n";
    std::ofstream(batch / "before") << plain << "\n" << line << "\t--warm-up\n";
    for (const char *f : {"after", "before"}) {
        const auto r = test::run_batch("lab09_interworkgroup_barrier", batch / f);
        CAPTURE(f);
        CAPTURE(r.err);
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, "--stress takes a process of its own"));
    }
    test::check_usage_error("lab09_interworkgroup_barrier", {"--kernels", sol, "--warm-up"},
                            "--warm-up builds the kernels of stress schedules");
    test::check_usage_error("lab09_interworkgroup_barrier",
                            {"--kernels", sol, "--stress", "1", "--warm-up", "--repeat", "2"},
                            "--warm-up runs no schedule to repeat");
}

}  // TEST_SUITE

TEST_SUITE("unit") {

// Runs `body` with this process (and the children it starts) allowed its first CPU alone, as a
// 1-vCPU container or `taskset -c 0`; false (body not run) where affinity cannot be set.
template <class Body>
bool on_one_cpu(Body body) {
    cpu_set_t all, one;
    if (sched_getaffinity(0, sizeof all, &all) != 0) return false;
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &all)) {
            CPU_SET(c, &one);
            break;
        }
    if (sched_setaffinity(0, sizeof one, &one) != 0) return false;
    body();
    sched_setaffinity(0, sizeof all, &all);
    return true;
}

TEST_CASE("on one CPU a stress run's holds last a time slice, and find what the short holds miss there") {
    // The prelude: the short holds where the threads have CPUs of their own, the long ones on one.
    const std::string shared = "#define SYNCLAB_STRESS_IDLE 4194304u\n";
    if (synclab::usable_cpus() >= synclab::kStressThreads) {
        CHECK_FALSE(synclab::cpus_shared());
        CHECK(synclab::stress_prelude().find(shared) == std::string::npos);
    } else {
        MESSAGE("this process has one CPU: the short holds are not checked");
    }
    // The release-before-reset barrier passes the short holds on one CPU (a held group's window
    // closes before the operating system lets the others run); with the long holds it fails, and
    // the solution still passes.
    const std::string bug = test::stress_class() + "/09_release_before_reset";
    TempDir sol;
    fs::copy(test::source("solutions/09_interworkgroup_barrier.cl"), sol.path / "09_interworkgroup_barrier.cl");
    auto stress = [&](const std::string &kernels, int seed) {
        const std::vector<std::string> argv{test::lab("lab09_interworkgroup_barrier"), "--kernels", kernels,
                                            "--variant", "centralized", "--steps", "32", "--stress", "2",
                                            "--seed", std::to_string(seed), "--timeout", "120"};
        synclab::ProcessLimits limits;
        limits.timeout_s = 170;
        return synclab::run_process(argv, grade::dynamic_run_env(synclab::Declaration{}), limits);
    };
    const bool ran = on_one_cpu([&] {
        CHECK(synclab::cpus_shared());
        CHECK(synclab::stress_prelude().find(shared) != std::string::npos);
        for (int seed : {11, 22}) {
            CAPTURE(seed);
            const auto wrong = stress(bug, seed), right = stress(sol.path.string(), seed);
            CAPTURE(wrong.out);
            CAPTURE(right.out);
            CHECK(wrong.exit_code == 1);
            CHECK(contains(wrong.out, "stress schedule"));
            CHECK(right.exit_code == 0);
        }
    });
    if (!ran) MESSAGE("this process's CPU affinity cannot be set: the one-CPU runs are not checked");
}

TEST_CASE("set_stress_environment sets the grader's stress settings where unset, keeps the caller's") {
    const char *const names[] = {"POCL_WORK_GROUP_SPECIALIZATION", "POCL_MAX_PTHREAD_COUNT",
                                 "POCL_CPU_MAX_CU_COUNT"};
    std::map<std::string, std::optional<std::string>> saved;  // the labs this binary runs inherit it
    for (const char *n : names) {
        const char *v = std::getenv(n);
        saved[n] = v ? std::optional<std::string>(v) : std::nullopt;
    }
    unsetenv("POCL_WORK_GROUP_SPECIALIZATION");
    unsetenv("POCL_CPU_MAX_CU_COUNT");
    setenv("POCL_MAX_PTHREAD_COUNT", "5", 1);
    synclab::set_stress_environment();
    auto get = [](const char *n) { const char *v = std::getenv(n); return std::string(v ? v : "unset"); };
    const std::string spec = get("POCL_WORK_GROUP_SPECIALIZATION"),
                      threads = get("POCL_MAX_PTHREAD_COUNT"), cus = get("POCL_CPU_MAX_CU_COUNT");
    for (const auto &[n, v] : saved)
        if (v) setenv(n.c_str(), v->c_str(), 1);
        else unsetenv(n.c_str());
    CHECK(spec == "1");
    CHECK(threads == "5");  // the caller's
    CHECK(cus == std::to_string(synclab::kStressThreads));
    // The grader's stress runs: two threads, as many as its dynamic runs (grade.hpp), whatever
    // the caller has, and POCL's work-group specialisation on (one size a stress run).
    synclab::Declaration plain, per_size;
    per_size.build_per_size = true;
    for (const synclab::Declaration *d : {&plain, &per_size}) {
        const auto graded = grade::stress_run_env(*d);
        CHECK(graded.at("POCL_MAX_PTHREAD_COUNT") == "2");
        CHECK(graded.at("POCL_CPU_MAX_CU_COUNT") == "2");
        CHECK(graded.at("POCL_MAX_PTHREAD_COUNT") == grade::dynamic_run_env(*d).at("POCL_MAX_PTHREAD_COUNT"));
        CHECK(graded.at("POCL_WORK_GROUP_SPECIALIZATION") == "1");
    }
}

// Whether a thread at a StressGate (its id in `tid` once it is there) is held: it went to sleep
// twice since, so it woke (the gate looks again every 100 ms, and at each leave), looked again
// and stayed. False once `through` says it got past.
static bool held(const std::atomic<pid_t> &tid, const std::atomic<bool> &through, const char *what) {
    long before = -1;
    return test::wait_until([&] {
               if (through) return true;
               if (before < 0 && tid) before = test::sleeps_of(tid);
               return before >= 0 && test::sleeps_of(tid) >= before + 2;
           }, 60, what) && !through;
}

TEST_CASE("stress runs first: a child made nicer, one stress run a slot, never beside another child, none once stopped") {
    // A child's niceness (ProcessLimits::nice), for callers that ask for one.
    errno = 0;
    const int ours = getpriority(PRIO_PROCESS, 0);
    REQUIRE(errno == 0);
    synclab::ProcessLimits nicer;
    nicer.nice = 5;
    const auto r = synclab::run_process({"/bin/sh", "-c", "cut -d' ' -f19 /proc/self/stat"}, {}, nicer);
    REQUIRE(r.exited);
    CHECK(std::stoi(r.out) == std::min(19, ours + 5));
    const auto same = synclab::run_process({"/bin/sh", "-c", "cut -d' ' -f19 /proc/self/stat"});
    CHECK(std::stoi(same.out) == ours);

    grade::StressGate gate(1);
    volatile int stop = 0;
    REQUIRE(gate.enter(&stop));
    std::atomic<bool> second{false};
    std::atomic<pid_t> waiter_tid{0};
    std::thread waiter([&] {
        waiter_tid = gettid();
        if (gate.enter(&stop)) {
            second = true;
            gate.leave();
        }
    });
    CHECK(held(waiter_tid, second, "a second stress run waits"));  // the one slot is taken
    gate.leave();
    waiter.join();
    CHECK(second.load());
    stop = 1;
    CHECK_FALSE(gate.enter(&stop));  // stopped: no slot, at once
    CHECK(grade::StressGate(0).enter(nullptr));  // no slots asked for: one all the same

    // Other children run beside one another, never beside a stress run.
    grade::StressGate rw(1);
    REQUIRE(rw.enter_beside(nullptr));
    REQUIRE(rw.enter_beside(nullptr));  // two at once
    std::atomic<bool> stressed{false}, in_stress{false}, later{false}, overlapped{false}, after_done{false},
        left{false};
    std::atomic<pid_t> stress_tid{0}, after_tid{0};
    std::thread stress([&] {
        stress_tid = gettid();
        if (rw.enter(nullptr)) {
            stressed = in_stress = true;
            // Inside until the child that came after it, woken as the others left, is seen to
            // look again and wait.
            test::wait_until([&] { return left.load(); }, 60, "the children beside leave");
            CHECK(held(after_tid, after_done, "a child waits while the stress run is inside"));
            in_stress = false;
            rw.leave();
        }
    });
    CHECK(held(stress_tid, stressed, "the stress run waits"));  // the children beside are still running
    std::thread after([&] {  // a child that comes while a stress run waits: after it
        after_tid = gettid();
        if (rw.enter_beside(nullptr)) {
            later = stressed.load();
            overlapped = in_stress.load();
            rw.leave_beside();
        }
        after_done = true;
    });
    CHECK(held(after_tid, after_done, "a child waits behind the waiting stress run"));
    rw.leave_beside();
    rw.leave_beside();
    left = true;
    stress.join();
    after.join();
    CHECK(stressed.load());
    CHECK(later.load());            // not ahead of the stress run that waited
    CHECK_FALSE(overlapped.load());  // nor beside it
    volatile int halt = 1;
    CHECK_FALSE(rw.enter_beside(&halt));  // stopped: none, at once
}

}  // TEST_SUITE
