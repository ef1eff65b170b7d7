// The lab's watchdog: a hang's clock counts the time a run neither ran nor waited for a core, so a
// run asleep in a barrier stops at --timeout and one starved of cores never does.
#include <doctest/doctest.h>

#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>

#include "support.hpp"
#include "synclab/core_wait.hpp"
#include "synclab/process.hpp"

namespace fs = std::filesystem;

TEST_SUITE("unit") {

TEST_CASE("a hang's clock counts blocked time and never the time a run waited for a core") {
    using synclab::core_wait::counted;
    CHECK(counted(0.1, 0.0, 0.2) == doctest::Approx(0.1));    // asleep in a barrier: all of it
    CHECK(counted(0.1, 0.1, 0.2) == doctest::Approx(0.0));    // starved the whole tick: none
    CHECK(counted(0.1, 0.05, 0.2) == doctest::Approx(0.05));  // half a core: half
    CHECK(counted(10.0, 0.0, 0.2) == doctest::Approx(0.2));   // stopped (SIGSTOP): one tick at most
    // The most-starved thread of the process decides, from its schedstat (run, wait, slices).
    char dir[] = "/tmp/synclab-schedstat-XXXXXX";
    REQUIRE(mkdtemp(dir));
    const fs::path tasks(dir);
    auto set = [&](const char *tid, unsigned long long wait_ns) {
        fs::create_directories(tasks / tid);
        std::ofstream(tasks / tid / "schedstat") << "123 " << wait_ns << " 7\n";
    };
    set("100", 1'000'000'000ull);
    set("101", 0);
    synclab::core_wait::Meter meter(dir);
    REQUIRE(meter.available());
    CHECK(meter.waited() == doctest::Approx(0.0));
    set("100", 1'050'000'000ull);  // waited 50 ms
    set("101", 80'000'000ull);     // waited 80 ms
    CHECK(meter.waited() == doctest::Approx(0.08));
    set("102", 30'000'000ull);     // a new thread: all its wait is new
    CHECK(meter.waited() == doctest::Approx(0.03));
    CHECK(meter.waited() == doctest::Approx(0.0));
    std::error_code ec;
    fs::remove_all(dir, ec);
    // This process's own threads are read where Linux keeps run-queue times.
    synclab::core_wait::Meter self;
    if (std::ifstream("/proc/self/schedstat").good()) CHECK(self.available());
    CHECK_FALSE(synclab::core_wait::Meter("/nonexistent").available());
}

}  // TEST_SUITE

namespace {

// Two shell loops that spin until the value goes out of scope: "two busy loops beside it".
struct BusyLoops {
    std::vector<pid_t> pids;
    BusyLoops() {
        for (int i = 0; i < 2; ++i) {
            const pid_t p = fork();
            if (p == 0) {
                execl("/bin/sh", "sh", "-c", "while :; do :; done", static_cast<char *>(nullptr));
                _exit(127);
            }
            if (p > 0) pids.push_back(p);
        }
    }
    ~BusyLoops() {
        for (pid_t p : pids) kill(p, SIGKILL);
        for (pid_t p : pids) waitpid(p, nullptr, 0);
    }
};

// Lab 10's tiled kernel on a ragged grid, from `kernels`, with --timeout 10, bounded far past
// the watchdog's own limits on a core but below its clock's (10x: the old way to end a run
// asleep in a barrier).
synclab::ProcessResult ragged_tiled(const std::string &kernels) {
    synclab::ProcessLimits limits;
    limits.timeout_s = 50;
    return synclab::run_process({test::lab("lab10_laplace"), "--kernels", kernels, "--variant",
                                 "tiled", "--grid", "67x45", "--block", "4x2", "--timeout", "10"},
                                {}, limits);
}

}  // namespace

TEST_SUITE("lab") {

TEST_CASE("a barrier not every work-item reaches ends the run with its line, idle or beside two busy loops") {
    // The tiled kernel returns past the grid before its barrier: POCL crashes at once, or sleeps
    // in the barrier (seen on a busy laptop). Either way the run ends by itself, in one line that
    // names the kernel and a barrier; a right run beside the same loops is never stopped.
    const std::string broken = test::fixture("barrier_after_return_10");
    for (const bool busy : {false, true}) {
        CAPTURE(busy);
        std::optional<BusyLoops> loops;
        if (busy) loops.emplace();
        const auto r = ragged_tiled(broken);
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK_FALSE(r.timed_out);
        CHECK((r.signal != 0 || r.exit_code == 1));
        CHECK(r.err.find("jacobiTiled") != std::string::npos);
        CHECK(r.err.find("barrier that not every work-item") != std::string::npos);
        const auto right = ragged_tiled(test::source("solutions"));
        CAPTURE(right.err);
        CHECK(right.exit_code == 0);
    }
}

}  // TEST_SUITE

TEST_SUITE("lab") {

TEST_CASE("a run past two seconds shows a progress line on a terminal, and none through a pipe") {
    // An endless kernel, stopped by --timeout 4: it runs past two seconds wherever it runs.
    const std::string lab = test::lab("lab01_workgroup_reduce"), kernels = test::fixture("infinite_loop");
    const std::string command = "'" + lab + "' --kernels '" + kernels + "' --variant sync --timeout 4";
    synclab::ProcessLimits limits;
    limits.timeout_s = 100;
    // script(1) gives the run a terminal; its output is what the terminal was sent.
    const auto tty = synclab::run_process({"/usr/bin/script", "-qec", command, "/dev/null"}, {}, limits);
    CAPTURE(tty.out);
    CHECK(tty.out.find("lab01_workgroup_reduce: 2 s, kernel reduceWithSync\r") != std::string::npos);
    CHECK(tty.out.find("stopped after 4 s") != std::string::npos);
    const auto piped = synclab::run_process({"/bin/sh", "-c", command}, {}, limits);
    CAPTURE(piped.err);
    CHECK(piped.err.find("stopped after 4 s") != std::string::npos);
    CHECK(piped.err.find(" s, kernel ") == std::string::npos);
    CHECK(test::line_count(piped.err) == 1);
}

}  // TEST_SUITE

TEST_SUITE("lab") {

TEST_CASE("an abort while a kernel runs ends the run with its line, past the compiler's handlers") {
    // POCL's LLVM puts handlers on SIGABRT at a build that swallow an abort's first signal, so
    // glibc's abort on a heap a kernel broke ("double free or corruption") ended a run with no
    // line. The run here is on a terminal: its progress line says the kernel runs, then it aborts.
    std::string lab = test::lab("lab01_workgroup_reduce"), kernels = test::fixture("infinite_loop");
    std::vector<std::string> args{lab, "--kernels", kernels, "--variant", "sync", "--timeout", "60"};
    std::vector<char *> argv;
    for (auto &a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int master = -1;
    const pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
    REQUIRE(pid >= 0);
    if (pid == 0) {
        execv(argv[0], argv.data());
        _exit(127);
    }
    std::string out;
    bool aborted = false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(50);
    char buf[4096];
    while (std::chrono::steady_clock::now() < deadline) {
        if (!aborted && out.find(", kernel reduceWithSync") != std::string::npos) {
            kill(pid, SIGABRT);
            aborted = true;
        }
        pollfd p{master, POLLIN, 0};
        if (poll(&p, 1, 200) <= 0) continue;
        const ssize_t n = read(master, buf, sizeof buf);
        if (n <= 0) break;  // EIO: the run closed the terminal
        out.append(buf, static_cast<std::size_t>(n));
    }
    close(master);
    if (std::chrono::steady_clock::now() >= deadline) kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    CAPTURE(out);
    CHECK(aborted);
    CHECK(WIFSIGNALED(status));
    CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT));
    CHECK(out.find("crashed (SIGABRT) after kernel reduceWithSync was launched: ") != std::string::npos);
}

}  // TEST_SUITE
