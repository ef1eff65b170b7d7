#include "support.hpp"
#include "synclab/errors.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;

namespace test {

// SYNCLAB_SOURCE_DIR overrides the configure-time path: a build folder carried to another
// machine runs its tests against the source tree found there.
std::string source(const std::string &rel) {
    const char *env = std::getenv("SYNCLAB_SOURCE_DIR");
    return std::string(env && *env ? env : SYNCLAB_TEST_SOURCE_DIR) + "/" + rel;
}

bool wait_until(const std::function<bool()> &happened, double bound_s, const std::string &what) {
    using clock = std::chrono::steady_clock;
    const auto bound = clock::now() + std::chrono::duration_cast<clock::duration>(
                                          std::chrono::duration<double>(bound_s));
    // The look is cheap at first and every 50 ms at most: a scan of /proc is no busy loop.
    for (auto pause = std::chrono::milliseconds(1);; pause = std::min(pause * 2, std::chrono::milliseconds(50))) {
        if (happened()) return true;
        if (clock::now() > bound) break;
        std::this_thread::sleep_for(pause);
    }
    FAIL_CHECK("never happened within " << bound_s << " s: " << what);
    return false;
}

bool running_with(const std::string &needle) {
    const std::string self = std::to_string(getpid());
    std::error_code ec;
    for (const auto &e : fs::directory_iterator("/proc", ec)) {
        const std::string name = e.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos || name == self) continue;
        std::ifstream in(e.path() / "cmdline", std::ios::binary);
        std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::replace(cmd.begin(), cmd.end(), '\0', ' ');
        if (cmd.find(needle) != std::string::npos) return true;
    }
    return false;
}

long sleeps_of(pid_t tid) {
    std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("voluntary_ctxt_switches:", 0) == 0) return std::stol(line.substr(24));
    return -1;
}

std::string mutated(const std::string &file, const std::string &from, const std::string &to) {
    return mutated(file, {{from, to}});
}

std::string mutated(const std::string &file, const std::vector<std::pair<std::string, std::string>> &changes) {
    char dir[] = "/tmp/synclab-mutated-XXXXXX";
    REQUIRE(mkdtemp(dir));
    std::ifstream in(source("solutions/" + file));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const auto &[from, to] : changes) {
        const auto at = text.find(from);
        REQUIRE(at != std::string::npos);
        text.replace(at, from.size(), to);
    }
    std::ofstream(std::string(dir) + "/" + file) << text;
    return dir;
}

// The labs sit beside the test executable (build/bin/).
std::string lab(const std::string &name) {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ((ec ? fs::path(SYNCLAB_TEST_BIN_DIR) : self.parent_path()) / name).string();
}

synclab::ProcessResult run_lab(const std::string &name, const std::vector<std::string> &args,
                               const std::map<std::string, std::string> &env) {
    std::vector<std::string> argv{lab(name)};
    argv.insert(argv.end(), args.begin(), args.end());
    synclab::ProcessLimits limits;
    limits.timeout_s = 120;
    return synclab::run_process(argv, env, limits);
}

synclab::ProcessResult run_batch(const std::string &name, const std::string &file) {
    const std::string folder = name.substr(3);  // lab01_workgroup_reduce -> 01_workgroup_reduce
    std::ifstream in(file, std::ios::binary);
    std::string text;
    for (std::string l; std::getline(in, l);) text += (l.empty() ? "" : folder + "\t" + l) + "\n";
    in.close();
    std::ofstream(file + ".lines", std::ios::binary | std::ios::trunc) << text;
    synclab::ProcessLimits limits;
    limits.timeout_s = 120;
    return synclab::run_process({lab("synclab-labs"), "--batch", file + ".lines"}, {}, limits);
}

void check_usage_error(const std::string &lab_name, const std::vector<std::string> &args,
                       const std::string &says, const std::map<std::string, std::string> &env) {
    const auto r = run_lab(lab_name, args, env);
    CAPTURE(lab_name);
    CAPTURE(r.err);
    CHECK(r.exited);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.find(says) != std::string::npos);
}

int line_count(const std::string &text) {
    int n = 0;
    for (char c : text) n += c == '\n';
    if (!text.empty() && text.back() != '\n') ++n;
    return n;
}

int line_of(const std::string &file, const std::string &needle, int nth) {
    std::ifstream in(file);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        const std::size_t text = line.find_first_not_of(" \t");
        const bool comment = text != std::string::npos && line.compare(text, 2, "//") == 0;
        if (!comment && line.find(needle) != std::string::npos && --nth == 0) return n;
    }
    return 0;
}

std::vector<synclab::DeviceInfo> dynamic_devices() {
    std::vector<std::string> wanted;
    if (const char *env = std::getenv("SYNCLAB_TEST_DEVICES")) {
        std::stringstream ss(env);
        for (std::string w; std::getline(ss, w, ',');)
            if (!w.empty()) wanted.push_back(w);
    }
    std::vector<synclab::DeviceInfo> out;
    for (const auto &d : synclab::all_devices()) {
        if (d.is_oclgrind()) continue;
        if (wanted.empty()) { out.push_back(d); continue; }
        for (const auto &w : wanted)
            if (synclab::select_device(w).spec() == d.spec()) { out.push_back(d); break; }
    }
    // A loop over no device checks nothing: that is a failure, not a pass.
    REQUIRE_MESSAGE(!out.empty(), "no device to test on (install POCL, or fix SYNCLAB_TEST_DEVICES)");
    return out;
}

bool have_oclgrind() {
    try {
        for (const auto &d : synclab::all_devices())
            if (d.is_oclgrind()) return true;
    } catch (const synclab::UsageError &) {  // no OpenCL device at all: no Oclgrind either
    }
    // Outside a test (a decorator runs before main) doctest has nowhere to report: it crashed
    // there, and the whole test binary with it, wherever Oclgrind was missing.
    if (!doctest::is_running_in_test) return false;
    // CI sets this: there, a skipped Oclgrind test would be a test that cannot fail.
    if (std::getenv("SYNCLAB_REQUIRE_OCLGRIND"))
        FAIL_CHECK("Oclgrind is required (SYNCLAB_REQUIRE_OCLGRIND) but not installed: "
                   "sudo apt-get install oclgrind");
    else
        MESSAGE("Oclgrind not installed: its checks are skipped");
    return false;
}

OclgrindRun run_on_oclgrind(const std::string &lab_name, const std::vector<std::string> &args) {
    static int counter = 0;
    const fs::path log = fs::temp_directory_path() /
                         ("synclab-oclgrind-" + std::to_string(getpid()) + "-" +
                          std::to_string(++counter) + ".log");
    std::vector<std::string> all{"--device", "oclgrind"};
    all.insert(all.end(), args.begin(), args.end());
    OclgrindRun r;
    r.process = run_lab(lab_name, all, {{"OCLGRIND_LOG", log.string()}});
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    r.findings = synclab::oclgrind_findings(text.str());
    std::error_code ec;
    fs::remove(log, ec);
    return r;
}

Expect expectation(const std::string &text) {
    const auto at = text.rfind("// expect: ");
    REQUIRE_MESSAGE(at != std::string::npos, "a fixture has no // expect: line");
    auto kinds = [](const std::string &list) {
        std::set<std::string> k;
        std::stringstream ss(list);
        for (std::string one; std::getline(ss, one, '|');) k.insert(one);
        return k;
    };
    Expect e;
    std::stringstream parts(text.substr(at + 11, text.find('\n', at) - at - 11));
    for (std::string part; std::getline(parts, part, ';');) {
        part.erase(0, part.find_first_not_of(' '));
        if (part.rfind("without-oclgrind: ", 0) == 0) e.without_oclgrind = kinds(part.substr(18));
        else if (part.rfind("reason: ", 0) == 0) e.reason = part.substr(8);
        else if (part == "drawn: every") e.drawn_every = true;
        else e.kinds = kinds(part);
    }
    if (e.without_oclgrind.empty()) e.without_oclgrind = e.kinds;
    return e;
}

void check_plot(const std::string &script, const std::string &csv, const std::string &png) {
    CAPTURE(csv);
    fs::remove(png);
    const auto r = synclab::run_process({source("scripts/" + script), csv, png});
    CAPTURE(r.err);
    if (std::system("command -v gnuplot >/dev/null 2>&1") == 0) {
        CHECK(r.exit_code == 0);
        CHECK(fs::exists(png));
        if (fs::exists(png)) CHECK(fs::file_size(png) > 1000);
    } else {
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("apt-get install gnuplot-nox") != std::string::npos);
    }
}

}  // namespace test
