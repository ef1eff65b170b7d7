#include "synclab/lab.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <new>
#include <sstream>
#include <thread>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "synclab/program_text.hpp"
#include "synclab/protocol.hpp"
#include "synclab/stress.hpp"
#include "synclab/verdict.hpp"

namespace fs = std::filesystem;

namespace synclab {

bool is_power_of_two(std::size_t x) { return x && !(x & (x - 1)); }

Lab::Lab(const Declaration &d, Options o)
    : decl(d), opt(std::move(o)), env(select_device(opt.device), decl.oclgrind_off, decl.oclgrind_groups > 0),
      seed(effective_seed(opt)) {
    // Oclgrind counts its reports per process and stops reporting at its cap, so a second
    // Oclgrind run in one process (--batch) could miss its own races.
    static bool oclgrind_ran = false;
    if (env.info.is_oclgrind()) {
        if (oclgrind_ran)
            throw UsageError("one Oclgrind run per process: Oclgrind counts its reports per "
                             "process, so give each Oclgrind run its own (not two --batch lines)");
        oclgrind_ran = true;
    }
    rng.seed(seed);
    verdict::seed(seed);
    csv_stream();  // a CSV file that cannot be written is a usage error before any output
}

cl::Program Lab::program(const std::string &options) const {
    // A stress run's time is its delays, not its code: unoptimised, the build takes less time.
    const std::string built = stress_seed_ ? options + " -cl-opt-disable" : options;
    const std::string prelude = stress_seed_ ? stress_prelude() : "";
    const Profile *profile = active_profile();
    if (!profile)  // a student's own run: the file as it is
        return build_program(env.context, env.info.device, decl.kernel_file(), opt.kernels, built, prelude);
    // A graded run: the one program text every check builds, its instrumentation added after.
    const std::string path = find_kernel_file(decl.kernel_file(), opt.kernels);
    const std::string text = program_text(path, options, *profile, decl.local_limit);
    note_other_profiles(path, options, text);
    return build_program_text(env.context, env.info.device, path, text, built, prelude);
}

void Lab::stress_schedule(std::uint64_t s) {
    seed = s;
    rng.seed(s);
    stress_seed_ = s;
    set_stress_schedule(s);
}

std::vector<std::string> Lab::selected_variants() const {
    std::vector<std::string> all;
    for (const auto &v : decl.variants) all.push_back(v.name);
    if (opt.variant == "all") return all;
    std::vector<std::string> out;
    std::string name;
    std::istringstream names(opt.variant);
    bool any = false;
    while (std::getline(names, name, ',') || !any) {
        any = true;
        if (!decl.find(name)) {
            std::string valid;
            for (const auto &v : all) valid += v + "|";
            throw UsageError("unknown --variant '" + name + "': use one of " + valid +
                             "all, or several separated by commas (" + all.front() + "," +
                             all.back() + ")");
        }
        if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    }
    if (!opt.variant.empty() && opt.variant.back() == ',')
        throw UsageError("--variant '" + opt.variant + "' ends with a comma: name a variant after it");
    return out;
}

bool Lab::is_demonstration(const std::string &v) const {
    const Variant *found = decl.find(v);
    return found && found->demonstration;
}

const std::string &Lab::kernel_name(const std::string &variant) const {
    const Variant *v = decl.find(variant);
    if (!v || v->kernels.empty()) throw std::logic_error("variant " + variant + " names no kernel");
    return v->kernels.front();
}

void Lab::banner(const std::string &what) const {
    std::printf("%s on %s / %s: %s, seed %llu\n", decl.executable().c_str(),
                env.info.platform.c_str(), env.info.name.c_str(), what.c_str(),
                static_cast<unsigned long long>(seed));
}

void Lab::skipped(const std::string &variant, const std::string &why) const {
    verdict::variant(variant, "skipped", why);
}

void Lab::groups_met(const std::string &variant, std::size_t took_part) const {
    if (!env.info.is_oclgrind() || !decl.oclgrind_groups || took_part >= 2) return;
    const std::string why = "fences between work-groups not checked in " + variant + ": " +
                            std::to_string(took_part) + " group took part on Oclgrind (the others "
                            "were not running yet): run the race check again";
    verdict::finding(variant, "not-checked", "", why);
    std::printf("Oclgrind: %s\n", why.c_str());
}

int Lab::exit_code(const std::vector<Verdict> &given) {
    if (given.empty())
        throw Unsupported("nothing was verified: every variant asked for was skipped on this "
                          "device (see above): choose another --variant or --device");
    std::vector<Verdict> verdicts = given;
    if (env.info.is_oclgrind()) attribute_oclgrind_findings(verdicts);
    const bool alone = verdicts.size() == 1;
    int rc = kOk;
    for (const auto &v : verdicts) {
        verdict::variant(v.variant, v.ok ? "verified" : "wrong", v.detail);
        if (!v.ok && (alone || !is_demonstration(v.variant))) rc = kWrong;
    }
    return rc;
}

// Clang's debug info names an absolute file by what follows the leading folders it shares with
// the working folder (unless they are "/" alone), and Oclgrind reports that name: from /a/b,
// /a/k/x.cl is "k/x.cl".
static std::string debug_info_name(const std::string &display) {
    const fs::path file(display);
    std::error_code ec;
    const fs::path cwd = fs::current_path(ec);
    if (!file.is_absolute() || ec) return display;
    auto f = file.begin();
    int shared = 0;
    for (auto c = cwd.begin(); c != cwd.end() && f != file.end() && *c == *f; ++c, ++f) ++shared;
    if (shared <= 1) return display;
    fs::path rest;
    for (; f != file.end(); ++f) rest /= *f;
    return rest.string();
}

void Lab::locate_kernel_file() {
    if (kernel_located_) return;
    kernel_located_ = true;
    std::string path;
    try {
        path = find_kernel_file(decl.kernel_file(), opt.kernels);
    } catch (const UsageError &) {
        return;
    }
    kernel_display_ = display_path(path);
    kernel_reported_ = debug_info_name(kernel_display_);
    std::ifstream in(path, std::ios::binary);
    kernel_source_.resize(1u << 20);  // far above any kernel file a lab builds
    in.read(kernel_source_.data(), static_cast<std::streamsize>(kernel_source_.size()));
    // Still good after the read: a file larger than that, which is left unread.
    kernel_source_.resize(in ? 0 : static_cast<std::size_t>(in.gcount()));
    // Beside the working folder a path is the student's own; elsewhere (a grader's folders) the
    // file's name alone says it.
    kernel_shown_ = fs::path(kernel_display_).is_absolute() ? decl.kernel_file() : kernel_display_;
}

std::vector<OclgrindFinding> Lab::new_oclgrind_findings() {
    const std::string log = env.new_oclgrind_log();
    if (log.empty()) return {};
    if (hbcheck_ran(log)) hbcheck_seen_ = true;
    if (const int n = oclgrind_suppressed_after(log); n && !oclgrind_suppressed_) {
        oclgrind_suppressed_ = n;
        std::printf("Oclgrind stopped reporting after %d errors (OCLGRIND_MAX_ERRORS): what came "
                    "after them was not checked\n", n);
    }
    locate_kernel_file();
    std::vector<OclgrindFinding> out;
    for (auto &f : distinct(parse_oclgrind_log(log))) {
        // Groups that wait for one another order their accesses by fences and atomics, which
        // Oclgrind's own check does not know: hbcheck judges those (or says it could not).
        if (decl.oclgrind_groups && f.between_groups()) continue;
        if (!kernel_display_.empty() &&
            (f.file == kernel_display_ || f.file == kernel_reported_)) {
            f.see_source(kernel_source_);
            f.file = kernel_shown_;
        }
        if (f.fails()) out.push_back(f);
        else std::printf("Oclgrind also said: %s\n", f.message().c_str());
    }
    std::stable_sort(out.begin(), out.end(), [](const OclgrindFinding &a, const OclgrindFinding &b) {
        return a.priority() < b.priority();
    });
    return out;
}

// The verdict file keeps this many findings per variant; the rest are counted in its detail.
constexpr std::size_t kFindingsRecorded = 20;

void Lab::attribute_oclgrind_findings(std::vector<Verdict> &verdicts) {
    const auto found = new_oclgrind_findings();
    std::vector<std::vector<const OclgrindFinding *>> per(verdicts.size());
    for (const auto &f : found) {
        bool named = false;
        for (std::size_t i = 0; i < verdicts.size(); ++i) {
            const Variant *v = decl.find(verdicts[i].variant);
            if (v && std::find(v->kernels.begin(), v->kernels.end(), f.kernel) != v->kernels.end()) {
                per[i].push_back(&f);
                named = true;
            }
        }
        // A kernel that no variant run here names: the run as a whole is wrong.
        if (!named)
            for (auto &p : per) p.push_back(&f);
    }
    for (std::size_t i = 0; i < verdicts.size(); ++i) {
        Verdict &v = verdicts[i];
        const auto &mine = per[i];
        if (mine.empty()) {
            if (!oclgrind_suppressed_) continue;
            // Its kernels may have run after Oclgrind stopped reporting: it was not checked.
            v.ok = false;
            v.detail = "not race-checked: Oclgrind stopped reporting after " +
                       std::to_string(oclgrind_suppressed_) + " errors of other variants: run "
                       "--variant " + v.variant + " alone";
            std::printf("Oclgrind: %s WRONG: %s\n", v.variant.c_str(), v.detail.c_str());
            continue;
        }
        for (std::size_t k = 0; k < mine.size(); ++k) {
            const std::string message = mine[k]->message();
            if (k < kFindingsRecorded)
                verdict::finding(v.variant, mine[k]->kind, mine[k]->where(), message);
            std::printf("Oclgrind: %s %s: %s\n", v.variant.c_str(), k ? "also" : "WRONG",
                        message.c_str());
        }
        ++oclgrind_findings_;
        v.ok = false;
        v.detail = mine.front()->message();
        if (mine.size() > 1)
            v.detail += " (and " + std::to_string(mine.size() - 1) + " more Oclgrind finding" +
                        (mine.size() > 2 ? "s" : "") + ")";
    }
}

int Lab::finish(int rc) {
    if (!env.info.is_oclgrind()) return rc;
    // Findings no exit_code() told: kernels run after it, or a lab that never called it.
    const auto found = new_oclgrind_findings();
    for (const auto &f : found) {
        const std::string message = f.message();
        verdict::finding("-", f.kind, f.where(), message);
        std::printf("Oclgrind: WRONG: %s\n", message.c_str());
    }
    if (!found.empty()) {
        ++oclgrind_findings_;
        if (rc == kOk) rc = kWrong;
    }
    std::error_code ec;
    const bool readable = !env.oclgrind_log.empty() && fs::is_regular_file(env.oclgrind_log, ec);
    // Loaded is not enough: the plugin says "hbcheck: on" in the log once it runs.
    std::string unchecked = env.hbcheck_missing;
    if (unchecked.empty() && !env.hbcheck.empty() && readable && !hbcheck_seen_)
        unchecked = "hbcheck (" + env.hbcheck + ") did not run: Oclgrind could not load it (its "
                    "message is on standard error)";
    const bool judged = !env.hbcheck.empty() && unchecked.empty();
    if (!readable)
        std::printf("Oclgrind: its reports went to %s, not a regular file the lab can read back: "
                    "they were not checked (leave OCLGRIND_LOG unset, or name a file)\n",
                    env.oclgrind_log.empty() ? "standard error" : env.oclgrind_log.c_str());
    else if (!oclgrind_findings_)
        std::printf("Oclgrind: no data race%s, barrier divergence, out-of-bounds or uninitialised "
                    "access reported\n",
                    judged ? ", unordered access between work-groups (hbcheck)" : "");
    if (!unchecked.empty()) {
        const std::string why = "fences between work-groups not checked: " + unchecked;
        verdict::finding("-", "not-checked", "", why);  // not a failing kind: the grader says it
        std::printf("Oclgrind: %s\n", why.c_str());
    }
    if (readable && oclgrind_findings_ && !std::getenv("OCLGRIND_LOG"))
        std::printf("(set OCLGRIND_LOG=FILE to keep Oclgrind's full reports)\n");
    return rc;
}

LocalPoison &Lab::poison() {
    if (!poison_) poison_ = std::make_unique<LocalPoison>(env.context, env.info.device);
    return *poison_;
}

int Lab::trials_or(int usual) const {
    if (opt.extra.count("trials")) return opt.trials;
    return env.info.is_oclgrind() ? 1 : usual;
}

std::size_t Lab::groups_or(std::size_t usual) const {
    const std::size_t g = opt.extra.count("groups") ? opt.groups : usual;
    return g ? g : env.info.fill_groups();
}

void Lab::reject_groups(const std::string &instead) const {
    if (opt.extra.count("groups")) throw UsageError("--groups is not used here: " + instead);
}

Csv Lab::csv(const std::vector<std::string> &columns) { return Csv(csv_stream(), columns); }

std::ostream *Lab::csv_stream() {
    if (opt.csv.empty()) return nullptr;
    if (opt.csv == "-") return &std::cout;
    if (!csv_file_) {
        auto f = std::make_unique<std::ofstream>(opt.csv);
        if (!*f) throw UsageError("cannot write --csv file " + opt.csv + ": check the folder exists");
        csv_file_ = std::move(f);
    }
    return csv_file_.get();
}

namespace {

// The grader gives its children SYNCLAB_PARENT_FD, a pipe that reads end-of-file once the grader
// is gone (tools/grade/process.hpp, parent_pipe): the lab then stops at once, sandbox or not.
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
    std::thread([fd] {
        char c;
        for (;;) {
            const ssize_t got = read(fd, &c, 1);
            if (got == 0 || (got < 0 && errno != EINTR)) break;
        }
        static const char message[] = "stopped: the grader that started this run is gone\n";
        (void)!write(2, message, sizeof message - 1);
        _exit(kUsage);
    }).detach();
}

// The grader runs its children other than stress runs behind them (tools/grade/grade.hpp,
// kBehindStress), each nicer than its stress runs. Linux shares the CPU between sessions
// (autogroups) before niceness counts within one, and a sandbox gives each child a session of
// its own: there the grader also asks, with SYNCLAB_SESSION_NICE, for the session's niceness.
// Linux takes one such change a tenth of a second from processes without privileges, machine-wide:
// a few tries, then the run goes on at its session's niceness.
void stand_back() {
    static bool done = false;  // once a process
    if (done) return;
    done = true;
    const char *text = std::getenv(protocol::kSessionNice);
    if (!text || !*text) return;
    const int nice = std::atoi(text);
    if (nice < 1 || nice > 19) return;
    for (int tries = 0; tries < 30; ++tries) {
        const int fd = ::open("/proc/self/autogroup", O_WRONLY | O_CLOEXEC);
        if (fd < 0) return;
        const std::string value = std::to_string(nice);
        const ssize_t wrote = ::write(fd, value.data(), value.size());
        const int err = errno;
        ::close(fd);
        if (wrote >= 0 || err != EAGAIN) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

double process_cpu_seconds() {
    timespec t{};
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0) return 0;
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// OpenCL cannot cancel a running kernel, so a kernel that never ends (an endless loop, a barrier
// only some work-items reach) would hang the lab in clFinish. The watchdog ends the process.
// A run that stands back is timed by the seconds it had a core as well (is_hang): one starved by
// other work a while is not called a hang (CI). Each tenth of a second counts up to the CPU time
// the process had in it, so two busy threads count no faster than one.
class Watchdog {
public:
    Watchdog(const std::string &program, double seconds) {
        if (seconds <= 0) return;
        errno = 0;
        const int niceness = getpriority(PRIO_PROCESS, 0);
        const bool behind = errno == 0 && niceness > 0;
        thread_ = std::thread([this, program, seconds, behind] {
            using clock = std::chrono::steady_clock;
            const auto start = clock::now();
            const auto step = behind ? std::chrono::duration<double>(0.1)
                                     : std::chrono::duration<double>(seconds);
            auto last = start;
            double cpu = process_cpu_seconds(), ran = 0, wall = 0;
            std::unique_lock<std::mutex> lock(m_);
            for (;;) {
                if (cv_.wait_for(lock, step, [this] { return done_; })) return;
                const auto now = clock::now();
                const double cpu_now = process_cpu_seconds();
                ran += std::min(std::chrono::duration<double>(now - last).count(), cpu_now - cpu);
                last = now;
                cpu = cpu_now;
                wall = std::chrono::duration<double>(now - start).count();
                if (protocol::is_hang(wall, ran, seconds, behind)) break;
            }
            std::fflush(stdout);
            char took[96] = "";
            if (behind)  // niced: it may have waited for a core far longer than it ran
                std::snprintf(took, sizeof took, " (%.0f s by the clock, %.1f s of it on a core)",
                              wall, ran);
            char message[400];
            std::snprintf(message, sizeof message,
                          "stopped after %g s%s: a kernel did not finish (an endless loop, or a "
                          "barrier that not every work-item reaches?); raise --timeout if the run "
                          "is just long", seconds, took);
            std::fprintf(stderr, "%s: %s\n", program.c_str(), message);
            std::fflush(stderr);
            verdict::result(kWrong, "timeout", "", message);
            _exit(kWrong);
        });
    }
    ~Watchdog() {
        if (!thread_.joinable()) return;
        {
            std::lock_guard<std::mutex> lock(m_);
            done_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }

private:
    std::mutex m_;
    std::condition_variable cv_;
    bool done_ = false;
    std::thread thread_;
};

}  // namespace

int guarded_main(const char *program, const std::function<int()> &body) {
    // Every way out: one line on stderr, the exit code, and the same as a verdict record.
    auto fail = [&](int rc, const char *kind, const std::string &message,
                    const std::string &where = "") {
        std::cerr << program << ": " << message << "\n";
        std::string first = message.substr(0, message.find('\n'));
        verdict::result(rc, kind, where, first);
        return rc;
    };
    try {
        const int rc = body();
        verdict::result(rc, rc == kOk ? "verified" : rc == kWrong ? "wrong" : "usage", "", "");
        return rc;
    } catch (const RefusedSource &e) {
        std::cerr << program << ": " << e.what() << "\n";
        verdict::result(kUsage, "refused", e.where, e.first_error);
        return kUsage;
    } catch (const BuildError &e) {
        std::cerr << program << ": " << e.what() << "\n";
        verdict::result(kUsage, "compile-error", e.where,
                        e.first_error.empty() ? "the kernel file does not build" : e.first_error);
        return kUsage;
    } catch (const Unsupported &e) {
        return fail(kUsage, "unsupported", e.what());
    } catch (const UsageError &e) {
        return fail(kUsage, "usage", e.what());
    } catch (const cl::Error &e) {
        if (kernel_failed(e)) {
            // A driver may tell a launch above a kernel's report only at the next wait.
            const std::string limit = noted_kernel_limit();
            return fail(kWrong, "crash",
                        std::string(e.what() ? e.what() : "OpenCL call") + " failed: " +
                            cl_error_name(e.err()) +
                            ": a kernel failed on the device, most often by reading or writing "
                            "out of bounds: run it with --device oclgrind to see where" +
                            (limit.empty() ? "" : " (or a work-group too large: " + limit + ")"));
        }
        return fail(kUsage, "error", describe(e));
    } catch (const cxxopts::exceptions::exception &e) {
        return fail(kUsage, "usage", std::string(e.what()) + " (see --help)");
    } catch (const std::bad_alloc &) {
        return fail(kUsage, "error", "out of host memory: try a smaller -n");
    } catch (const std::exception &e) {
        return fail(kUsage, "error", e.what());
    } catch (...) {
        return fail(kUsage, "error", "unknown error");
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
    return stress_repeat_command(program, kept, seed);
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
        Watchdog watchdog(name, opt.timeout);
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
    stand_back();
    // Oclgrind runs groups on one worker thread per core unless told: a lab whose groups wait for
    // one another gets as many as its race check meets at once.
    if (decl.oclgrind_groups)
        setenv("OCLGRIND_NUM_THREADS", std::to_string(decl.oclgrind_groups).c_str(), 0);
    return run_once(argc, argv, decl, body);
}

}  // namespace synclab
