#include "grade.hpp"

#include <algorithm>
#include <cerrno>
#include <sys/stat.h>
#include <fcntl.h>
#include <cctype>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>
#include <unistd.h>

#include "synclab/process.hpp"
#include "synclab/oclgrind.hpp"
#include "synclab/stress.hpp"
#include "synclab/verdict.hpp"

namespace fs = std::filesystem;

namespace grade {

namespace {

std::string collapse(const std::string &s) {  // runs of blanks -> one space, trimmed
    std::string out;
    for (char c : s) {
        const bool blank = c == ' ' || c == '\t' || c == '\r' || c == '\n';
        if (blank) {
            if (!out.empty() && out.back() != ' ') out += ' ';
        } else {
            out += c;
        }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

std::vector<std::string> lines_of(const std::string &text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        if (!collapse(l).empty()) out.push_back(l);
    return out;
}

// Paths inside the submission are shown relative to it: "01_workgroup_reduce.cl:10:5: ...".
std::string relative(std::string s, const std::string &dir) {
    const std::string prefix = dir + "/";
    for (std::size_t at; (at = s.find(prefix)) != std::string::npos;) s.erase(at, prefix.size());
    return s;
}

std::string join(const std::vector<std::string> &v, const std::string &sep = " ") {
    std::string out;
    for (const auto &s : v) out += (out.empty() ? "" : sep) + s;
    return out;
}

std::string quote(const std::string &a) {
    if (!a.empty() && a.find_first_of(" '\"\\$`") == std::string::npos) return a;
    std::string q = "'";
    for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// A kernel's printf can make one line megabytes long: reports keep its start.
std::string clip(std::string line, std::size_t max = 240) {
    if (line.size() > max) {
        const std::size_t more = line.size() - max;
        line.resize(max);
        line += "... (" + std::to_string(more) + " more characters)";
    }
    return line;
}

std::string tail(const std::string &text, std::size_t max_lines) {
    const auto l = lines_of(text);
    const std::size_t from = l.size() > max_lines ? l.size() - max_lines : 0;
    std::string out;
    if (from) out += "  ... (" + std::to_string(from) + " lines before)\n";
    for (std::size_t i = from; i < l.size(); ++i) out += "  " + clip(l[i]) + "\n";
    return out;
}

std::string seconds_text(double s) {
    std::ostringstream o;
    o << s;
    return o.str();
}

std::string hang_reason(double timeout_s) {
    return "timed out after " + seconds_text(timeout_s) +
           " s: a kernel that never finishes (an endless loop, or a barrier that not every "
           "work-item reaches?)";
}

struct Run {
    std::vector<std::string> argv;
    synclab::ProcessResult process;
    synclab::VerdictRecord verdict;  // what the lab wrote to --verdict
};

// Whether a child's verdict says all was verified, and it exited 0 as it says.
bool ran_right(const Run &run) {
    return run.verdict.finished && run.verdict.exit_code == 0 && run.process.exited &&
           run.process.exit_code == 0;
}

// What went wrong in a child run, as (kind, one-line reason); kind "" when it passed. The lab's
// machine-readable verdict decides; its exit and signals only where it could not write one.
std::pair<std::string, std::string> classify(const Run &run, const std::string &kernels_dir,
                                             double timeout_s) {
    const auto &p = run.process;
    const auto &v = run.verdict;
    if (p.timed_out) return {"timeout", hang_reason(timeout_s)};
    if (p.signal) return {"crash", "crashed: killed by " + signal_name(p.signal)};
    // Inside the sandbox the lab is bubblewrap's child, and a signal that kills it comes back
    // as bubblewrap's exit code 128 + the signal's number.
    if (!v.finished && p.exited && p.exit_code > 128 && p.exit_code < 128 + 65)
        return {"crash", "crashed: killed by " + signal_name(p.exit_code - 128)};
    if (!v.finished)
        return {"error", "the lab stopped with " + p.describe() + " and left no verdict"};
    if (p.exited && p.exit_code != v.exit_code)
        return {"error", "the lab's verdict (exit " + std::to_string(v.exit_code) +
                             ") disagrees with its " + p.describe()};
    const std::string message = clip(relative(v.message, kernels_dir));
    if (v.kind == "verified") return {"", ""};
    if (v.kind == "timeout") return {"timeout", hang_reason(timeout_s)};  // its watchdog: --timeout
    if (v.kind == "crash") return {"crash", "crashed on the device: " + message};
    if (v.kind == "refused")
        return {"refused", (v.where.empty() ? "" : relative(v.where, kernels_dir) + ": ") + message};
    if (v.kind == "compile-error")
        return {"compile-error", "does not compile: " +
                                     (v.where.empty() ? "" : relative(v.where, kernels_dir) + ": ") +
                                     message};
    if (v.kind == "wrong") {
        std::vector<std::string> wrong;
        for (const auto &var : v.variants)
            if (var.state == "wrong" && wrong.size() < 3)
                wrong.push_back(clip(var.variant + " WRONG (" + var.detail + ")"));
        return {"wrong-answer",
                "wrong answer: " + (wrong.empty() ? "the lab says so" : join(wrong, "; "))};
    }
    return {"error", message.empty() ? "the lab stopped with " + p.describe() : message};
}

void note_run(Result &r, const Run &run, const std::string &title) {
    r.profiles_differ.insert(run.verdict.profiles_differ.begin(), run.verdict.profiles_differ.end());
    r.details += title + ": " + join([&] {
                     std::vector<std::string> q;
                     for (const auto &a : run.argv) q.push_back(quote(a));
                     return q;
                 }()) +
                 "\n  -> " + run.process.describe() + "\n";
    if (run.process.dropped)  // the middle of a huge output; its head and tail are kept
        r.details += "  (" + std::to_string(run.process.dropped) +
                     " bytes of output left out of the middle)\n";
    if (!run.process.out.empty()) r.details += tail(run.process.out, 12);
    if (!run.process.err.empty()) r.details += tail(run.process.err, 12);
}

void clear_folder(const std::string &dir) {
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(dir, ec)) fs::remove_all(e.path(), ec);
}

// Oclgrind's findings as the lab recorded them: the first kind (races first) and one line.
std::pair<std::string, std::string> race_findings(const synclab::VerdictRecord &v,
                                                  const std::vector<std::string> &variants,
                                                  const std::string &kernels_dir) {
    std::vector<synclab::FindingRecord> found;
    for (const auto &f : v.findings)
        if (std::find(variants.begin(), variants.end(), f.variant) != variants.end() &&
            synclab::oclgrind_priority(f.kind) < synclab::kOclgrindNotFailing)
            found.push_back(f);
    if (found.empty()) return {"", ""};
    // A race often shows up as an uninitialized read too: the race is the one to tell.
    std::stable_sort(found.begin(), found.end(), [](const auto &a, const auto &b) {
        return synclab::oclgrind_priority(a.kind) < synclab::oclgrind_priority(b.kind);
    });
    std::vector<std::string> lines;
    for (const auto &f : found) {
        const std::string line = clip(relative(f.message, kernels_dir), 300);
        if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
    }
    if (lines.size() > 3) {
        const std::size_t more = lines.size() - 3;
        lines.resize(3);
        lines.push_back("and " + std::to_string(more) + " more");
    }
    return {found.front().kind, join(lines, "; ")};
}

}  // namespace

std::string signal_name(int sig) {
    static const std::pair<int, const char *> names[] = {
        {SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},   {SIGILL, "SIGILL"},
        {SIGABRT, "SIGABRT"}, {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},
        {SIGPIPE, "SIGPIPE"}, {SIGTRAP, "SIGTRAP"}, {SIGXCPU, "SIGXCPU"}, {SIGHUP, "SIGHUP"}};
    std::string name = "signal " + std::to_string(sig);
    for (const auto &[n, s] : names)
        if (n == sig) name = s;
    const char *what = strsignal(sig);
    return what ? name + " (" + what + ")" : name;
}

bool StressGate::enter(const volatile int *stop) {
    std::unique_lock<std::mutex> lock(m_);
    ++waiting_;
    while (!free_ || beside_) {
        if (stop && *stop) break;
        cv_.wait_for(lock, std::chrono::milliseconds(100));
    }
    --waiting_;
    if (stop && *stop) {
        cv_.notify_all();  // children beside that waited behind this one
        return false;
    }
    --free_;
    return true;
}

void StressGate::leave() {
    {
        std::lock_guard<std::mutex> lock(m_);
        ++free_;
    }
    cv_.notify_all();
}

bool StressGate::enter_beside(const volatile int *stop) {
    std::unique_lock<std::mutex> lock(m_);
    while (free_ < slots_ || waiting_) {
        if (stop && *stop) return false;
        cv_.wait_for(lock, std::chrono::milliseconds(100));
    }
    if (stop && *stop) return false;
    ++beside_;
    return true;
}

void StressGate::leave_beside() {
    {
        std::lock_guard<std::mutex> lock(m_);
        --beside_;
    }
    cv_.notify_all();
}

namespace {

// A place at the gate (no gate: always), left at the end of its scope: a stress run's, or with
// `beside` a child's of a lab whose groups wait (StressGate::enter_beside).
struct StressSlot {
    StressSlot(StressGate *g, const volatile int *stop, bool beside = false)
        : gate(g), beside(beside), entered(!g || (beside ? g->enter_beside(stop) : g->enter(stop))) {}
    ~StressSlot() {
        if (gate && entered) beside ? gate->leave_beside() : gate->leave();
    }
    StressSlot(const StressSlot &) = delete;
    StressSlot &operator=(const StressSlot &) = delete;
    StressGate *gate;
    bool beside, entered;
};

// In a grading with stress schedules, no child of a lab whose groups wait for one another runs
// beside a stress run (StressGate::enter_beside): its groups, on both cores and never niced
// (behind_stress), would deschedule a stress run's held and waiting groups.
bool holds_cores(const Settings &s, const synclab::Declaration &lab) {
    return s.stress && synclab::groups_wait(lab);
}

// A child that stands behind the stress runs (kBehindStress): nicer, and in a sandbox, which
// gives it a session of its own, its session too. It may wait for a core for as long as they
// run: the lab's watchdog times it by the time it had a core as well (synclab::is_hang, at most
// kStandBackLimit times the timeout), and our bound on it is that, and the margin a lab needs to
// start. Not a warm-up's (!wait_longer): it grades nothing, and cut short it only builds less.
void stand_behind(const Settings &s, synclab::ProcessLimits &limits,
                  std::map<std::string, std::string> &env, bool wait_longer = true) {
    limits.nice = kBehindStress;
    if (wait_longer)
        limits.timeout_s = std::min(limits.timeout_s * synclab::kStandBackLimit + 30, synclab::kMaxTimeout);
    if (s.sandbox.available()) env["SYNCLAB_SESSION_NICE"] = std::to_string(kBehindStress);
}

// In a grading with stress schedules, a lab's child other than a stress run stands behind them
// (stand_behind). Not a lab whose groups wait for one another (07, 09, 10): a spin wait's budget
// counts polls, and a group starved at niceness 19 beside any other load (a stress run, another
// user's work) gave a right barrier up (CI). Elsewhere SYNCLAB_SESSION_NICE is unset (""): one
// the grader inherited must never renice the grader's own session (no sandbox) or a stress
// run's. True when the child stands behind.
bool behind_stress(const Settings &s, const synclab::Declaration &lab,
                   synclab::ProcessLimits &limits, std::map<std::string, std::string> &env) {
    env["SYNCLAB_SESSION_NICE"] = "";
    if (!s.stress || synclab::groups_wait(lab)) return false;
    stand_behind(s, limits, env);
    return true;
}

}  // namespace

std::map<std::string, std::string> dynamic_run_env(const synclab::Declaration &lab) {
    const char *kGradingComputeUnits = "2";  // why: grade.hpp
    return {{"POCL_WORK_GROUP_SPECIALIZATION", synclab::pocl_work_group_specialization(lab)},
            {"POCL_CPU_MAX_CU_COUNT", kGradingComputeUnits},   // POCL 4 and later
            {"POCL_MAX_PTHREAD_COUNT", kGradingComputeUnits},  // POCL 3 (Debian 12's 3.1); 4+ too
            // POCL takes the larger of the maximum and a minimum: none of the caller's minimums.
            {"POCL_CPU_MIN_CU_COUNT", ""},
            {"POCL_PTHREAD_MIN_THREADS", ""}};
}

std::map<std::string, std::string> stress_run_env(const synclab::Declaration &lab) {
    auto env = dynamic_run_env(lab);
    for (const auto &[name, value] : synclab::stress_environment()) env[name] = value;
    return env;
}

bool oclgrind_listed(const std::string &executable, const volatile int *stop) {
    synclab::ProcessLimits limits;
    limits.timeout_s = 60;
    limits.stop = stop;
    const auto r = synclab::run_process({executable, "--list-devices"}, {}, limits);
    std::string out = r.out;
    std::transform(out.begin(), out.end(), out.begin(), ::tolower);
    return r.exited && r.exit_code == 0 && out.find("oclgrind") != std::string::npos;
}

namespace {

// A job's private folders and what every child run there gets: the copy of the submission
// (the lab never reads the student's folder itself), its temporary files and POCL's cache.
struct JobFolders {
    std::string copy, tmp, cache;
    std::map<std::string, std::string> env;
    std::vector<std::string> readable;  // what the sandbox lets a lab read besides the system
};

JobFolders job_folders(const std::string &job_dir, const Settings &s) {
    JobFolders j;
    j.copy = (fs::path(job_dir) / "submission").string();
    j.tmp = (fs::path(job_dir) / "tmp").string();
    j.cache = (fs::path(job_dir) / "cache").string();
    std::error_code ec;
    fs::create_directories(j.tmp, ec);
    fs::create_directories(j.cache, ec);
    j.env = {{"TMPDIR", j.tmp}, {"HOME", j.tmp}, {"POCL_CACHE_DIR", j.cache},
             {"XDG_CACHE_HOME", j.cache}, {"SYNCLAB_KERNELS", ""}, {"OCLGRIND_LOG", ""},
             {"OCL_ICD_VENDORS", s.icd_vendors}, {"SYNCLAB_PROFILE", s.profile},
             {"SYNCLAB_TEXT_CACHE", (fs::path(j.cache) / "synclab-texts").string()}};
    // The labs (and their modules), and the user's own OpenCL vendor folder when there is one.
    j.readable = {s.bin_dir};
    // hbcheck's plugin, which the labs find beside them (bin/../lib).
    const fs::path lib = fs::path(s.bin_dir).parent_path() / "lib";
    if (fs::is_directory(lib, ec)) j.readable.push_back(lib.string());
    if (!s.icd_vendors.empty() && fs::is_directory(s.icd_vendors, ec)) j.readable.push_back(s.icd_vendors);
    return j;
}

// The kind of a row whose stress schedules grade_labs runs for all the submission's labs at once
// (stress_together): everything before them passed, and the row's reason says what.
const char *const kStressPending = "stress-pending";

// How many stress schedules a lab runs: --stress N, or its declaration's.
unsigned stress_schedules(const Recipe &recipe, const Settings &s) {
    return s.stress_schedules ? s.stress_schedules : recipe.declaration.stress_schedules;
}

// The arguments of a lab's stress run: its schedules and its stress_args.
std::vector<std::string> stress_line(const Recipe &recipe, const Settings &s) {
    std::vector<std::string> args{"--stress", std::to_string(stress_schedules(recipe, s))};
    const synclab::Args &more = recipe.declaration.stress_args;
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

// The grade a stress run gives a lab that passed so far (`passed`): grade, kind and reason. A
// schedule that went wrong is named by its seed, with the command that repeats it on the
// student's own folder.
std::tuple<std::string, std::string, std::string> stress_grade(const Recipe &recipe, const Settings &s,
                                                               const Run &st, const std::string &passed,
                                                               const std::string &copy,
                                                               const std::string &kernels_dir) {
    const synclab::Declaration &d = recipe.declaration;
    const auto &v = st.verdict;
    if (ran_right(st))
        return {"pass", "pass",
                passed + "; " + std::to_string(stress_schedules(recipe, s)) + " stress schedule(s) right"};
    auto [kind, why] = classify(st, copy, s.timeout_s);
    if (kind.empty()) std::tie(kind, why) = std::pair<std::string, std::string>("error", "the stress run failed");
    if (v.schedule.empty()) return {"fail", kind, "under stress: " + why};
    std::vector<std::string> again{"--kernels", kernels_dir};
    again.insert(again.end(), d.stress_args.begin(), d.stress_args.end());
    const std::string repeat =
        synclab::stress_repeat_command(recipe.executable, again, std::stoull(v.schedule));
    return {"fail", "stress", "wrong under stress schedule " + v.schedule + ": " + why + "; repeat it: " + repeat};
}

// One lab's dynamic runs on the first device, made in a process shared with other labs: as
// run_batch would have returned them.
struct Shared {
    std::vector<Run> runs;
    std::string note;
    double seconds = 0;  // the time of its runs in the shared process
};

// The argument line of one run, as the lab takes it.
synclab::Args run_line(const Recipe &recipe, const synclab::Args &set, const std::string &copy,
                       const std::string &verdict, const Settings &s, const std::string &device) {
    synclab::Args line{"--kernels", copy, "--verdict", verdict, "--variant", join(recipe.variants, ",")};
    line.insert(line.end(), set.begin(), set.end());
    if (s.seed) line.insert(line.end(), {"--seed", std::to_string(s.seed)});
    line.insert(line.end(), {"--timeout", seconds_text(s.timeout_s)});
    if (!device.empty()) line.insert(line.end(), {"--device", device});
    return line;
}

std::string read_verdict_text(const std::string &path, bool *found = nullptr) {
    // The child may write its folder: never follow a link it left, never wait on a FIFO.
    const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st {};
    const bool plain = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (found) *found = plain;
    std::string text;
    if (plain) {  // a verdict is a few lines; never read one without end
        char buf[65536];
        for (ssize_t n; text.size() < (1u << 20) && (n = read(fd, buf, sizeof buf)) != 0;) {
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) break;
            text.append(buf, static_cast<std::size_t>(n));
        }
    }
    if (fd >= 0) close(fd);
    return text;
}

// The runs of one batch process from their verdict files: one Run per line it reached, the
// process's own end (exit, signal, timeout, output) the last one's. A run that ended well and a
// next one that left no verdict (its --verdict could not be written, or the process stopped):
// the process's end is that next run's.
std::vector<Run> batch_runs(std::vector<Run> out, const std::vector<std::string> &verdicts,
                            const synclab::ProcessResult &process) {
    std::size_t reached = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
        bool found = false;
        const std::string v = read_verdict_text(verdicts[i], &found);
        if (!found) break;
        out[i].verdict = synclab::parse_verdict(v);
        reached = i + 1;
    }
    if (reached > 0 && reached < out.size() && out[reached - 1].verdict.finished &&
        out[reached - 1].verdict.exit_code == 0)
        ++reached;
    out.resize(std::max<std::size_t>(reached, 1));
    for (std::size_t i = 0; i + 1 < out.size(); ++i) {  // ended, and the next one began
        out[i].process.exited = out[i].verdict.finished;
        out[i].process.exit_code = out[i].verdict.exit_code;
    }
    out.back().process = process;
    std::error_code ec;
    for (const auto &v : verdicts) fs::remove(v, ec);
    return out;
}

// Each run's part of a stream of synclab-labs, which starts each run with a line
// "== run I of N" (kept, first in its part); what comes before the first goes with run 1.
std::vector<std::string> runs_of(const std::string &text, std::size_t n) {
    std::vector<std::string> part(n);
    std::istringstream in(text);
    std::size_t at = 0;
    for (std::string l; std::getline(in, l);) {
        std::size_t i = 0;
        if (std::sscanf(l.c_str(), "== run %zu of", &i) == 1 && i >= 1 && i <= n) at = i - 1;
        if (n) part[at] += l + "\n";
    }
    return part;
}

// One lab of one submission, graded in job_dir (see grade_lab).
class LabGrading {
public:
    using Clock = std::chrono::steady_clock;
    LabGrading(const Recipe &recipe, const std::string &student, const Settings &s,
               const volatile int *stop, const std::string &job_dir, const Shared *shared,
               Clock::time_point start, bool defer_stress)
        : recipe_(recipe), s_(s), stop_(stop), job_dir_(job_dir), shared_(shared), start_(start),
          defer_stress_(defer_stress),
          copy_((fs::path(job_dir) / "submission").string()),
          exe_((fs::path(s.bin_dir) / recipe.executable).string()),
          verdict_file_((fs::path(job_dir) / "verdict.tsv").string()) {
        r_.student = student;
        r_.lab = recipe.id;
    }
    Result grade(const std::string &kernels_dir);

private:
    const Recipe &recipe_;
    const Settings &s_;
    const volatile int *stop_;
    const std::string &job_dir_;
    const Shared *shared_;
    const Clock::time_point start_;
    const bool defer_stress_;  // stress runs left to stress_together (kStressPending)
    Result r_;
    // The submission's own files, copied: the lab never reads the student's folder itself.
    const std::string copy_;
    const std::string exe_, verdict_file_;
    JobFolders folders_;
    // Which graded variants a run did not check, and why (a device without sub-groups, say).
    std::map<std::string, std::string> unchecked_;
    std::set<std::string> checked_;
    // The dynamic runs' outcome: the first failure's kind and reason, the failed variants, the
    // runs this device could not make, and how many runs were made.
    std::string kind_, reason_;
    std::vector<std::string> failed_, not_run_;
    int runs_ = 0;

    Result finish(std::string grade, std::string kind, std::string reason);
    // A dynamic run or race check; the stress run; its warm-up (stress()).
    enum class Role { Check, Stress, WarmUp };
    Run run(std::vector<std::string> args, std::map<std::string, std::string> env,
            std::size_t memory, bool variants = true, Role role = Role::Check);
    std::vector<Run> run_batch(const std::vector<synclab::Args> &sets, const std::string &device,
                               std::size_t memory);
    void note_skips(const Run &run_result);
    bool dynamic_runs();
    std::size_t judge_runs(const std::vector<Run> &done, std::size_t from,
                           const std::string &on_device);
    Result race_check(const std::string &skipped_note);
    Result stress(const std::string &passed);
    std::string kernels_dir_;  // the student's own folder, as the grader was given it
};

Result LabGrading::finish(std::string grade, std::string kind, std::string reason) {
    r_.grade = std::move(grade);
    r_.kind = std::move(kind);
    r_.reason = std::move(reason);
    r_.seconds = std::chrono::duration<double>(Clock::now() - start_).count() +
                 (shared_ ? shared_->seconds : 0);
    return r_;
}

Run LabGrading::run(std::vector<std::string> args, std::map<std::string, std::string> env,
                    std::size_t memory, bool variants, Role role) {
    Run out;
    out.argv = {exe_, "--kernels", copy_, "--verdict", verdict_file_};
    if (variants) out.argv.insert(out.argv.end(), {"--variant", join(recipe_.variants, ",")});
    out.argv.insert(out.argv.end(), args.begin(), args.end());
    if (s_.seed) out.argv.insert(out.argv.end(), {"--seed", std::to_string(s_.seed)});
    env.insert(folders_.env.begin(), folders_.env.end());
    synclab::ProcessLimits limits;
    limits.timeout_s = s_.timeout_s;
    limits.memory_bytes = memory;
    limits.cwd = copy_;  // so the lab names the kernel file as the student does
    // A signal between our last look at *stop and the fork still ends this child at once.
    limits.stop = stop_;
    limits.parent_pipe = true;  // stops with the grader, through the sandbox
    const bool stressed = role == Role::Stress;
    bool behind = false;
    env["SYNCLAB_SESSION_NICE"] = "";
    if (role == Role::WarmUp) {  // behind even for a lab whose groups wait: it grades nothing
        stand_behind(s_, limits, env, false);
        behind = true;
    } else if (!stressed) {
        behind = behind_stress(s_, recipe_.declaration, limits, env);
    }
    const bool beside = role == Role::Check && holds_cores(s_, recipe_.declaration);
    const StressSlot slot(stressed || beside ? s_.stress_gate.get() : nullptr, stop_, beside);
    if (!slot.entered) {
        out.process.interrupted = true;
        return out;
    }
    // Our bound judges a hang; the lab's watchdog only bounds a lab orphaned by a killed grader.
    // Behind the stress runs the watchdog judges (by the time the run had a core too), and our
    // bound waits longer (behind_stress).
    const double watchdog = behind ? s_.timeout_s : std::min(s_.timeout_s + 30, synclab::kMaxTimeout);
    out.argv.insert(out.argv.end(), {"--timeout", seconds_text(watchdog)});
    out.process = synclab::run_process(s_.sandbox.wrap(out.argv, job_dir_, folders_.readable, copy_),
                                       env, limits);
    out.verdict = synclab::parse_verdict(read_verdict_text(verdict_file_));
    std::error_code ec;
    fs::remove(verdict_file_, ec);
    return out;
}

// Every argument set in one process, each line its own run with its own verdict file; the lab
// stops at the first that fails. One Run per line it reached: the process's own end (exit,
// signal, timeout, output) belongs to the last of them.
std::vector<Run> LabGrading::run_batch(const std::vector<synclab::Args> &sets,
                                       const std::string &device, std::size_t memory) {
    std::vector<Run> out(sets.size());
    std::vector<std::string> verdicts;
    std::string text;
    for (std::size_t i = 0; i < sets.size(); ++i) {
        verdicts.push_back((fs::path(job_dir_) / ("verdict-" + std::to_string(i + 1) + ".tsv")).string());
        const synclab::Args line = run_line(recipe_, sets[i], copy_, verdicts.back(), s_, device);
        out[i].argv = {exe_};
        out[i].argv.insert(out[i].argv.end(), line.begin(), line.end());
        text += join(line, "\t") + "\n";
    }
    const std::string batch_file = (fs::path(job_dir_) / "batch.tsv").string();
    {
        std::ofstream f(batch_file, std::ios::binary | std::ios::trunc);
        f << text;
    }
    synclab::ProcessLimits limits;
    // Each run's own watchdog (--timeout) ends a hang first; this bounds the whole.
    limits.timeout_s = std::min(s_.timeout_s * static_cast<double>(sets.size()) + 30,
                                synclab::kMaxTimeout);
    limits.memory_bytes = memory;
    limits.cwd = copy_;  // so the lab names the kernel file as the student does
    limits.stop = stop_;
    limits.parent_pipe = true;
    std::map<std::string, std::string> env = dynamic_run_env(recipe_.declaration);
    env.insert(folders_.env.begin(), folders_.env.end());
    behind_stress(s_, recipe_.declaration, limits, env);
    const StressSlot slot(holds_cores(s_, recipe_.declaration) ? s_.stress_gate.get() : nullptr, stop_,
                          true);
    if (!slot.entered) return {};
    const synclab::ProcessResult process = synclab::run_process(
        s_.sandbox.wrap({exe_, "--batch", batch_file}, job_dir_, folders_.readable, copy_), env,
        limits);
    std::error_code ec;
    fs::remove(batch_file, ec);
    return batch_runs(std::move(out), verdicts, process);
}

void LabGrading::note_skips(const Run &run_result) {
    for (const auto &v : run_result.verdict.variants) {
        if (std::find(recipe_.variants.begin(), recipe_.variants.end(), v.variant) ==
            recipe_.variants.end())
            continue;
        if (v.state == "skipped") unchecked_.emplace(v.variant, v.detail);
        else checked_.insert(v.variant);
    }
}

// The runs `done` of the argument sets from `from` on: each noted, the first failure's kind and
// reason kept. Returns where the next process begins: after a run this device cannot make, or
// at the end.
std::size_t LabGrading::judge_runs(const std::vector<Run> &done, std::size_t from,
                                   const std::string &on_device) {
    const std::vector<synclab::Args> &sets = recipe_.runs;
    std::size_t next = sets.size();
    for (std::size_t j = 0; j < done.size() && kind_.empty(); ++j) {
        const std::size_t i = from + j;
        const Run &run_result = done[j];
        note_run(r_, run_result, "run");
        const auto &v = run_result.verdict;
        if (v.finished && v.kind == "unsupported" && run_result.process.exited &&
            run_result.process.exit_code == v.exit_code) {
            not_run_.push_back(join(sets[i]) + on_device + " (" +
                               clip(relative(v.message, copy_), 160) + ")");
            next = i + 1;
            break;
        }
        ++runs_;
        note_skips(run_result);
        std::tie(kind_, reason_) = classify(run_result, copy_, s_.timeout_s);
        if (kind_.empty()) continue;
        for (const auto &var : v.variants)
            if (var.state == "wrong" &&
                std::find(recipe_.variants.begin(), recipe_.variants.end(), var.variant) !=
                    recipe_.variants.end())
                failed_.push_back(var.variant);
        if (kind_ == "wrong-answer" || kind_ == "crash") {
            std::string where = join(sets[i]) + on_device;
            if (!v.seed.empty()) where += " --seed " + v.seed;
            reason_ += " (" + where + ")";
        }
    }
    return next;
}

// (1) Dynamic runs: every graded variant, every argument set, one lab process per device
// (--batch): the runs share the device's context, what the OpenCL implementation loads once per
// context (POCL's kernel library) and every program built (Env::context). The first failure
// ends them, gives the kind and the reason, and names every failed variant. A run this device
// cannot make (a work-group above the device's own largest; below it the launch decides, and a
// refused one is the kernel's doing and stays an error) checks nothing there: it is "not
// checked (why)", and the runs after it go on in a new process. False when *stop ended them.
bool LabGrading::dynamic_runs() {
    if (shared_) r_.details += shared_->note + "\n";
    for (std::size_t d = 0; d < s_.devices.size() && kind_.empty(); ++d) {
        const std::string &device = s_.devices[d];
        const std::string on_device = device.empty() ? "" : " --device " + device;
        const std::vector<synclab::Args> &sets = recipe_.runs;
        if (sets.empty()) break;  // a lab that declares no dynamic run
        for (std::size_t from = 0; from < sets.size() && kind_.empty();) {
            if (*stop_) return false;
            // --quick: the first run this device can make, alone.
            const std::size_t upto = s_.quick ? from + 1 : sets.size();
            const std::vector<Run> done =
                shared_ && d == 0 && from == 0
                    ? shared_->runs
                    : run_batch({sets.begin() + static_cast<std::ptrdiff_t>(from),
                                 sets.begin() + static_cast<std::ptrdiff_t>(upto)},
                                device, s_.device_memory_bytes.at(d));
            if (*stop_) return false;
            from = judge_runs(done, from, on_device);
        }
    }
    return true;
}

Result LabGrading::grade(const std::string &kernels_dir) {
    kernels_dir_ = kernels_dir;
    const Staged staged = stage_submission(kernels_dir, copy_, recipe_.kernel_file);
    if (!staged.refused.empty()) return finish("fail", "refused", staged.refused);
    if (std::find(staged.files.begin(), staged.files.end(), recipe_.kernel_file) ==
        staged.files.end())
        return finish("missing", "missing", recipe_.kernel_file + " not handed in");
    folders_ = job_folders(job_dir_, s_);

    if (!dynamic_runs()) return finish("", "", "");
    if (failed_.size() > 1) reason_ += "; failed variants: " + join(failed_);
    if (kind_.empty() && runs_ == 0 && !not_run_.empty())  // nothing checked is never a pass
        return finish("fail", "error", "no grading run could run here: " + not_run_.front());
    // A build error or a hang would only repeat itself on Oclgrind.
    if (kind_ == "compile-error" || kind_ == "timeout" || kind_ == "error")
        return finish("fail", kind_, reason_);

    // What was not checked is said in every row, passing or not.
    std::string skipped_note;
    for (const auto &[variant, why] : unchecked_)
        if (!checked_.count(variant))
            skipped_note += "; not checked: " + variant + " (" + clip(why, 160) + ")";
    for (const auto &line : not_run_) skipped_note += "; not checked: " + line;
    return race_check(skipped_note);
}

// (2) The race check: the lab on Oclgrind records each finding; a finding fails the lab, or
// explains a wrong answer.
Result LabGrading::race_check(const std::string &skipped_note) {
    std::string race_note;
    if (recipe_.oclgrind.empty())
        race_note = "; not race-checked (" +
                    (recipe_.race_skipped.empty() ? std::string("the lab declares no race check")
                                                  : recipe_.race_skipped) +
                    ")";
    else if (!s_.race_check || !s_.oclgrind_available)
        race_note = "; " + s_.race_check_note;
    if (!race_note.empty()) {
        if (kind_.empty()) return stress(std::to_string(runs_) + " run(s) right" + race_note + skipped_note);
        return finish("fail", kind_, reason_ + race_note + skipped_note);
    }
    if (*stop_) return finish("", "", "");
    std::vector<std::string> args{"--device", "oclgrind"};
    args.insert(args.end(), recipe_.oclgrind.begin(), recipe_.oclgrind.end());
    // The lab turns Oclgrind's checks on from its own declaration; settings of the grader's own
    // environment must not turn any of them off.
    // One group at a time (deterministic, one core per race check under -j), unless the lab's
    // groups wait for one another: then as many as its declaration says meet.
    const unsigned groups = recipe_.declaration.oclgrind_groups;
    const std::map<std::string, std::string> og_env{
        {"OCLGRIND_DATA_RACES", ""},   {"OCLGRIND_UNINITIALIZED", ""},
        {"OCLGRIND_UNIFORM_WRITES", ""}, {"OCLGRIND_MAX_ERRORS", ""},
        {"OCLGRIND_PLUGINS", ""},      {"OCLGRIND_NUM_THREADS", std::to_string(groups ? groups : 1)}};
    const Run og = run(args, og_env, s_.oclgrind_memory_bytes);
    if (*stop_) return finish("", "", "");
    note_run(r_, og, "race check on Oclgrind");
    auto [og_kind, og_reason] = race_findings(og.verdict, recipe_.variants, copy_);
    if (og_kind.empty()) {
        auto [k, why] = classify(og, copy_, s_.timeout_s);
        if (!k.empty() && kind_.empty()) {
            og_kind = k;
            og_reason = "on Oclgrind: " + why;
        }
    }
    if (!kind_.empty()) {  // the dynamic failure stays the grade; Oclgrind says why
        if (!og_kind.empty() && og_reason.rfind("on Oclgrind", 0) != 0)
            reason_ += "; Oclgrind: " + og_reason;
        return finish("fail", kind_, reason_ + skipped_note);
    }
    if (!og_kind.empty()) return finish("fail", og_kind, og_reason + skipped_note);
    std::string not_checked;  // a check the lab could not make (hbcheck not built)
    for (const auto &f : og.verdict.findings)
        if (f.kind == "not-checked") not_checked += "; " + f.message;
    return stress(std::to_string(runs_) + " run(s) right; Oclgrind: no findings" + not_checked +
                  skipped_note);
}

// (3) Stress schedules, for a lab that declares them and passed so far: its protocols between
// work-groups run again in one process, each schedule with delays injected at the atomics and
// fences, on the lab's own device (POCL's CPU, which otherwise never shows their windows). A
// schedule that goes wrong fails the lab, named by its seed with the command that repeats it on
// the student's folder.
Result LabGrading::stress(const std::string &passed) {
    const synclab::Declaration &d = recipe_.declaration;
    if (!d.stress_schedules) return finish("pass", "pass", passed);
    if (!s_.stress)
        return finish("pass", "pass",
                      passed + (s_.quick ? "; not stress-tested (--quick)"
                                         : "; not stress-tested (--no-stress)"));
    if (*stop_) return finish("", "", "");
    if (defer_stress_) return finish("pass", kStressPending, passed);
    const std::vector<std::string> args = stress_line(recipe_, s_);
    // Its build first, behind the stress runs and beside any other work (--warm-up): the stress
    // run then holds the cores for its schedules alone, its kernels served by POCL's cache. The
    // warm-up grades nothing (a group starved behind a stress run may give a right barrier up):
    // whatever it did, the stress run decides, and builds what the cache lacks.
    std::vector<std::string> warm_up = args;
    warm_up.insert(warm_up.end(), d.stress_warm_up.begin(), d.stress_warm_up.end());
    warm_up.push_back("--warm-up");
    const Run w = run(warm_up, stress_run_env(d), s_.device_memory_bytes.front(), false, Role::WarmUp);
    if (*stop_) return finish("", "", "");
    note_run(r_, w, "stress build (--warm-up, graded by the stress run)");
    const Run st = run(args, stress_run_env(d), s_.device_memory_bytes.front(), false, Role::Stress);
    if (*stop_) return finish("", "", "");
    note_run(r_, st, "stress schedules");
    const auto [grade, kind, why] = stress_grade(recipe_, s_, st, passed, copy_, kernels_dir_);
    return finish(grade, kind, why);
}

Result grade_one(const Recipe &recipe, const std::string &student, const std::string &kernels_dir,
                 const Settings &s, const volatile int *stop, const std::string &job_dir,
                 const Shared *shared, bool defer_stress = false) {
    const auto start = std::chrono::steady_clock::now();
    struct Emptied {  // nothing of one submission is left for the next
        std::string dir;
        ~Emptied() { clear_folder(dir); }
    } emptied{job_dir};
    clear_folder(job_dir);
    LabGrading grading(recipe, student, s, stop, job_dir, shared, start, defer_stress);
    return grading.grade(kernels_dir);
}

// One shared process's lines: each run of each lab of a part, in order.
struct SharedBatch {
    struct Line {
        std::size_t lab;  // index into part
        synclab::Args args;
    };
    std::vector<Line> lines;
    std::vector<std::string> verdicts;  // each line's verdict file
    std::vector<Run> out;               // each line's run, as run_batch would have made it
    std::string text;                   // the batch file's text
};

// The lines of `part` for the runner; a lab run again keeps its seeds (see run_shared).
SharedBatch shared_batch(const std::vector<const Recipe *> &recipes,
                         const std::vector<std::size_t> &part, const Settings &s,
                         const std::string &job_dir, const std::string &copy,
                         const std::map<std::size_t, std::vector<std::string>> &seeds) {
    SharedBatch b;
    for (std::size_t k = 0; k < part.size(); ++k) {
        const Recipe &recipe = *recipes[part[k]];
        const std::size_t count = s.quick ? 1 : recipe.runs.size();
        const auto found = seeds.find(part[k]);
        const std::vector<std::string> again =
            found == seeds.end() ? std::vector<std::string>{} : found->second;
        for (std::size_t i = 0; i < count; ++i) {
            b.verdicts.push_back((fs::path(job_dir) / ("verdict-" + std::to_string(b.verdicts.size() + 1) + ".tsv")).string());
            synclab::Args set = recipe.runs[i];
            if (!s.seed && i < again.size() && !again[i].empty()) set.insert(set.end(), {"--seed", again[i]});
            const synclab::Args line = run_line(recipe, set, copy, b.verdicts.back(), s, s.devices[0]);
            b.lines.push_back({k, line});
            b.out.emplace_back();
            b.out.back().argv = {(fs::path(s.bin_dir) / recipe.executable).string()};
            b.out.back().argv.insert(b.out.back().argv.end(), line.begin(), line.end());
            b.text += recipe.declaration.dir + "\t" + join(line, "\t") + "\n";
        }
    }
    return b;
}

// Which lines ran (ran), by the runner's rule (a line that does not exit 0 ends its lab's lines;
// the next lab's go on): a line whose verdict did not finish is where the process ended, and
// the process's own end (exit, signal, timeout, output) is that line's (end_line), or the last
// finished line's when there is none. Each run gets its own part of each stream (`said`,
// `said_err`). False when nothing of the process counts.
bool read_shared_runs(SharedBatch &b, std::size_t labs, const synclab::ProcessResult &process,
                      const std::vector<std::string> &said, const std::vector<std::string> &said_err,
                      std::vector<bool> &ran, std::size_t &end_line) {
    auto &lines = b.lines;
    auto &out = b.out;
    std::vector<bool> failed(labs, false);
    std::size_t last = lines.size();
    end_line = lines.size();
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (failed[lines[i].lab]) continue;  // left out by the runner
        bool found = false;
        out[i].verdict = synclab::parse_verdict(read_verdict_text(b.verdicts[i], &found));
        ran[i] = true;
        if (!out[i].verdict.finished) {
            // The runner stopped before a line it could not run (a module it cannot load
            // here): nothing of this process counts.
            if (!found && process.exited && process.exit_code == 2 &&
                process.err.find("synclab-labs: cannot load lab ") != std::string::npos)
                return false;
            end_line = i;
            break;
        }
        out[i].process.exited = true;
        out[i].process.exit_code = out[i].verdict.exit_code;
        failed[lines[i].lab] = out[i].verdict.exit_code != 0;
        last = i;
    }
    if (end_line == lines.size()) end_line = last;
    if (end_line < lines.size()) out[end_line].process = process;  // its end, then its part
    for (std::size_t i = 0; i < lines.size(); ++i) {
        out[i].process.out = said[i];
        out[i].process.err = said_err[i];
    }
    return true;
}

// Each run's time: from its start on the runner's clock ("== run I of N at S s", S from the
// runner's start; the first from 0) to the next run's, the last to the process's end on ours
// (`wall`), so the sandbox's start before the runner's clock (milliseconds) falls to the last
// run. A mark that is not the runner's (out of order, past the end) leaves the time where it was.
std::vector<double> shared_run_times(const std::vector<bool> &ran,
                                     const std::vector<std::string> &said_err, double wall) {
    const std::size_t count = ran.size();
    std::vector<double> took(count, 0);
    double begin = 0;
    std::size_t prev = count;
    for (std::size_t i = 0; i < count; ++i) {
        if (!ran[i]) continue;
        std::size_t n = 0, of = 0;
        double at = 0;
        if (prev == count) {
            prev = i;
        } else if (std::sscanf(said_err[i].c_str(), "== run %zu of %zu at %lf s", &n, &of, &at) == 3 &&
                   n == i + 1 && of == count && std::isfinite(at) && at >= begin && at <= wall) {
            took[prev] = at - begin;
            begin = at;
            prev = i;
        }
    }
    if (prev < count) took[prev] = std::max(0.0, wall - begin);
    return took;
}

// Which labs of `part` the shared process settles (see run_shared), filling `shared` and, for a
// lab to run again, `seeds`.
std::size_t settle_shared(const std::vector<const Recipe *> &recipes,
                          const std::vector<std::size_t> &part, const SharedBatch &b,
                          const std::vector<bool> &ran, const std::vector<double> &took,
                          std::size_t end_line, std::vector<std::optional<Shared>> &shared,
                          std::map<std::size_t, std::vector<std::string>> &seeds) {
    const auto &lines = b.lines;
    const auto &out = b.out;
    std::string labs_text;  // the labs the process reached
    for (std::size_t k = 0, i = 0; k < part.size(); ++k) {
        bool reached = false;
        for (; i < lines.size() && lines[i].lab == k; ++i) reached = reached || ran[i];
        if (reached) labs_text += (labs_text.empty() ? "" : ", ") + recipes[part[k]]->id;
    }
    const std::string note = "its dynamic runs shared one process with labs " + labs_text +
                             " (synclab-labs)";
    for (std::size_t k = 0, i = 0; k < part.size(); ++k) {
        Shared mine;
        mine.note = note;
        bool ended_here = false;
        for (; i < lines.size() && lines[i].lab == k; ++i)
            if (ran[i]) {
                mine.runs.push_back(out[i]);
                mine.seconds += took[i];
                ended_here = ended_here || (i == end_line && !out[i].verdict.finished);
            }
        if (mine.runs.empty()) return k;  // the process ended before it
        const Run &last = mine.runs.back();
        const bool clean = !ended_here && last.verdict.exit_code == 0 && last.process.exited &&
                           last.process.exit_code == 0;
        // The first lab's runs are its own, as if it had run alone; so is a later lab's wrong
        // answer, build error or run this device cannot make (its own inputs and source said
        // so). A later lab's crash, hang or error may be what an earlier lab left in the process
        // (a kernel writing out of bounds on a CPU device writes into the process): it is run
        // again as the first of the next process, and only that counts.
        const std::string &kind = last.verdict.kind;
        const bool own = clean || k == 0 ||
                         (!ended_here && last.process.exit_code == last.verdict.exit_code &&
                          (kind == "wrong" || kind == "compile-error" || kind == "unsupported"));
        if (!own) {
            for (std::size_t j = 0; j < lines.size(); ++j)
                if (lines[j].lab == k && ran[j]) seeds[part[k]].push_back(out[j].verdict.seed);
            return k;
        }
        shared[part[k]] = std::move(mine);
        if (ended_here) return k + 1;
    }
    return part.size();
}

// The labs `part` (indices into `recipes`, one dynamic-run environment, each staging `files`)
// in one synclab-labs process, in order. Fills `shared` for each lab whose runs count (see
// grade_labs) and returns how many of `part`, from its start, are settled: the next process
// begins after them. When the copy or the runner itself fails, all are (and none is shared):
// each lab then runs alone, so no such failure is ever a student's grade.
// A lab to run again gets the seeds its runs had (`seeds`, by recipe index): the same inputs, so
// the second process is no second try.
std::size_t run_shared(const std::vector<const Recipe *> &recipes, const std::vector<std::size_t> &part,
                       const std::vector<std::string> &files, const std::string &kernels_dir,
                       const Settings &s, const volatile int *stop, const std::string &job_dir,
                       std::vector<std::optional<Shared>> &shared,
                       std::map<std::size_t, std::vector<std::string>> &seeds) {
    clear_folder(job_dir);
    const JobFolders folders = job_folders(job_dir, s);
    Staged staged = stage_submission(kernels_dir, folders.copy, recipes[part.front()]->kernel_file);
    std::sort(staged.files.begin(), staged.files.end());
    if (!staged.refused.empty() || staged.files != files) return part.size();
    SharedBatch batch = shared_batch(recipes, part, s, job_dir, folders.copy, seeds);
    const std::size_t count = batch.lines.size();
    const std::string batch_file = (fs::path(job_dir) / "batch.tsv").string();
    {
        std::ofstream f(batch_file, std::ios::binary | std::ios::trunc);
        f << batch.text;
    }
    synclab::ProcessLimits limits;
    limits.timeout_s = std::min(s.timeout_s * static_cast<double>(count) + 30, synclab::kMaxTimeout);
    limits.memory_bytes = s.device_memory_bytes.at(0);
    limits.cwd = folders.copy;  // so each lab names its kernel file as the student does
    limits.stop = stop;
    limits.parent_pipe = true;
    std::map<std::string, std::string> env = dynamic_run_env(recipes[part.front()]->declaration);
    env.insert(folders.env.begin(), folders.env.end());
    behind_stress(s, recipes[part.front()]->declaration, limits, env);
    const StressSlot slot(holds_cores(s, recipes[part.front()]->declaration) ? s.stress_gate.get() : nullptr,
                          stop, true);
    if (!slot.entered) return part.size();
    const auto began = std::chrono::steady_clock::now();
    synclab::ProcessResult process = synclab::run_process(
        s.sandbox.wrap({s.runner, "--batch", batch_file}, job_dir, folders.readable, folders.copy),
        env, limits);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    std::error_code ec;
    fs::remove(batch_file, ec);
    if (*stop) return part.size();
    // Each run's own part of each stream: the runner marks each run on both.
    const std::vector<std::string> said = runs_of(process.out, count),
                                   said_err = runs_of(process.err, count);
    std::vector<bool> ran(count, false);
    std::size_t end_line = count;
    if (!read_shared_runs(batch, part.size(), process, said, said_err, ran, end_line))
        return part.size();
    const std::vector<double> took = shared_run_times(ran, said_err, wall);
    std::error_code vec;
    for (const auto &v : batch.verdicts) fs::remove(v, vec);
    return settle_shared(recipes, part, batch, ran, took, end_line, shared, seeds);
}

// One runner process for `lines` (each "DIR<TAB>ARGS...", its verdict file in `verdicts`; one line
// a lab, so the runner goes on past a line that fails, and exits as its last line did): each
// line's Run up to the first that left no finished verdict, or the last; that one is where the
// process ended and gets its end (exit, signal, timeout). Each gets its own part of each stream.
std::vector<Run> run_runner_lines(const std::vector<synclab::Args> &lines,
                                  const std::vector<std::string> &verdicts, const Settings &s,
                                  const JobFolders &folders, const std::string &job_dir,
                                  synclab::ProcessLimits limits,
                                  const std::map<std::string, std::string> &env) {
    std::vector<Run> out(lines.size());
    std::string text;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        out[i].argv = {(fs::path(s.bin_dir) / ("lab" + lines[i].front())).string()};
        out[i].argv.insert(out[i].argv.end(), lines[i].begin() + 1, lines[i].end());
        text += join(lines[i], "\t") + "\n";
    }
    const std::string batch_file = (fs::path(job_dir) / "stress.tsv").string();
    std::error_code ec;
    for (const auto &v : verdicts) fs::remove(v, ec);  // only this process's verdicts count
    {
        std::ofstream f(batch_file, std::ios::binary | std::ios::trunc);
        f << text;
    }
    const synclab::ProcessResult process = synclab::run_process(
        s.sandbox.wrap({s.runner, "--batch", batch_file}, job_dir, folders.readable, folders.copy),
        env, limits);
    fs::remove(batch_file, ec);
    const std::vector<std::string> said = runs_of(process.out, lines.size()),
                                   said_err = runs_of(process.err, lines.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
        out[i].verdict = synclab::parse_verdict(read_verdict_text(verdicts[i]));
        out[i].process.exited = true;
        out[i].process.exit_code = out[i].verdict.exit_code;
        if (!out[i].verdict.finished) {
            out.resize(i + 1);
            break;
        }
    }
    for (const auto &v : verdicts) fs::remove(v, ec);
    out.back().process = process;
    for (std::size_t i = 0; i < out.size(); ++i) {
        out[i].process.out = said[i];
        out[i].process.err = said_err[i];
    }
    return out;
}

// What stress_together's two processes share: the submission's copy, their environment and
// limits, and each pending lab's line.
struct StressBatch {
    const std::vector<const Recipe *> &recipes;
    const std::vector<std::size_t> &pending;  // indices into recipes (and rows)
    const Settings &s;
    const std::string &job_dir;
    JobFolders folders;
    std::map<std::string, std::string> env;
    synclab::ProcessLimits limits;

    // Lab pending[i]'s stress run, its verdict in `verdict`.
    synclab::Args line(std::size_t i, const std::string &verdict) const {
        const Recipe &recipe = *recipes[pending[i]];
        synclab::Args l{recipe.declaration.dir, "--kernels", folders.copy, "--verdict", verdict,
                        "--timeout", seconds_text(s.timeout_s)};
        const std::vector<std::string> args = stress_line(recipe, s);
        l.insert(l.end(), args.begin(), args.end());
        if (s.seed) l.insert(l.end(), {"--seed", std::to_string(s.seed)});
        return l;
    }
    std::string verdict(const char *what, std::size_t i) const {
        return (fs::path(job_dir) / (what + std::to_string(i + 1) + ".tsv")).string();
    }
};

// Every pending lab's stress build in one process behind everything (--warm-up), noted in its row:
// it grades nothing, and cut short it only builds less.
void warm_up_together(const StressBatch &b, std::vector<Result> &rows) {
    std::vector<synclab::Args> warm;
    std::vector<std::string> verdicts;
    for (std::size_t i = 0; i < b.pending.size(); ++i) {
        verdicts.push_back(b.verdict("warm-", i));
        warm.push_back(b.line(i, verdicts.back()));
        const auto &more = b.recipes[b.pending[i]]->declaration.stress_warm_up;
        warm.back().insert(warm.back().end(), more.begin(), more.end());
        warm.back().push_back("--warm-up");
    }
    synclab::ProcessLimits behind = b.limits;
    behind.timeout_s = std::min(b.s.timeout_s * static_cast<double>(warm.size()) + 30, synclab::kMaxTimeout);
    auto env = b.env;
    stand_behind(b.s, behind, env, false);
    const std::vector<Run> built = run_runner_lines(warm, verdicts, b.s, b.folders, b.job_dir, behind, env);
    for (std::size_t i = 0; i < b.pending.size(); ++i) {
        if (i < built.size())
            note_run(rows[b.pending[i]], built[i],
                     "stress build (--warm-up, one process for the submission's stress runs; graded by them)");
        else
            rows[b.pending[i]].details += "stress build: not reached (the process ended before it); the stress run builds it\n";
    }
}

// The stress schedules of every lab of one submission that passed all else (kStressPending), at
// once: their builds in one process behind the stress runs (warm_up_together), then their
// schedules in one process holding the cores, which gives each lab's line its own verdict. One
// wait at the gate and two processes for the submission, not one wait and two processes a lab.
// As in run_shared, a lab's crash, hang or error after another lab's line in the same process
// may be what that one left there: it runs again as the first of a new process. `files`: what
// the labs staged when graded; a folder that changed since fails them, to be graded again.
void stress_together(const std::vector<const Recipe *> &recipes, std::vector<Result> &rows,
                     const std::vector<std::string> &files, const std::string &kernels_dir,
                     const Settings &s, const volatile int *stop, const std::string &job_dir) {
    std::vector<std::size_t> pending;
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (rows[i].kind == kStressPending) pending.push_back(i);
    if (pending.empty()) return;
    const auto start = std::chrono::steady_clock::now();
    clear_folder(job_dir);
    StressBatch b{recipes, pending, s, job_dir, job_folders(job_dir, s), {}, {}};
    Staged staged = stage_submission(kernels_dir, b.folders.copy, recipes[pending.front()]->kernel_file);
    std::sort(staged.files.begin(), staged.files.end());
    if (!staged.refused.empty() || staged.files != files) {
        for (std::size_t i : pending)
            std::tie(rows[i].grade, rows[i].kind, rows[i].reason) = std::make_tuple(
                "fail", "error", "the submission's files changed while it was graded: grade it again");
        clear_folder(job_dir);
        return;
    }
    b.env = stress_run_env(recipes[pending.front()]->declaration);
    b.env.insert(b.folders.env.begin(), b.folders.env.end());
    b.env["SYNCLAB_SESSION_NICE"] = "";
    b.limits.memory_bytes = s.device_memory_bytes.front();
    b.limits.cwd = b.folders.copy;  // so each lab names its kernel file as the student does
    b.limits.stop = stop;
    b.limits.parent_pipe = true;
    if (!*stop) warm_up_together(b, rows);
    for (std::size_t at = 0; at < pending.size() && !*stop;) {
        std::vector<synclab::Args> lines;
        std::vector<std::string> verdicts;
        for (std::size_t i = at; i < pending.size(); ++i) {
            verdicts.push_back(b.verdict("stress-", i));
            lines.push_back(b.line(i, verdicts.back()));
        }
        synclab::ProcessLimits limits = b.limits;
        limits.timeout_s = std::min(s.timeout_s * static_cast<double>(lines.size()) + 30, synclab::kMaxTimeout);
        const StressSlot slot(s.stress_gate.get(), stop);
        if (!slot.entered) break;
        const std::vector<Run> ran = run_runner_lines(lines, verdicts, s, b.folders, job_dir, limits, b.env);
        if (*stop) break;  // killed: nothing of it counts
        std::size_t next = at + ran.size();
        for (std::size_t k = 0; k < ran.size(); ++k) {
            const Run &st = ran[k];
            const std::string &kind = st.verdict.kind;
            const bool own = k == 0 || (st.verdict.finished && st.process.exited &&
                                        st.process.exit_code == st.verdict.exit_code &&
                                        (kind == "verified" || kind == "wrong" || kind == "compile-error"));
            if (!own) {  // again, first in a new process
                next = at + k;
                break;
            }
            Result &r = rows[pending[at + k]];
            note_run(r, st, "stress schedules");
            std::tie(r.grade, r.kind, r.reason) =
                stress_grade(*recipes[pending[at + k]], s, st, r.reason, b.folders.copy, kernels_dir);
        }
        at = next;
    }
    for (std::size_t i : pending)  // what *stop left: unfinished
        if (rows[i].kind == kStressPending) rows[i].grade = rows[i].kind = rows[i].reason = "";
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (std::size_t i : pending) rows[i].seconds += took / static_cast<double>(pending.size());
    clear_folder(job_dir);
}

// A lab whose program text differs under another profile is graded under that one too, every
// check on that text: it passes only where it passes under each.
Result judge_other_profiles(Result r, const Recipe &recipe, const std::string &student,
                            const std::string &kernels_dir, const Settings &s,
                            const volatile int *stop, const std::string &job_dir) {
    std::set<std::string> judged{s.profile};
    while (r.passed() && !*stop) {
        const auto next = std::find_if(r.profiles_differ.begin(), r.profiles_differ.end(),
                                       [&](const std::string &p) { return !judged.count(p); });
        const synclab::Profile *profile = next == r.profiles_differ.end() ? nullptr : synclab::find_profile(*next);
        if (!profile) break;
        judged.insert(profile->name);
        Settings other = s;
        other.profile = profile->name;
        const Result o = grade_one(recipe, student, kernels_dir, other, stop, job_dir, nullptr);
        const std::string under = "with the macros of " + profile->says;
        r.seconds += o.seconds;
        r.details += "\n" + under + ", where the program text differs:\n" + o.details;
        r.profiles_differ.insert(o.profiles_differ.begin(), o.profiles_differ.end());
        if (o.grade.empty()) {  // stopped: unfinished
            r.grade = r.kind = r.reason = "";
        } else if (!o.passed()) {
            r.grade = o.grade;
            r.kind = o.kind;
            r.reason = under + " (the text differs there): " + o.reason;
        } else {
            r.reason += "; " + under + " (the text differs there): passed too";
        }
    }
    return r;
}

}  // namespace

Result grade_lab(const Recipe &recipe, const std::string &student, const std::string &kernels_dir,
                 const Settings &s, const volatile int *stop, const std::string &job_dir) {
    return judge_other_profiles(grade_one(recipe, student, kernels_dir, s, stop, job_dir, nullptr),
                                recipe, student, kernels_dir, s, stop, job_dir);
}

std::vector<Result> grade_labs(const std::vector<const Recipe *> &recipes, const std::string &student,
                               const std::string &kernels_dir, const Settings &s,
                               const volatile int *stop, const std::string &job_dir) {
    std::vector<std::optional<Shared>> shared(recipes.size());
    std::map<std::size_t, std::vector<std::string>> staged_files;  // each runner lab's, sorted
    if (!s.runner.empty() && s.devices.size() == 1) {
        // Labs that take the same environment, each staging the same files (one whose own file
        // is missing or refused is graded alone, and says so at once).
        std::map<std::map<std::string, std::string>, std::vector<std::size_t>> groups;
        const std::string probe = (fs::path(job_dir) / "submission").string();
        for (std::size_t i = 0; i < recipes.size() && !*stop; ++i) {
            if (!s.runner_labs.count(recipes[i]->id) || recipes[i]->runs.empty()) continue;
            clear_folder(job_dir);
            const Staged st = stage_submission(kernels_dir, probe, recipes[i]->kernel_file);
            if (!st.refused.empty() ||
                std::find(st.files.begin(), st.files.end(), recipes[i]->kernel_file) == st.files.end())
                continue;
            std::vector<std::string> files = st.files;
            std::sort(files.begin(), files.end());
            staged_files[i] = files;
            // Labs whose groups wait for one another share a process of their own in a grading
            // with stress schedules: it is not run behind the stress runs (behind_stress).
            auto key = dynamic_run_env(recipes[i]->declaration);
            if (holds_cores(s, recipes[i]->declaration)) key["synclab: groups wait"] = "1";
            groups[key].push_back(i);
        }
        for (auto &[env, members] : groups) {
            // The files most of the group stage; a lab that stages others is graded alone.
            std::vector<std::size_t> same;
            for (std::size_t m : members)
                if (staged_files[m] == staged_files[members.front()]) same.push_back(m);
            std::map<std::size_t, std::vector<std::string>> seeds;
            // Two labs or more to share a process, or one to run again on its seeds.
            for (std::size_t at = 0;
                 !*stop && (same.size() - at >= 2 || (same.size() - at == 1 && seeds.count(same[at])));)
                at += run_shared(recipes, {same.begin() + static_cast<std::ptrdiff_t>(at), same.end()},
                                 staged_files[same.front()], kernels_dir, s, stop, job_dir, shared,
                                 seeds);
        }
    }
    // The stress-tested labs the runner runs that stage the same files (the first one's) leave
    // their schedules to stress_together, after the submission's other labs.
    std::vector<std::string> stress_files;
    std::vector<bool> together(recipes.size(), false);
    for (std::size_t i = 0; i < recipes.size() && s.stress; ++i) {
        if (!recipes[i]->declaration.stress_schedules || !staged_files.count(i)) continue;
        if (stress_files.empty()) stress_files = staged_files[i];
        together[i] = staged_files[i] == stress_files;
    }
    std::vector<Result> out;
    for (std::size_t i = 0; i < recipes.size(); ++i)
        out.push_back(grade_one(*recipes[i], student, kernels_dir, s, stop, job_dir,
                                shared[i] ? &*shared[i] : nullptr, together[i]));
    stress_together(recipes, out, stress_files, kernels_dir, s, stop, job_dir);
    for (std::size_t i = 0; i < recipes.size(); ++i)
        out[i] = judge_other_profiles(out[i], *recipes[i], student, kernels_dir, s, stop, job_dir);
    return out;
}

std::set<std::string> runner_labs(const std::string &runner, const std::vector<Recipe> &labs,
                                  const std::string &folder, const volatile int *stop) {
    std::set<std::string> out;
    if (labs.empty() || access(runner.c_str(), X_OK) != 0) return out;
    const std::string batch = (fs::path(folder) / "describe.tsv").string();
    {
        std::ofstream f(batch, std::ios::binary | std::ios::trunc);
        for (const auto &l : labs) f << l.declaration.dir << "\t--describe\n";
    }
    synclab::ProcessLimits limits;
    limits.timeout_s = 60;
    limits.stop = stop;
    const auto p = synclab::run_process({runner, "--batch", batch}, {}, limits);
    std::error_code ec;
    fs::remove(batch, ec);
    if (!p.exited || p.exit_code != 0) {
        // One lab it cannot load stops the runner: ask for each lab alone.
        if (labs.size() == 1 || (stop && *stop) || !p.exited || p.exit_code != 2 ||
            p.err.find("synclab-labs: cannot load lab ") == std::string::npos)
            return out;
        for (const auto &l : labs)
            for (const auto &id : runner_labs(runner, {l}, folder, stop)) out.insert(id);
        return out;
    }
    const std::vector<std::string> said = runs_of(p.out, labs.size());
    for (std::size_t i = 0; i < labs.size(); ++i) {  // its part after its "== run" line
        const std::size_t eol = said[i].find('\n');
        if (!labs[i].description.empty() && said[i].rfind("== run ", 0) == 0 &&
            said[i].substr(eol + 1) == labs[i].description)
            out.insert(labs[i].id);
    }
    return out;
}

}  // namespace grade
