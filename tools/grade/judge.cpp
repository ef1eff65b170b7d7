// What a child's run means (judge.hpp).
#include "judge.hpp"

#include <algorithm>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <sstream>

#include "synclab/protocol.hpp"
#include "synclab/stress.hpp"

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

}  // namespace

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

std::string join(const std::vector<std::string> &v, const std::string &sep) {
    std::string out;
    for (const auto &s : v) out += (out.empty() ? "" : sep) + s;
    return out;
}

// A kernel's printf can make one line megabytes long: reports keep its start.
std::string clip(std::string line, std::size_t max) {
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

// `kernel`: the one the lab's watchdog saw running ("" if none had been launched).
static std::string hang_reason(double timeout_s, const std::string &kernel) {
    return "timed out after " + seconds_text(timeout_s) + " s: " +
           (kernel.empty() ? "a kernel that never finishes" : "kernel " + kernel + " never finished") +
           " (an endless loop, or a barrier that not every work-item reaches?)";
}

namespace {
using synclab::FindingKind;
using synclab::ResultKind;
// The wire's kinds and the rows': indexed by the wire's enums, in their order.
constexpr Kind kResultKinds[] = {Kind::None,  Kind::WrongAnswer, Kind::CompileError, Kind::Refused,
                                 Kind::Error, Kind::Error,       Kind::Crash,        Kind::Timeout,
                                 Kind::Error, Kind::Error};
constexpr Kind kFindingKinds[] = {Kind::DataRace,   Kind::MemoryModel,   Kind::Deadlock,
                                  Kind::BarrierDivergence, Kind::OutOfBounds, Kind::Uninitialized,
                                  Kind::Error,      Kind::Error};
static_assert(std::size(kResultKinds) == static_cast<std::size_t>(ResultKind::Unknown) + 1);
static_assert(std::size(kFindingKinds) == static_cast<std::size_t>(FindingKind::Unknown) + 1);
}  // namespace

Kind kind_of(ResultKind k) { return kResultKinds[static_cast<std::size_t>(k)]; }
Kind kind_of(FindingKind k) { return kFindingKinds[static_cast<std::size_t>(k)]; }

bool as_verdict_says(const Run &run) {
    return run.verdict.finished && run.process.exited && run.process.exit_code == run.verdict.exit_code;
}

bool ran_right(const Run &run) { return as_verdict_says(run) && run.verdict.exit_code == 0; }

bool counts_when_shared(const Run &run) {
    const ResultKind k = run.verdict.kind;
    return ran_right(run) || (as_verdict_says(run) && (k == ResultKind::Verified || k == ResultKind::Wrong ||
                                                       k == ResultKind::CompileError ||
                                                       k == ResultKind::Unsupported));
}

// What went wrong in a child run, as (kind, one-line reason); kind "" when it passed. The lab's
// machine-readable verdict decides; its exit and signals only where it could not write one.
std::pair<Kind, std::string> classify(const Run &run, const std::string &kernels_dir,
                                             double timeout_s) {
    const auto &p = run.process;
    const auto &v = run.verdict;
    if (p.timed_out)  // the grader's bound on the process (protocol::batch_timeout), far past --timeout
        return {Kind::Timeout, "timed out: the lab's process outlived the grader's bound on it, its own "
                               "watchdog (--timeout " + seconds_text(timeout_s) + ") never stopping it"};
    if (p.signal) return {Kind::Crash, "crashed: killed by " + signal_name(p.signal)};
    // Inside the sandbox the lab is bubblewrap's child, and a signal that kills it comes back
    // as bubblewrap's exit code 128 + the signal's number.
    if (!v.finished && p.exited && p.exit_code > 128 && p.exit_code < 128 + 65)
        return {Kind::Crash, "crashed: killed by " + signal_name(p.exit_code - 128)};
    if (!v.finished) {  // what it said last may say why (a module the runner cannot load)
        const auto said = lines_of(p.err);
        return {Kind::Error, "the lab stopped with " + p.describe() + " and left no verdict" +
                             (said.empty() ? "" : ": " + clip(said.back(), 200))};
    }
    if (p.exited && p.exit_code != v.exit_code)
        return {Kind::Error, "the lab's verdict (exit " + std::to_string(v.exit_code) +
                             ") disagrees with its " + p.describe()};
    const std::string message = clip(relative(v.message, kernels_dir), kWhole);
    const std::string where = v.where.empty() ? "" : relative(v.where, kernels_dir) + ": ";
    const Kind kind = kind_of(v.kind);
    switch (kind) {
    case Kind::None: return {Kind::None, ""};
    case Kind::Timeout: return {kind, hang_reason(timeout_s, v.where)};  // its watchdog
    case Kind::Crash: return {kind, "crashed on the device: " + message};
    case Kind::Refused: return {kind, where + message};
    case Kind::CompileError: return {kind, "does not compile: " + where + message};
    case Kind::WrongAnswer: {
        std::vector<std::string> wrong;
        for (const auto &var : v.variants)
            if (var.state == synclab::VariantState::Wrong && wrong.size() < 3)
                wrong.push_back(clip(var.variant + " WRONG (" + var.detail + ")"));
        return {kind, "wrong answer: " + (wrong.empty() ? "the lab says so" : join(wrong, "; "))};
    }
    default: return {Kind::Error, message.empty() ? "the lab stopped with " + p.describe() : message};
    }
}

void note_run(Result &r, const Run &run, const std::string &title) {
    r.profiles_differ.insert(run.verdict.profiles_differ.begin(), run.verdict.profiles_differ.end());
    r.details += title + ": " + synclab::protocol::shell_command(run.argv) +
                 "\n  -> " + run.process.describe() + "\n";
    if (run.process.dropped)  // the middle of a huge output; its head and tail are kept
        r.details += "  (" + std::to_string(run.process.dropped) +
                     " bytes of output left out of the middle)\n";
    if (!run.process.out.empty()) r.details += tail(run.process.out, 12);
    if (!run.process.err.empty()) r.details += tail(run.process.err, 12);
}

// Oclgrind's findings as the lab recorded them, in its order: the first kind and one line.
std::pair<Kind, std::string> race_findings(const synclab::VerdictRecord &v,
                                                  const std::vector<std::string> &variants,
                                                  const std::string &kernels_dir) {
    std::vector<synclab::FindingRecord> found;
    for (const auto &f : v.findings)
        if (std::find(variants.begin(), variants.end(), f.variant) != variants.end() &&
            synclab::fails(f.kind))
            found.push_back(f);
    if (found.empty()) return {Kind::None, ""};
    // In the lab's order (synclab::order_findings: the cause first), so that the row tells what
    // the lab printed.
    std::vector<std::string> lines;
    for (const auto &f : found) {
        const std::string line = clip(relative(f.message, kernels_dir), kWhole);
        if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
    }
    if (lines.size() > 3) {
        const std::size_t more = lines.size() - 3;
        lines.resize(3);
        lines.push_back("and " + std::to_string(more) + " more");
    }
    return {kind_of(found.front().kind), join(lines, "; ")};
}

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

namespace {

// A lab's executable by its absolute path (beside this grader's own), so a repeat command pastes
// in any folder.
std::string in_checkout(const std::string &executable) {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? "./build/bin/" + executable : (self.parent_path() / executable).string();
}

// The arguments with --kernels' folder made absolute.
std::vector<std::string> absolute_kernels(std::vector<std::string> args) {
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
        if (args[i] == "--kernels") {
            std::error_code ec;
            const fs::path p = fs::absolute(args[i + 1], ec);
            if (!ec) args[i + 1] = p.lexically_normal().string();
        }
    return args;
}

}  // namespace

std::string repeat_command(const std::string &executable, const std::vector<std::string> &args) {
    return in_checkout(executable) + " " + synclab::protocol::shell_command(absolute_kernels(args));
}

// The grade a stress run gives a lab that passed so far (`passed`): grade, kind and reason. A
// schedule that went wrong is named by its seed, with the command that repeats it on the
// student's own folder.
std::tuple<Grade, Kind, std::string> stress_grade(const Recipe &recipe, const Settings &s,
                                                               const Run &st, const std::string &passed,
                                                               const std::string &copy,
                                                               const std::string &kernels_dir) {
    const synclab::Declaration &d = recipe.declaration;
    const auto &v = st.verdict;
    if (ran_right(st))
        return {Grade::Pass, Kind::Pass,
                passed + "; " + std::to_string(stress_schedules(recipe, s)) + " stress schedule(s) right"};
    auto [kind, why] = classify(st, copy, s.timeout_s);
    if (kind == Kind::None) std::tie(kind, why) = std::pair<Kind, std::string>(Kind::Error, "the stress run failed");
    if (v.schedule.empty()) return {Grade::Fail, kind, "under stress: " + why};
    std::vector<std::string> again{"--kernels", kernels_dir};
    again.insert(again.end(), d.stress_args.begin(), d.stress_args.end());
    const std::string repeat =
        synclab::stress_repeat_command(in_checkout(recipe.executable), absolute_kernels(again),
                                       std::stoull(v.schedule));
    return {Grade::Fail, Kind::Stress, "wrong under stress schedule " + v.schedule + ": " + why + "; repeat it: " + repeat};
}

}  // namespace grade
