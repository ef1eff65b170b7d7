#include "grade.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>
#include <sstream>

#include "synclab/oclgrind.hpp"
#include "process.hpp"
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

struct Run {
    std::vector<std::string> argv;
    synclab::ProcessResult process;
    synclab::VerdictRecord verdict;  // what the lab wrote to --verdict
};

// What went wrong in a child run, as (kind, one-line reason); kind "" when it passed. The lab's
// machine-readable verdict decides; its exit and signals only where it could not write one.
std::pair<std::string, std::string> classify(const Run &run, const std::string &kernels_dir,
                                             double timeout_s) {
    const auto &p = run.process;
    const auto &v = run.verdict;
    if (p.timed_out)
        return {"timeout", "timed out after " + seconds_text(timeout_s) +
                               " s: a kernel that never finishes (an endless loop, or a barrier "
                               "that not every work-item reaches?)"};
    if (p.signal) return {"crash", "crashed: killed by " + signal_name(p.signal)};
    if (!v.finished)
        return {"error", "the lab stopped with " + p.describe() + " and left no verdict"};
    if (p.exited && p.exit_code != v.exit_code)
        return {"error", "the lab's verdict (exit " + std::to_string(v.exit_code) +
                             ") disagrees with its " + p.describe()};
    const std::string message = clip(relative(v.message, kernels_dir));
    if (v.kind == "verified") return {"", ""};
    if (v.kind == "timeout") return {"timeout", message};
    if (v.kind == "crash") return {"crash", "crashed on the device: " + message};
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

// Race checks that fail a lab; Oclgrind's other messages are only noted.
bool fails(const synclab::OclgrindFinding &f) {
    return f.kind == "data-race" || f.kind == "barrier-divergence" || f.kind == "out-of-bounds" ||
           f.kind == "uninitialized";
}

int priority(const synclab::OclgrindFinding &f) {
    static const char *order[] = {"data-race", "barrier-divergence", "out-of-bounds",
                                  "uninitialized"};
    for (int i = 0; i < 4; ++i)
        if (f.kind == order[i]) return i;
    return 4;
}

std::string finding_line(const synclab::OclgrindFinding &f, const std::string &kernels_dir) {
    std::string s = relative(f.friendly(), kernels_dir);
    if (f.headline.rfind("Write-write", 0) == 0)
        s += " (when every work-item writes the same place, let one of them write it, e.g. "
             "if (id == 0))";
    if (f.count > 1) s += " [" + std::to_string(f.count) + " reports]";
    return s;
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

bool oclgrind_listed(const std::string &executable, const volatile int *stop) {
    synclab::ProcessLimits limits;
    limits.timeout_s = 60;
    limits.stop = stop;
    const auto r = synclab::run_process({executable, "--list-devices"}, {}, limits);
    std::string out = r.out;
    std::transform(out.begin(), out.end(), out.begin(), ::tolower);
    return r.exited && r.exit_code == 0 && out.find("oclgrind") != std::string::npos;
}

Result grade_lab(const Recipe &recipe, const std::string &student, const std::string &kernels_dir,
                 const Settings &s, const volatile int *stop) {
    const auto start = std::chrono::steady_clock::now();
    Result r;
    r.student = student;
    r.lab = recipe.id;
    auto finish = [&](std::string grade, std::string kind, std::string reason) {
        r.grade = std::move(grade);
        r.kind = std::move(kind);
        r.reason = std::move(reason);
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return r;
    };
    std::error_code ec;
    if (!fs::is_regular_file(fs::path(kernels_dir) / recipe.kernel_file, ec))
        return finish("missing", "missing", recipe.kernel_file + " not handed in");

    const std::string exe = (fs::path(s.bin_dir) / recipe.executable).string();
    const std::string verdict_file = (fs::path(s.work_dir) / "verdict.tsv").string();

    // Children run in the grader's private folder, with their temporary files there too.
    const std::map<std::string, std::string> base_env{{"TMPDIR", s.work_dir},
                                                      {"SYNCLAB_KERNELS", ""}};
    auto run = [&](std::vector<std::string> args, std::map<std::string, std::string> env,
                   std::size_t memory) {
        Run out;
        out.argv = {exe, "--kernels", kernels_dir, "--verdict", verdict_file};
        out.argv.insert(out.argv.end(), args.begin(), args.end());
        if (s.seed) out.argv.insert(out.argv.end(), {"--seed", std::to_string(s.seed)});
        // Only bounds a lab orphaned by a killed grader.
        out.argv.insert(out.argv.end(),
                        {"--timeout", seconds_text(std::min(s.timeout_s + 30, synclab::kMaxTimeout))});
        env.insert(base_env.begin(), base_env.end());
        synclab::ProcessLimits limits;
        limits.timeout_s = s.timeout_s;
        limits.memory_bytes = memory;
        // A signal between our last look at *stop and the fork still ends this child at once.
        limits.stop = stop;
        out.process = synclab::run_process(out.argv, env, limits);
        std::ifstream in(verdict_file, std::ios::binary);
        std::string text(1 << 20, '\0');  // a verdict is a few lines; never read one without end
        in.read(&text[0], static_cast<std::streamsize>(text.size()));
        text.resize(static_cast<std::size_t>(in.gcount()));
        out.verdict = synclab::parse_verdict(text);
        return out;
    };

    // (1) Dynamic runs: every variant, every size. The first failure gives the kind and the
    // reason; every failed variant is named, so a student sees which parts are still wrong.
    std::string kind, reason;
    std::vector<std::string> failed;
    int runs = 0;
    for (const auto &variant : recipe.variants) {
        std::string vkind, vreason;
        for (std::size_t j = 0; j < recipe.runs.size() * s.devices.size() && vkind.empty(); ++j) {
            const std::size_t i = j % recipe.runs.size();
            const std::string &device = s.devices[j / recipe.runs.size()];
            if (s.quick && i > 0) continue;
            if (*stop) return finish("", "", "");
            std::vector<std::string> args{"--variant", variant};
            args.insert(args.end(), recipe.runs[i].begin(), recipe.runs[i].end());
            if (!device.empty()) args.insert(args.end(), {"--device", device});
            const Run run_result = run(args, {}, s.device_memory_bytes.at(j / recipe.runs.size()));
            clear_folder(s.work_dir);
            if (*stop) return finish("", "", "");
            note_run(r, run_result, "run");
            ++runs;
            std::tie(vkind, vreason) = classify(run_result, kernels_dir, s.timeout_s);
            if (!vkind.empty()) {
                std::string where = "--variant " + variant + " " + join(recipe.runs[i]);
                if (!device.empty()) where += " --device " + device;
                const std::string seed = run_result.verdict.seed;
                if (!seed.empty()) where += " --seed " + seed;
                if (vkind == "wrong-answer" || vkind == "crash") vreason += " (" + where + ")";
            }
        }
        if (vkind.empty()) continue;
        failed.push_back(variant);
        if (kind.empty()) {
            kind = vkind;
            reason = vreason;
        }
        // The same file again would only fail to build or hang again.
        if (vkind == "compile-error" || vkind == "timeout" || vkind == "error") break;
    }
    if (failed.size() > 1) reason += "; failed variants: " + join(failed);
    // A build error or a hang would only repeat itself on Oclgrind.
    if (kind == "compile-error" || kind == "timeout" || kind == "error")
        return finish("fail", kind, reason);

    // (2) The race check on Oclgrind: findings fail the lab, or explain a wrong answer.
    if (recipe.oclgrind.empty()) {
        if (kind.empty())
            return finish("pass", "pass",
                          std::to_string(runs) + " run(s) right; " +
                              (recipe.race_skipped.empty() ? "no race check" : recipe.race_skipped));
        return finish("fail", kind, reason);
    }
    if (!s.race_check || !s.oclgrind_available) {
        if (kind.empty())
            return finish("pass", "pass",
                          std::to_string(runs) + " run(s) right; " + s.race_check_note);
        return finish("fail", kind, reason);
    }
    std::string og_kind, og_reason;
    for (const auto &variant : recipe.variants) {
        if (*stop) return finish("", "", "");
        const std::string log = (fs::path(s.work_dir) / "oclgrind.log").string();
        std::vector<std::string> args{"--variant", variant, "--device", "oclgrind"};
        args.insert(args.end(), recipe.oclgrind.begin(), recipe.oclgrind.end());
        std::map<std::string, std::string> og_env{{"OCLGRIND_LOG", log},
                                                  {"OCLGRIND_DATA_RACES", "1"},
                                                  {"OCLGRIND_UNINITIALIZED", "1"},
                                                  // every work-item writing one place is a race too
                                                  {"OCLGRIND_UNIFORM_WRITES", "1"}};
        for (std::string check : recipe.oclgrind_off) {  // the lab's declaration turns these off
            std::transform(check.begin(), check.end(), check.begin(), ::toupper);
            std::replace(check.begin(), check.end(), '-', '_');
            og_env["OCLGRIND_" + check] = "0";
        }
        const Run og = run(args, og_env, s.oclgrind_memory_bytes);
        if (*stop) return finish("", "", "");
        // Its first findings are the ones told; an endless log is not read whole.
        std::ifstream in(log, std::ios::binary);
        std::string text(16u << 20, '\0');
        in.read(&text[0], static_cast<std::streamsize>(text.size()));
        text.resize(static_cast<std::size_t>(in.gcount()));
        in.close();
        clear_folder(s.work_dir);
        note_run(r, og, "race check (OCLGRIND_LOG=" + log + ")");
        std::vector<std::string> found;
        std::string first_kind;
        auto findings = synclab::distinct(synclab::parse_oclgrind_log(text));
        // A race often shows up as an uninitialized read too: the race is the one to tell.
        std::stable_sort(findings.begin(), findings.end(), [](const auto &a, const auto &b) {
            return priority(a) < priority(b);
        });
        for (const auto &f : findings) {
            if (!fails(f)) {
                r.details += "  Oclgrind also said: " + relative(f.friendly(), kernels_dir) + "\n";
                continue;
            }
            if (first_kind.empty()) first_kind = f.kind;
            found.push_back(finding_line(f, kernels_dir));
        }
        if (found.size() > 3) {
            const std::size_t more = found.size() - 3;
            found.resize(3);
            found.push_back("and " + std::to_string(more) + " more");
        }
        if (!found.empty()) {
            og_kind = first_kind;
            og_reason = join(found, "; ");
        } else {
            auto [k, why] = classify(og, kernels_dir, s.timeout_s);
            if (!k.empty()) {
                og_kind = k;
                og_reason = "on Oclgrind: " + why;
            }
        }
        if (!og_kind.empty()) break;
    }
    if (!kind.empty()) {  // the dynamic failure stays the grade; Oclgrind says why
        if (!og_kind.empty() && og_reason.rfind("on Oclgrind", 0) != 0)
            reason += "; Oclgrind: " + og_reason;
        return finish("fail", kind, reason);
    }
    if (!og_kind.empty()) return finish("fail", og_kind, og_reason);
    return finish("pass", "pass", std::to_string(runs) + " run(s) right; Oclgrind: no findings");
}

}  // namespace grade
