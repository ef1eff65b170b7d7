// The lab's process runtime (runtime.hpp): what surrounds one run of a lab's body and no student
// code calls: the grader's pipe, the watchdog, the stress and warm-up drivers, and
// guarded_main's one line, exit code and verdict record for every way out.
#include "synclab/runtime.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <new>
#include <thread>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <vector>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "synclab/core_wait.hpp"
#include "synclab/lab.hpp"
#include "synclab/protocol.hpp"
#include "synclab/stress.hpp"
#include "synclab/verdict.hpp"

namespace synclab {

namespace {

// The grader gives its children SYNCLAB_PARENT_FD, a pipe that reads end-of-file once the grader
// is gone (synclab/process.hpp, ProcessLimits::parent_pipe): the lab then stops at once, sandbox
// or not.
void watch_parent() {
    static bool watching = false;  // once a process: synclab-labs runs many labs in one
    if (watching) return;
    watching = true;
    const char *text = std::getenv(protocol::kParentFd);
    if (!text || !*text) return;
    const int fd = std::atoi(text);
    struct stat st {};
    if (fd < 3 || fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) return;  // only the grader's pipe
    if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) return;  // not for what the lab runs
    // Its line goes to the stderr the run began with: a build runs with stderr quieted, and the
    // grader may go while one builds.
    const int err = fcntl(2, F_DUPFD_CLOEXEC, 3);
    std::thread([fd, err] {
        char c;
        for (;;) {
            const ssize_t got = read(fd, &c, 1);
            if (got == 0 || (got < 0 && errno != EINTR)) break;
        }
        static const char message[] = "stopped: the grader that started this run is gone\n";
        (void)!write(err >= 0 ? err : 2, message, sizeof message - 1);
        _exit(kUsage);
    }).detach();
}

// A kernel that crashes the driver (POCL meets a barrier that not every work-item reaches with a
// SIGSEGV or a SIGABRT as often as with a hang) ends the lab with one line that names the kernel
// and the likely causes, then dies of the same signal, so whoever waits sees the signal as
// before. Only write(2) in the handler: the heap may be what broke.
char g_program[128];

extern "C" void on_crash(int sig) {
    const char *what = sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGABRT ? "SIGABRT"
                     : sig == SIGFPE ? "SIGFPE" : "SIGILL";
    const char *kernel = last_kernel_name();
    const char *parts[] = {g_program, ": crashed (", what, ")", *kernel ? " after kernel " : "",
                           kernel, *kernel ? " was launched" : "",
                           ": most often a read or write past a buffer, or a barrier "
                           "that not every work-item of a group reaches (on a CPU it crashes or "
                           "hangs): run it again with --device oclgrind, which names the line\n"};
    for (const char *p : parts) (void)!write(2, p, std::strlen(p));
    raise(sig);  // SA_RESETHAND: the default action now
}

constexpr int kCrashSignals[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};

// Puts on_crash back where another handler took its place. LLVM, which POCL loads, installs its
// own at a build and, on an abort, swallows the first SIGABRT: glibc's second one then ends the
// run with no line (seen in CI: "double free or corruption" alone).
void rearm_crash_line() {
    struct sigaction sa {};
    sa.sa_handler = on_crash;
    sa.sa_flags = SA_RESETHAND | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (int sig : kCrashSignals) {
        struct sigaction now {};
        if (sigaction(sig, nullptr, &now) == 0 && now.sa_handler != on_crash) sigaction(sig, &sa, nullptr);
    }
}

void crash_line(const char *program) {
    std::snprintf(g_program, sizeof g_program, "%s", program);  // the lab running now
    static bool installed = false;  // once a process: synclab-labs runs many labs in one
    if (installed) return;
    installed = true;
    static std::vector<char> stack(64 * 1024);  // a stack overflow still gets its line
    stack_t ss{};
    ss.ss_sp = stack.data();
    ss.ss_size = stack.size();
    sigaltstack(&ss, nullptr);
    rearm_crash_line();
    after_driver_code(rearm_crash_line);
}

double process_cpu_seconds() {
    timespec t{};
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0) return 0;
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// A line on the terminal, once a second after the first two, while a run goes on: what it runs
// and for how long. Written over in place and ended with a carriage return, so the lab's next
// line (longer: a table's row) overwrites it; cleared at the end. Never where stdout or stderr
// is no terminal (the grader's children, a pipe).
class Progress {
public:
    using clock = std::chrono::steady_clock;
    Progress(const std::string &program, int fd)
        : program_(program), fd_(fd), on_(fd >= 0 && isatty(fd) && isatty(1)) {}
    void tick(clock::time_point now, const std::string &what) {
        if (!on_ || now - start_ < std::chrono::seconds(2) || now - shown_at_ < std::chrono::seconds(1))
            return;
        const double s = std::chrono::duration<double>(now - start_).count();
        dprintf(fd_, "\r\033[K%s: %.0f s, %s\r", program_.c_str(), s, what.c_str());
        shown_ = true;
        shown_at_ = now;
    }
    void clear() {
        if (!shown_) return;
        (void)!write(fd_, "\r\033[K", 4);
        shown_ = false;
    }

private:
    const std::string program_;
    const int fd_;
    const bool on_;
    const clock::time_point start_ = clock::now();
    clock::time_point shown_at_{};
    bool shown_ = false;
};

// OpenCL cannot cancel a running kernel, so a kernel that never ends (an endless loop, a barrier
// only some work-items reach) would hang the lab in clFinish. The watchdog ends the process once
// it has gone --timeout seconds since it last got something done (protocol::is_hang), not
// counting time it waited for a core: each tenth of a second counts less the longest any of its
// threads sat in a run queue (core_wait.hpp), so a run asleep in a barrier is stopped at
// --timeout and one held off its cores by other work is not. Where the kernel keeps no run-queue
// times, a tick counts up to the CPU time the process had in it.
class Watchdog {
public:
    // seconds: a kernel's (0: no limit); build_seconds: a build's, or `seconds` when longer.
    Watchdog(const std::string &program, double seconds, double build_seconds) {
        if (seconds <= 0) return;
        // Its line goes to the stderr the run began with: a build runs with stderr quieted.
        err_ = fcntl(2, F_DUPFD_CLOEXEC, 3);
        build_ = std::max(seconds, build_seconds);
        thread_ = std::thread([this, program, seconds] { watch(program, seconds); });
    }
    ~Watchdog() {
        if (!thread_.joinable()) return;
        {
            std::lock_guard<std::mutex> lock(m_);
            done_ = true;
        }
        cv_.notify_all();
        thread_.join();
        if (err_ >= 0) close(err_);
    }

private:
    void watch(const std::string &program, double seconds) {
        using clock = std::chrono::steady_clock;
        auto seen = last_progress(), since = clock::now(), last = since;
        double cpu = process_cpu_seconds(), ran = 0, wall = 0, limit = seconds;
        std::string build = building();
        if (!build.empty()) limit = build_;
        core_wait::Meter cores;
        Progress progress(program, err_);
        std::unique_lock<std::mutex> lock(m_);
        for (;;) {
            if (cv_.wait_for(lock, std::chrono::milliseconds(100), [this] { return done_; })) {
                progress.clear();
                return;
            }
            rearm_crash_line();  // a driver's compiler may have put its handlers in place
            const auto now = clock::now();
            const double cpu_now = process_cpu_seconds(), waited = cores.waited();
            const double tick = std::chrono::duration<double>(now - last).count();
            if (last_progress() != seen) {  // the host launched a kernel, or a build began or ended
                seen = last_progress();
                since = std::max(since, seen);
                ran = 0;
                build = building();
                limit = build.empty() ? seconds : build_;
            } else {
                ran += cores.available() ? core_wait::counted(tick, waited, 0.2)
                                         : std::min(tick, cpu_now - cpu);
            }
            last = now;
            cpu = cpu_now;
            wall = std::chrono::duration<double>(now - since).count();
            if (protocol::is_hang(wall, ran, limit)) break;
            const std::string kernel = last_kernel_name();
            progress.tick(now, !build.empty() ? "building " + build
                               : kernel.empty() ? std::string("running") : "kernel " + kernel);
        }
        stop(program, limit, wall, build, err_ >= 0 ? err_ : 2);
    }

    // The one line, and the verdict: a build that never ends is a compile error, else a timeout.
    [[noreturn]] static void stop(const std::string &program, double limit, double wall,
                                  const std::string &build, int err) {
        std::fflush(stdout);
        std::fflush(stderr);
        char took[64] = "";
        if (wall > limit + 1) std::snprintf(took, sizeof took, " (%.0f s by the clock)", wall);
        const std::string kernel = build.empty() ? running_kernel() : "";
        const std::string which = kernel.empty() ? "a kernel" : "kernel " + kernel;
        char message[600];
        if (!build.empty())
            std::snprintf(message, sizeof message,
                          "the compiler ran %g s on a core%s without finishing %s (a macro or loop "
                          "it expands without end?)", limit, took, build.c_str());
        else
            std::snprintf(message, sizeof message,
                          "stopped after %g s%s, not counting time it waited for a core: %s did "
                          "not finish (an endless loop, or a barrier that not every work-item "
                          "reaches?); raise --timeout if the kernel is just long", limit, took,
                          which.c_str());
        dprintf(err, "%s: %s\n", program.c_str(), message);
        const int code = build.empty() ? kWrong : kUsage;
        // where: the file being built, or the kernel running
        verdict::result(code, build.empty() ? ResultKind::Timeout : ResultKind::CompileError, build.empty() ? kernel : build,
                        message);
        _exit(code);
    }

    std::mutex m_;
    std::condition_variable cv_;
    bool done_ = false;
    int err_ = -1;
    double build_ = 0;
    std::thread thread_;
};

}  // namespace

int guarded_main(const char *program, const std::function<int()> &body) {
    // Every way out: one line on stderr, the exit code, and the same as a verdict record.
    auto fail = [&](int rc, ResultKind kind, const std::string &message,
                    const std::string &where = "") {
        std::cerr << program << ": " << message << "\n";
        std::string first = message.substr(0, message.find('\n'));
        verdict::result(rc, kind, where, first);
        return rc;
    };
    try {
        const int rc = body();
        verdict::result(rc, rc == kOk ? ResultKind::Verified : rc == kWrong ? ResultKind::Wrong : ResultKind::Usage, "", "");
        return rc;
    } catch (const RefusedSource &e) {
        std::cerr << program << ": " << e.what() << "\n";
        verdict::result(kUsage, ResultKind::Refused, e.where, e.first_error);
        return kUsage;
    } catch (const BuildError &e) {
        std::cerr << program << ": " << e.what() << "\n";
        verdict::result(kUsage, ResultKind::CompileError, e.where,
                        e.first_error.empty() ? "the kernel file does not build" : e.first_error);
        return kUsage;
    } catch (const Unsupported &e) {
        return fail(kUsage, ResultKind::Unsupported, e.what());
    } catch (const UsageError &e) {
        return fail(kUsage, ResultKind::Usage, e.what());
    } catch (const cl::Error &e) {
        if (kernel_failed(e)) {
            // A driver may tell a launch above a kernel's report only at the next wait.
            const std::string limit = noted_kernel_limit();
            return fail(kWrong, ResultKind::Crash,
                        std::string(e.what() ? e.what() : "OpenCL call") + " failed: " +
                            cl_error_name(e.err()) +
                            ": a kernel failed on the device, most often by reading or writing "
                            "out of bounds: run it with --device oclgrind to see where" +
                            (limit.empty() ? "" : " (or a work-group too large: " + limit + ")"));
        }
        return fail(kUsage, ResultKind::Error, describe(e));
    } catch (const cxxopts::exceptions::exception &e) {
        return fail(kUsage, ResultKind::Usage, std::string(e.what()) + " (see --help)");
    } catch (const std::bad_alloc &) {
        return fail(kUsage, ResultKind::Error, "out of host memory: try a smaller -n");
    } catch (const std::exception &e) {
        return fail(kUsage, ResultKind::Error, e.what());
    } catch (...) {
        return fail(kUsage, ResultKind::Error, "unknown error");
    }
}

namespace {

// The command that repeats stress schedule `seed` alone: this one's arguments without its
// --stress, --seed, --repeat, --verdict and --csv.
std::string repeat_command(const std::string &program, int argc, char **argv, std::uint64_t seed) {
    std::vector<std::string> kept;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        bool dropped = false;
        for (const std::string n : {"--stress", "--seed", "--repeat", "--verdict", "--csv"}) {
            if (a == n && i + 1 < argc) ++i;  // and its value
            if (a == n || a.rfind(n + "=", 0) == 0) dropped = true;
        }
        if (!dropped) kept.push_back(a);
    }
    // Absolute paths, so the command pastes in any folder: the lab beside this process's own
    // executable (synclab-labs runs beside the labs), the --kernels folder.
    for (std::size_t i = 0; i < kept.size(); ++i)
        if ((kept[i] == "--kernels" && i + 1 < kept.size()) || kept[i].rfind("--kernels=", 0) == 0) {
            std::string &dir = kept[i] == "--kernels" ? kept[i + 1] : kept[i];
            const std::string head = kept[i] == "--kernels" ? "" : "--kernels=";
            std::error_code ec;
            const auto p = std::filesystem::absolute(dir.substr(head.size()), ec);
            if (!ec) dir = head + p.lexically_normal().string();
        }
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return stress_repeat_command(ec ? program : (self.parent_path() / program).string(), kept, seed);
}

// One schedule, tried up to --repeat times until it is not verified: that try's exit code.
int run_schedule(Lab &lab, const std::function<int(Lab &)> &body, unsigned k, std::uint64_t seed) {
    const unsigned n = lab.opt.stress, tries = lab.opt.repeat;
    int rc = kOk;
    for (unsigned t = 0; t < tries && rc == kOk; ++t) {
        lab.stress_schedule(seed);
        std::printf("== stress schedule %u of %u: seed %llu", k + 1, n, static_cast<unsigned long long>(seed));
        if (tries > 1) std::printf(" (try %u of %u)", t + 1, tries);
        std::printf("\n");
        std::fflush(stdout);
        rc = body(lab);
        lab.env.queue.finish();
    }
    return rc;
}

void require_stress_device(const Lab &lab) {
    if (!lab.env.info.is_pocl() || !lab.env.info.is_cpu())
        throw UsageError("--stress runs on POCL's CPU device (its kernels run in this process and "
                         "read the schedule from it): leave out --device, or give --device pocl");
}

// --stress N --warm-up: the body once with the delays paused, in a stress run's build. Every
// kernel a schedule launches is then built and compiled for its work-group size, and POCL's cache
// keeps it for the --stress run that follows (the same prelude, stress.hpp).
int run_warm_up(Lab &lab, const std::function<int(Lab &)> &body) {
    require_stress_device(lab);
    lab.stress_schedule(lab.seed);
    const StressPause paused;
    std::printf("== warm-up: the stress schedules' kernels, built and run once with no delays\n");
    std::fflush(stdout);
    const int rc = body(lab);
    lab.env.queue.finish();
    return rc;
}

// --stress N: the body once per schedule, schedule k with seed S+k (inputs and delays alike),
// until one is not verified; that one is named, with the command that repeats it.
int run_stress(Lab &lab, const std::function<int(Lab &)> &body, int argc, char **argv) {
    require_stress_device(lab);
    const std::uint64_t first = lab.seed;
    const unsigned n = lab.opt.stress;
    for (unsigned k = 0; k < n; ++k) {
        const std::uint64_t seed = first + k;
        const int rc = run_schedule(lab, body, k, seed);
        if (rc == kOk) continue;
        verdict::schedule(seed);
        std::printf("stress schedule %u of %u failed; repeat it with: %s\n", k + 1, n,
                    repeat_command(lab.decl.executable(), argc, argv, seed).c_str());
        return rc;
    }
    std::printf("stress: all %u schedules verified (delays injected at the atomics and fences; "
                "a protocol can still be wrong under a schedule not tried)\n", n);
    return kOk;
}

}  // namespace

double run_timeout(const Declaration &decl, const Options &opt) {
    if (opt.timeout_given || opt.stress || !groups_wait(decl)) return opt.timeout;
    return kSpinTimeout;
}

namespace {

// OCLGRIND_NUM_THREADS as this process was given it (the grader's, or the user's); "" if unset.
const std::string &threads_given() {
    static const std::string given = [] {
        const char *v = std::getenv("OCLGRIND_NUM_THREADS");
        return std::string(v ? v : "");
    }();
    return given;
}

// Oclgrind reads its worker count at each launch, so each line sets it for itself: its
// --oclgrind-threads, else what the process was given, else the lab's own (a lab whose groups
// wait for one another gets as many as its race check meets at once), else Oclgrind's default
// of one a core. A line never inherits an earlier line's, nor another lab's in a shared process.
void set_oclgrind_threads(const Declaration &decl, const Options &opt) {
    const std::string &given = threads_given();
    if (opt.oclgrind_threads)
        setenv("OCLGRIND_NUM_THREADS", std::to_string(opt.oclgrind_threads).c_str(), 1);
    else if (!given.empty())
        setenv("OCLGRIND_NUM_THREADS", given.c_str(), 1);
    else if (decl.oclgrind_groups)
        setenv("OCLGRIND_NUM_THREADS", std::to_string(decl.oclgrind_groups).c_str(), 1);
    else
        unsetenv("OCLGRIND_NUM_THREADS");
}

int run_once(int argc, char **argv, const Declaration &decl, const std::function<int(Lab &)> &body) {
    const std::string name = decl.executable();
    clear_kernel_limits();  // what an earlier line of a --batch noted is not this run's
    return guarded_main(name.c_str(), [&]() -> int {
        std::string variants = "variant to run: ";
        for (const auto &v : decl.variants)
            variants += v.name + (v.demonstration ? " (demonstration)" : "") + ", ";
        variants += "all, or several separated by commas";
        auto parser = make_parser(name, decl.description, variants, "all");
        if (decl.options) decl.options(parser);
        Options opt;
        if (!parse(parser, argc, argv, opt)) return kOk;
        if (opt.describe) {
            describe(std::cout, decl);
            return kOk;
        }
        set_oclgrind_threads(decl, opt);
        // hbcheck's scheduler (hbcheck/include/hbcheck/schedule.hpp) reads its seed at each launch
        // on Oclgrind; only labs whose groups wait for one another load it with several workers.
        if (decl.oclgrind_groups)
            setenv(env::kSchedule, std::to_string(opt.schedule).c_str(), 1);
        // POCL reads its threads at the process's first OpenCL call (listing the devices is one),
        // and keeps them to its end.
        // A process runs stress lines (--stress, --warm-up too) or other lines, not both: every
        // stress line sets the same settings (stress_environment).
        enum Mode { kUnopened, kPlain, kStress };
        static Mode mode = kUnopened;
        const Mode line = opt.stress ? kStress : kPlain;
        if (mode != kUnopened && mode != line)
            throw UsageError("--stress takes a process of its own, shared only with other --stress "
                             "lines (POCL's threads are set before its first OpenCL call): run it "
                             "apart from other --batch lines");
        mode = line;
        if (opt.list_devices) {
            list_devices(std::cout);
            return kOk;
        }
        opt.timeout = run_timeout(decl, opt);
        Watchdog watchdog(name, opt.timeout, opt.build_timeout);
        if (opt.stress) set_stress_environment();  // before any OpenCL call
        Lab lab(decl, std::move(opt));
        const int rc = lab.opt.warm_up  ? run_warm_up(lab, body)
                       : lab.opt.stress ? run_stress(lab, body, argc, argv)
                                        : body(lab);
        lab.env.queue.finish();
        return lab.finish(rc);
    });
}

}  // namespace

int run_lab(int argc, char **argv, const Declaration &decl, const std::function<int(Lab &)> &body) {
    watch_parent();
    crash_line(decl.executable().c_str());
    threads_given();  // read before any line of this process sets it
    load_drivers_on_demand();  // a run opens one device: no driver it does not use starts up
    return run_once(argc, argv, decl, body);
}

}  // namespace synclab
