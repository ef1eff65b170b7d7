// lab01_workgroup_reduce as a student runs it: verdicts, exit codes and one-line errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sys/resource.h>
#include <unistd.h>

#include "support.hpp"
#include "synclab/protocol.hpp"

namespace fs = std::filesystem;
using test::run_lab;

static const std::string kLab = "lab01_workgroup_reduce";

static void check_usage_error(const std::vector<std::string> &args, const std::string &says,
                              const std::map<std::string, std::string> &env = {}) {
    test::check_usage_error(kLab, args, says, env);
}

TEST_SUITE("lab") {

TEST_CASE("the solution verifies: exit 0 and reduceWithSync verified") {
    const auto r = run_lab(kLab, {"--kernels", test::source("solutions"), "--variant", "sync"});
    CAPTURE(r.out);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("reduceWithSync") != std::string::npos);
    CHECK(r.out.find("verified") != std::string::npos);
}

TEST_CASE("the default run shows reduceNoSync wrong but passes on the solution") {
    const auto r = run_lab(kLab, {"--kernels", test::source("solutions"), "--trials", "3",
                                  "--groups", "4"});
    CAPTURE(r.out);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("WRONG (expected") != std::string::npos);
    CHECK(r.out.find("3/3 trials wrong") != std::string::npos);  // reduceNoSync, every trial
    CHECK(r.out.find("0/3 trials wrong, 0/12 group partials wrong") != std::string::npos);
}

TEST_CASE("--variant nosync alone: its wrong answer is the exit code") {
    const auto r = run_lab(kLab, {"--kernels", test::source("solutions"), "--variant", "nosync"});
    CHECK(r.exit_code == 1);
    CHECK(r.out.find("reduceNoSync") != std::string::npos);
}

TEST_CASE("the starter's unfinished reduceWithSync fails (found beside the executable)") {
    const auto r = run_lab(kLab, {"--variant", "sync", "--trials", "3"}, {{synclab::protocol::kKernels, ""}});
    CAPTURE(r.out);
    CHECK(r.exit_code == 1);
    CHECK(r.out.find("WRONG") != std::string::npos);
}

TEST_CASE("SYNCLAB_KERNELS and SYNCLAB_DEVICE choose like --kernels and --device") {
    auto r = run_lab(kLab, {"--variant", "sync"}, {{synclab::protocol::kKernels, test::source("solutions")}});
    CHECK(r.exit_code == 0);
    const auto first = synclab::all_devices().front();
    r = run_lab(kLab, {"--kernels", test::source("solutions"), "--variant", "sync"},
                {{synclab::protocol::kDevice, first.spec()}});
    CHECK(r.exit_code == 0);
    CHECK(r.out.find(first.name) != std::string::npos);
    check_usage_error({"--variant", "sync"}, "no device matches 'nothing-here'",
                      {{synclab::protocol::kDevice, "nothing-here"}});
}

TEST_CASE("--groups 0 fills the device with two groups per compute unit") {
    for (const auto &d : test::dynamic_devices()) {
        const auto r = run_lab(kLab, {"--device", d.spec(), "--kernels", test::source("solutions"),
                                      "--variant", "sync", "--groups", "0"});
        CHECK(r.exit_code == 0);
        const std::size_t want = d.fill_groups();
        CHECK(r.out.find(": " + std::to_string(want) + " group(s) x") != std::string::npos);
    }
}

TEST_CASE("--list-devices lists every device with its limits") {
    const auto r = run_lab(kLab, {"--list-devices"});
    CHECK(r.exit_code == 0);
    for (const auto &d : synclab::all_devices()) CHECK(r.out.find(d.name) != std::string::npos);
    for (const char *col : {"CUs", "max wg", "local KiB", "OpenCL C", "subgroups"})
        CHECK(r.out.find(col) != std::string::npos);
}

TEST_CASE("--device by index and by name") {
    for (const auto &d : test::dynamic_devices()) {
        const auto r = run_lab(kLab, {"--device", d.spec(), "--kernels", test::source("solutions"),
                                      "--variant", "sync"});
        CHECK(r.exit_code == 0);
        CHECK(r.out.find(d.name) != std::string::npos);
    }
    const auto r = run_lab(kLab, {"--device", "pocl", "--kernels", test::source("solutions"),
                                  "--variant", "sync"});
    bool have_pocl = false;
    for (const auto &d : synclab::all_devices()) have_pocl |= d.is_pocl();
    if (have_pocl) CHECK(r.exit_code == 0);
}

TEST_CASE("bad input exits 2 with one line naming the cause and the fix") {
    check_usage_error({"--device", "no-such-device"}, "no device matches 'no-such-device'");
    check_usage_error({"--wg", "1048576"}, "use --wg");
    check_usage_error({"--wg", "100"}, "not a power of two");
    check_usage_error({"-n", "128", "--wg", "256"}, "differ");
    check_usage_error({"--kernels", "/no/such/folder"}, "/no/such/folder/01_workgroup_reduce.cl");
    check_usage_error({"--variant", "fast"}, "unknown --variant 'fast'");
    check_usage_error({"--trials", "0"}, "--trials");
    check_usage_error({"--timeout", "1e10"}, "--timeout is out of range");
    check_usage_error({"--groups", "4611686018427387904"}, "use --groups");
    check_usage_error({"--timeout", "-1"}, "--timeout is out of range");
    check_usage_error({"--wg", "many"}, "see --help");
    check_usage_error({"--no-such-option"}, "see --help");
    check_usage_error({"--csv", "/no/such/folder/x.csv"}, "--csv");
}

TEST_CASE("a kernel that does not compile: exit 2 with the compiler's file:line") {
    const auto r = run_lab(kLab, {"--kernels", test::fixture("compile_error"), "--variant", "sync"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("compile_error/01_workgroup_reduce.cl:6") != std::string::npos);
}

// The seconds by the clock a watchdog's line gives beside its limit (it does once they pass the
// limit by a second: the run waited for a core), or 0.
static double by_the_clock(const std::string &line) {
    const auto at = line.find(" s by the clock)");
    if (at == std::string::npos) return 0;
    const auto from = line.rfind('(', at);
    return std::stod(line.substr(from + 1, at - from - 1));
}

TEST_CASE("a kernel that never finishes is stopped by --timeout with exit 1 and one line") {
    const auto r = run_lab(kLab, {"--kernels", test::fixture("infinite_loop"), "--variant", "sync",
                                  "--timeout", "3"});
    CHECK_FALSE(r.timed_out);  // its own watchdog stopped it, not run_lab's bound (120 s)
    CHECK(r.exit_code == 1);
    CAPTURE(r.err);
    // It names the kernel that was running: the one with the endless loop, not the host's.
    CHECK(r.err.find(": kernel reduceWithSync did not finish (an endless loop") != std::string::npos);
    CHECK(test::line_count(r.err) == 1);
    // The same run on a kernel that finishes is not stopped.
    CHECK(run_lab(kLab, {"--kernels", test::source("solutions"), "--variant", "sync", "--timeout",
                         "30"}).exit_code == 0);
}

TEST_CASE("--timeout counts the time on a core since the last kernel launched: starved it passes, endless it stops") {
    // The rule: a hang is --timeout seconds on a core since the run last got something done, or
    // the clock alone at kClockLimit times it.
    using synclab::protocol::is_hang;
    CHECK_FALSE(is_hang(9, 9, 10));
    CHECK(is_hang(10, 10, 10));
    CHECK_FALSE(is_hang(50, 2, 10));  // held off its core: not a hang for the time it waited
    CHECK(is_hang(50, 10, 10));
    CHECK(is_hang(10 * synclab::protocol::kClockLimit, 0, 10));  // a hang that sleeps
    // A right run stopped (SIGSTOP) for longer than its timeout: its clock ran, its cores did not.
    // The timeout is well above what its longest kernel sequence (the copy probe's) takes on a
    // core of a slow, loaded machine: at 3 s that probe was stopped there once. Stopped once it
    // runs its kernels: POCL maps a kernel it built (a .so in its cache) when it first launches
    // it, so the cache is the run's own. The 10 s stopped are the stimulus: they must outlast
    // --timeout by the clock, as a hang's would.
    char cache[] = "/tmp/synclab-starved-XXXXXX";
    REQUIRE(mkdtemp(cache));
    const std::string script =
        "\"$0\" --kernels \"$1\" --variant v7 -n 16777216 --trials 5 --timeout 8 & p=$!; i=0; "
        "until grep -qs \"$POCL_CACHE_DIR/.*\\.so\" /proc/$p/maps; do "
        "i=$((i + 1)); [ $i -le 1800 ] || exit 9; sleep 0.05; done; "  // a bound of 90 s
        "kill -STOP $p || exit 9; sleep 10; kill -CONT $p; wait $p";
    synclab::ProcessLimits limits;
    limits.timeout_s = 120;
    const auto starved = synclab::run_process(
        {"/bin/sh", "-c", script, test::lab("lab08_reduction_ladder"), test::source("solutions")},
        {{"POCL_CACHE_DIR", cache}}, limits);
    std::error_code ec;
    fs::remove_all(cache, ec);
    CAPTURE(starved.err);
    CHECK(starved.exit_code == 0);  // 9: no kernel of it seen running (no test)
    CHECK(starved.out.find("verified") != std::string::npos);
    // An endless kernel still stops, with its one line.
    const auto endless = run_lab(kLab, {"--kernels", test::fixture("infinite_loop"), "--variant",
                                        "sync", "--timeout", "3"});
    CHECK(endless.exit_code == 1);
    CHECK(endless.err.find("stopped after 3 s") != std::string::npos);
    CHECK(test::line_count(endless.err) == 1);
    // Its time on a core stopped it, not the clock's own limit (30 s), as its line tells.
    CHECK(by_the_clock(endless.err) < 3 * synclab::protocol::kClockLimit);
}

// The CPU seconds of the children this process has waited for, so far.
static double children_cpu_seconds() {
    rusage u{};
    getrusage(RUSAGE_CHILDREN, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

TEST_CASE("a run of many kernels may last past --timeout, each of them well within it") {
    // The number of trials is doubled on this machine, under its load, until the run takes over
    // four seconds of CPU, each trial's kernel a fraction of a millisecond. With --timeout 1
    // counted over the whole run it would stop; counted from each launch it does not.
    char dir[] = "/tmp/synclab-progress-XXXXXX";
    REQUIRE(mkdtemp(dir));
    const std::map<std::string, std::string> cache{{"POCL_CACHE_DIR", dir}};
    const auto run = [&](int trials, const char *timeout) {
        const double before = children_cpu_seconds();
        const auto r = run_lab(kLab, {"--kernels", test::source("solutions"), "--variant", "sync",
                                      "--trials", std::to_string(trials), "--timeout", timeout},
                               cache);
        return std::pair{r, children_cpu_seconds() - before};
    };
    run(1, "0");  // builds into the cache: the runs below compile nothing
    int trials = 4000;
    while (run(trials, "0").second < 4 && trials < (1 << 26)) trials *= 2;
    const auto [r, cpu] = run(trials, "1");
    CAPTURE(r.err);
    CAPTURE(trials);
    CHECK(r.exit_code == 0);
    CHECK(cpu > 2);  // the run did outlast --timeout on a core: the check above meant something
    std::error_code ec;
    fs::remove_all(dir, ec);
}

TEST_CASE("a build that never finishes is stopped by --build-timeout as a compile error naming the file") {
    // 4^9 statements a macro makes: 4^8 took 25 s of a core to build here, so 4^9 is far past
    // the 5 s given.
    std::string blowup = "#define A0 s = s * 3u + (s >> 7);\n";
    for (int k = 1; k <= 9; ++k) {
        const std::string a = "A" + std::to_string(k - 1) + " ";
        blowup += "#define A" + std::to_string(k) + " " + a + a + a + a + "\n";
    }
    blowup += "__kernel void slow(__global uint *o) { uint s = o[0]; A9 o[0] = s; }\n__kernel";
    const std::string slow = test::mutated("01_workgroup_reduce.cl", "__kernel", blowup);
    char cache[] = "/tmp/synclab-build-XXXXXX";  // cold, so the right file's build is timed too
    REQUIRE(mkdtemp(cache));
    const std::map<std::string, std::string> env{{"POCL_CACHE_DIR", cache}};
    const auto r = run_lab(kLab, {"--kernels", slow, "--variant", "sync", "--timeout", "5",
                                  "--build-timeout", "5"}, env);
    CAPTURE(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(": the compiler ran 5 s on a core") != std::string::npos);
    CHECK(r.err.find(slow + "/01_workgroup_reduce.cl") != std::string::npos);
    CHECK(test::line_count(r.err) == 1);
    CHECK(by_the_clock(r.err) < 5 * synclab::protocol::kClockLimit);  // its time on a core stopped it
    // The right file, built cold under the same limits, is not stopped.
    const auto right = run_lab(kLab, {"--kernels", test::source("solutions"), "--variant", "sync",
                                      "--timeout", "5", "--build-timeout", "5"}, env);
    CAPTURE(right.err);
    CHECK(right.exit_code == 0);
    check_usage_error({"--build-timeout", "0"}, "--build-timeout is out of range");
    std::error_code ec;
    fs::remove_all(slow, ec);
    fs::remove_all(cache, ec);
}

TEST_CASE("--help shows the shared options with their defaults and exits 0") {
    const auto r = run_lab(kLab, {"--help"});
    CHECK(r.exit_code == 0);
    for (const char *opt : {"--device", "--list-devices", "--kernels", "--size", "--wg", "--groups",
                            "--trials", "--seed", "--variant", "--csv", "300 in the others", "--exact",
                            "the lab's own", "one work-group, as in the lecture"})
        CHECK(r.out.find(opt) != std::string::npos);
}

TEST_CASE("--exact: whole-number inputs, every group's sum compared exactly") {
    const auto r = run_lab(kLab, {"--kernels", test::source("solutions"), "--exact", "--groups",
                                  "5", "--trials", "3", "--seed", "4"});
    CAPTURE(r.out);
    CHECK(r.exit_code == 0);
    std::smatch m;
    REQUIRE(std::regex_search(r.out, m, std::regex(R"(reduceWithSync  device +(\d+)\.0000  host +(\d+)\.0000  verified)")));
    CHECK(m[1] == m[2]);
    CHECK(std::stoi(m[1]) >= 256);  // 256 products of whole numbers 1..3
    CHECK(std::stoi(m[1]) <= 9 * 256);
    CHECK(r.out.find("0/3 trials wrong, 0/15 group partials wrong") != std::string::npos);
}

TEST_CASE("a tree that hard-codes 256 work-items is right up to 256 and wrong past it") {
    const std::string dir = test::fixture("hardcoded_wg_01");
    for (const char *wg : {"1", "64", "256"})
        CHECK(run_lab(kLab, {"--kernels", dir, "--variant", "sync", "--exact", "--wg", wg,
                             "--groups", "3"}).exit_code == 0);
    for (const char *wg : {"512", "1024"}) {
        const auto r = run_lab(kLab, {"--kernels", dir, "--variant", "sync", "--exact", "--wg", wg,
                                      "--groups", "3"});
        CAPTURE(r.out);
        CHECK(r.exit_code == 1);
        CHECK(r.out.find("1/1 trials wrong, 3/3 group partials wrong") != std::string::npos);
        CHECK(run_lab(kLab, {"--kernels", test::source("solutions"), "--variant", "sync", "--exact",
                             "--wg", wg, "--groups", "3"}).exit_code == 0);
    }
}

TEST_CASE("--csv writes one row per variant") {
    const auto csv = fs::temp_directory_path() / ("synclab-lab01-" + std::to_string(getpid()) + ".csv");
    const auto r = run_lab(kLab, {"--kernels", test::source("solutions"), "--csv", csv.string(),
                                  "--trials", "2"});
    CHECK(r.exit_code == 0);
    std::ifstream in(csv);
    std::string header, nosync, sync;
    std::getline(in, header);
    std::getline(in, nosync);
    std::getline(in, sync);
    CHECK(header.rfind("variant,groups,wg,trials,wrong_trials", 0) == 0);
    CHECK(nosync.rfind("nosync,1,", 0) == 0);
    CHECK(sync.rfind("sync,1,", 0) == 0);
    fs::remove(csv);
}

TEST_CASE("a build folder copied elsewhere finds the kernels/ beside it") {
    const fs::path root = fs::temp_directory_path() / ("synclab-copy-" + std::to_string(getpid()));
    fs::create_directories(root / "build" / "bin");
    fs::create_directories(root / "kernels");
    fs::copy_file(test::lab(kLab), root / "build" / "bin" / kLab);
    // The copy's kernels/ holds the solution: a verified run proves it was found there, not
    // in the source tree (whose starter fails).
    fs::copy_file(test::source("solutions/01_workgroup_reduce.cl"),
                  root / "kernels" / "01_workgroup_reduce.cl");
    const auto r = synclab::run_process({(root / "build" / "bin" / kLab).string(), "--variant", "sync"},
                                        {{synclab::protocol::kKernels, ""}});
    CHECK(r.exit_code == 0);
    fs::remove_all(root);
}

}  // TEST_SUITE
