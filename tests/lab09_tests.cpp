// lab09_interworkgroup_barrier: every method verified up to the groups found resident, discovery
// far beyond them, too many groups give up in bounded time (no hang), a barrier that does not
// wait is caught while the solution passes, bad input refused. Timings are never asserted.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <unistd.h>

#include "support.hpp"
#include "synclab/protocol.hpp"

namespace fs = std::filesystem;
using test::run_lab;

static const std::string kLab = "lab09_interworkgroup_barrier";
static const std::string kGraded =
    "relaunch,centralized,decentralized,discovered,generation,hierarchical";

static int count(const std::string &text, const std::string &word) {
    int n = 0;
    for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
    return n;
}

// "discovery: N of" in the banner.
static int discovered(const std::string &out) {
    std::smatch m;
    return std::regex_search(out, m, std::regex("discovery: ([0-9]+) of")) ? std::stoi(m[1]) : -1;
}

TEST_SUITE("lab") {

TEST_CASE("lab09 every method verifies on POCL at each group count up to the resident ones") {
    const auto first = run_lab(kLab, {"--kernels", test::source("solutions"), "--variant", kGraded,
                                      "--steps", "16"});
    CAPTURE(first.out);
    REQUIRE(first.exit_code == 0);
    CHECK(count(first.out, "verified") == 7);  // relaunch twice, five barriers
    const int occ = discovered(first.out);
    CHECK(occ >= 1);
    // One group per compute unit at least (POCL: 2 threads, 2 groups), and what discovery saw.
    for (int g = 1; g <= std::max(occ, 2); ++g)
        for (const char *wg : {"1", "64"}) {
            CAPTURE(g);
            CAPTURE(wg);
            const auto r = run_lab(kLab, {"--kernels", test::source("solutions"), "--variant",
                                          kGraded, "--groups", std::to_string(g), "--wg", wg,
                                          "-n", "301", "--steps", "16", "--work", "2"});
            CAPTURE(r.out);
            CHECK(r.exit_code == 0);
            CHECK(count(r.out, "verified") == 7);
            CHECK(count(r.out, "WRONG") + count(r.out, "gave up") == 0);
        }
}

TEST_CASE("lab09 discovered verifies at sizes far beyond the groups resident, on POCL and Oclgrind") {
    const auto r = run_lab(kLab, {"--kernels", test::source("solutions"), "--variant", "discovered",
                                  "--groups", "500", "-n", "20000", "--wg", "8", "--steps", "12"});
    CAPTURE(r.out);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("barrierDiscovered (discovered)     500") != std::string::npos);
    CHECK(count(r.out, "verified") == 1);
    if (!test::have_oclgrind()) return;
    // Oclgrind runs four groups at once (the declaration's oclgrind_groups): discovery finds at
    // most four of the six, and those do all the work.
    const auto o = run_lab(kLab, {"--kernels", test::source("solutions"), "--device", "oclgrind",
                                  "--variant", "discovered", "--groups", "6", "-n", "48", "--wg",
                                  "8", "--steps", "2"});
    CAPTURE(o.out);
    CHECK(o.exit_code == 0);
    const int found = discovered(o.out);
    CHECK(found >= 1);
    CHECK(found <= 4);
    CHECK(o.out.find("barrierDiscovered (discovered)       6") != std::string::npos);
}

TEST_CASE("lab09 too many groups: the naive barriers give up within their budget, no hang") {
    // Two POCL threads whatever the machine has (as the grader gives), so 2 groups are resident.
    const auto r = run_lab(kLab, {"--kernels", test::source("solutions"), "--variant",
                                  "centralized,decentralized", "--groups", "40"},
                           {{"POCL_CPU_MAX_CU_COUNT", "2"}, {"POCL_MAX_PTHREAD_COUNT", "2"}});
    CAPTURE(r.out);
    CAPTURE(r.err);
    CHECK(r.exit_code == 1);
    // Their budgets ended both (their lines below): not run_lab's bound, nor the watchdog's line.
    CHECK_FALSE(r.timed_out);
    CHECK(r.err.find("did not finish") == std::string::npos);
    // POCL runs one group per thread: 2 arrive, the 38 others cannot start.
    CHECK(count(r.out, "barrier gave up at step 1: 2 of 40 groups arrived - the others were never "
                       "resident") == 2);
    CHECK(count(r.out, "verified") == 0);
    if (!test::have_oclgrind()) return;
    const auto o = run_lab(kLab, {"--kernels", test::source("solutions"), "--device", "oclgrind",
                                  "--variant", "centralized", "--groups", "6", "-n", "48", "--wg",
                                  "8", "--steps", "2", "--schedule", "0"});  // six groups, four at a time
    CAPTURE(o.out);
    CHECK(o.exit_code == 1);
    CHECK(o.out.find("barrier gave up at step 1") != std::string::npos);
    // In hbcheck's schedule (the default) the four that run wait for two that never start: a
    // deadlock, told as such.
    const auto sched = run_lab(kLab, {"--kernels", test::source("solutions"), "--device", "oclgrind",
                                  "--variant", "centralized", "--groups", "6", "-n", "48", "--wg",
                                  "8", "--steps", "2"});
    CAPTURE(sched.out);
    CHECK(sched.exit_code == 1);
    CHECK(sched.out.find("centralized WRONG: deadlock in kernel barrierCentralized") != std::string::npos);
    CHECK(sched.out.find("need ones that never start") != std::string::npos);
    // A worker for each of the six (--oclgrind-threads): they all meet, and the barrier holds.
    const auto all = run_lab(kLab, {"--kernels", test::source("solutions"), "--device", "oclgrind",
                                    "--variant", "centralized", "--groups", "6", "-n", "48", "--wg",
                                    "8", "--steps", "2", "--oclgrind-threads", "6"});
    CAPTURE(all.out);
    CHECK(all.exit_code == 0);
    CHECK(all.out.find("deadlock") == std::string::npos);
}

TEST_CASE("lab09 a barrier that does not wait is caught on POCL while the solution passes") {
    // Fixture -> the variant whose barrier lacks its wait. Groups are held back in turn (--skew),
    // so a group that goes on reads values not yet written: the exact check fails.
    for (const auto &[fixture, variant] :
         std::vector<std::pair<std::string, std::string>>{{"missing_wait_09", "centralized"},
                                                          {"missing_release_wait_09", "decentralized"}})
        for (const char *wg : {"1", "64"}) {
            CAPTURE(fixture);
            CAPTURE(wg);
            const std::vector<std::string> at{"--variant", variant, "--wg", wg, "-n", "301",
                                              "--steps", "16"};
            auto bad = at;
            bad.insert(bad.end(), {"--kernels", test::fixture(fixture)});
            const auto r = run_lab(kLab, bad);
            CAPTURE(r.out);
            CHECK(r.exit_code == 1);
            CHECK(count(r.out, "verified") == 0);
            auto good = at;
            good.insert(good.end(), {"--kernels", test::source("solutions")});
            const auto g = run_lab(kLab, good);
            CAPTURE(g.out);
            CHECK(g.exit_code == 0);
            CHECK(count(g.out, "verified") == 1);
        }
    // The starter's barriers do not wait yet: wrong, never hung.
    const auto s = run_lab(kLab, {"--kernels", test::source("kernels"), "--variant",
                                  "centralized,decentralized,discovered,generation,hierarchical"});
    CAPTURE(s.out);
    CHECK(s.exit_code == 1);
    CHECK(count(s.out, "WRONG") == 5);
}

// Runs the lab on the solution with each change made (test::mutated: each `from` REQUIREd there).
static synclab::ProcessResult run_changed(const std::vector<std::pair<std::string, std::string>> &changes,
                                          const std::vector<std::string> &args) {
    const std::string dir = test::mutated("09_interworkgroup_barrier.cl", changes);
    std::vector<std::string> all{"--kernels", dir};
    all.insert(all.end(), args.begin(), args.end());
    const auto r = run_lab(kLab, all);
    fs::remove_all(dir);
    return r;
}

TEST_CASE("lab09 a device whose OpenCL C 2.0/3.0 build lacks the C11 kernel skips it, never aborts") {
    // NVIDIA's driver says OpenCL 3.0 but has no device-scope atomics: the file's #if leaves the
    // C11 kernel out of that build. Here the #if is made false everywhere to stand for it.
    const auto r = run_changed({{"#if __OPENCL_C_VERSION__ >= 200 &&",
                                 "#if 0 && __OPENCL_C_VERSION__ >= 200 &&"}},
                               {"--variant", "centralized,c11"});
    CAPTURE(r.out);
    CAPTURE(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("not run: its OpenCL C has no device-scope atomics") != std::string::npos);
    CHECK(r.err.find("CL_INVALID_KERNEL_NAME") == std::string::npos);
}

// The waiters' poll in discover() (given code): it counts one poll in 64 against the budget.
static const std::string kWaiterPoll =
    "if ((++polls & 63) == 0 && !keep_waiting(ctl, &spins, budget)) return -1;";

// The master's poll in discover(): a bounded loop, its budget (2^27 polls on a CPU) at most.
static const std::string kMasterPoll = "while (quiet < grace && ++spins < budget) {";

TEST_CASE("lab09 discovery's waiters outlast the master's whole budget, and counting every poll they do not") {
    // The master made to hold the poll 8 times its budget (a quiet window, --grace, that long),
    // as a busy host holding it off its core would: discovery's waiters, counting one poll in 64,
    // wait it out and every barrier verifies on its first try. Waiters that count every poll give
    // up after one budget, leave, are counted (31 groups for 2 resident), and the barrier gives
    // up on both tries. A hold of one budget only (the master's own bound) made that a race.
    const std::pair<std::string, std::string> held{kMasterPoll,
                                                   "while (quiet < grace && ++spins < 8u * budget) {"};
    const std::vector<std::string> args{"--variant", "discovered", "--wg", "1", "-n", "61",
                                        "--steps", "4", "--grace", "1073741824", "--trials", "1"};
    const auto r = run_changed({held}, args);
    CAPTURE(r.out);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("verified") != std::string::npos);
    CHECK(r.out.find("gave up") == std::string::npos);
    const auto every = run_changed({held, {kWaiterPoll, "if (!keep_waiting(ctl, &spins, budget)) return -1;"}}, args);
    CAPTURE(every.out);
    CHECK(every.exit_code == 1);
    CHECK(every.out.find("gave up at step 1") != std::string::npos);
}

TEST_CASE("lab09 discovery whose waiters ran out of budget is not trusted: the barriers still verify") {
    // On a busy host a registered group's wait can run out while group 0's master is descheduled;
    // it leaves and frees its place for one more, so the count grows past what is resident (CI:
    // 65 counted, 2 resident, every barrier gave up). Here the waiters give up at once.
    const auto r = run_changed({{kWaiterPoll, "{ atomic_xchg(&ctl[GAVE_UP], 1u); return -1; }"}},
                               {"--variant", "centralized,generation", "--steps", "8"});
    CAPTURE(r.out);
    CHECK(r.exit_code == 0);
    CHECK(count(r.out, "verified") == 2);
    CHECK(discovered(r.out) <= 2);  // one master, and at most one waiter that stayed
    CHECK(r.out.find("had a wait run out") != std::string::npos);
}

// On a CPU the host runs the same steps with C++20's std::barrier, a thread per compute unit:
// verified against the reference, and the best in-kernel barrier's time given as a ratio to it.
// Elsewhere (a GPU) there is no such row.
TEST_CASE("lab09 on a CPU std::barrier over host threads is verified and set against the barriers") {
    for (const auto &d : test::dynamic_devices()) {
        CAPTURE(d.name);
        // n not a multiple of the threads; an odd and an even number of steps.
        for (const char *steps : {"7", "8"}) {
            const auto r = run_lab(kLab, {"--device", d.spec(), "--kernels", test::source("solutions"),
                                          "--variant", "centralized", "-n", "777", "--steps", steps});
            CAPTURE(r.out);
            CHECK(r.exit_code == 0);
            CHECK(std::regex_search(r.out, std::regex("\nstd::barrier \\(host\\) +[0-9]+ +[0-9]+ +[0-9.]+ "
                                                      "+[0-9.]+  matches the reference\n")) == d.is_cpu());
            CHECK(std::regex_search(r.out, std::regex("\nstd::barrier over [0-9]+ host threads: [0-9.]+ us "
                                                      "per step; the best barrier inside one launch "
                                                      "takes [0-9.]+x that\n")) == d.is_cpu());
            CHECK(r.out.find("WRONG") == std::string::npos);
        }
    }
}

TEST_CASE("lab09 bad input exits 2 with one line naming the cause and the fix") {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{"--steps", "0"}, "use 1 to 100000"},
        {{"-n", "1"}, "use -n 2 to 268435456"},
        {{"--wg", "100000"}, "use --wg 4096 or less"},
        {{"--groups", "0"}, "leave it out"},
        {{"--budget", "3"}, "--budget must be at least 16"},
        {{"--sweep", "fast"}, "use groups, steps or occupancy"},
        {{"--exact"}, "leave out --exact"},
        {{"--variant", "fast"}, "unknown --variant 'fast'"},
        {{"--oclgrind-threads", "65"}, "use 1 to 64"},
    };
    for (const auto &[args, says] : cases) test::check_usage_error(kLab, args, says);
}

TEST_CASE("lab09 the plot script draws the sweeps' CSV or says how to install gnuplot") {
    const auto dir = fs::temp_directory_path() / ("synclab-lab09-plot-" + std::to_string(getpid()));
    fs::create_directories(dir);
    const auto csv = (dir / "groups.csv").string(), png = (dir / "groups.png").string();
    REQUIRE(run_lab(kLab, {"--kernels", test::source("solutions"), "--sweep", "groups", "--steps",
                           "8", "--csv", csv}).exit_code == 0);
    test::check_plot("plot_09_interworkgroup_barrier.sh", csv, png);
    fs::remove_all(dir);
}

}  // TEST_SUITE

TEST_SUITE("oclgrind") {

TEST_CASE("lab09 hbcheck reports the nofence demonstration and nothing in the fenced barriers") {
    if (!test::have_oclgrind()) return;
    const auto r = test::run_on_oclgrind(
        kLab, {"--kernels", test::source("solutions"), "--variant",
               "centralized,decentralized,discovered,generation,hierarchical,nofence", "-n", "64",
               "--wg", "16", "--steps", "3", "--groups", "4"});
    CAPTURE(r.process.out);
    CHECK(r.process.exit_code == 0);  // a demonstration decides nothing when others run
    bool nofence = false;
    for (const auto &f : r.findings) {
        CAPTURE(f.friendly());
        CHECK(f.kernel == "barrierCentralizedNoFence");
        nofence |= f.kind == "memory-model";
    }
    CHECK(nofence);
}

TEST_CASE("lab09 hbcheck finds a flag set by a plain store, without hbcheck the lab says it did not check") {
    if (!test::have_oclgrind()) return;
    const std::vector<std::string> args{"--kernels", test::fixture("flag_plain_store_09"),
                                        "--variant", "decentralized", "-n", "64", "--wg", "16",
                                        "--steps", "3", "--groups", "4"};
    const auto found = test::run_on_oclgrind(kLab, args);
    CAPTURE(found.process.out);
    CHECK(found.process.exit_code == 1);
    bool memory_model = false;
    for (const auto &f : found.findings)
        memory_model |= f.kind == "memory-model" && f.kernel == "barrierDecentralized";
    CHECK(memory_model);
    // The same run with hbcheck turned off: no finding between groups (Oclgrind's own reports
    // there are dropped), and a line that says the fences were not checked.
    std::vector<std::string> all{"--device", "oclgrind"};
    all.insert(all.end(), args.begin(), args.end());
    const auto off = run_lab(kLab, all, {{synclab::protocol::kHbcheck, "off"}});
    CAPTURE(off.out);
    CHECK(off.exit_code == 0);
    CHECK(off.out.find("fences between work-groups not checked") != std::string::npos);
    CHECK(off.out.find("WRONG") == std::string::npos);
    // A plugin file Oclgrind cannot load: the lab does not take it for a clean check.
    const std::string fake = (std::filesystem::temp_directory_path() /
                              ("synclab-not-a-plugin-" + std::to_string(getpid()) + ".so"))
                                 .string();
    std::ofstream(fake) << "not a shared library\n";
    const auto broken = run_lab(kLab, all, {{synclab::protocol::kHbcheck, fake}});
    std::filesystem::remove(fake);
    CAPTURE(broken.out);
    CHECK(broken.out.find("did not run: Oclgrind could not load it") != std::string::npos);
    CHECK(broken.out.find("(hbcheck)") == std::string::npos);
}

}  // TEST_SUITE
