// synclab-grade's settings and private folder.
#include "setup.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "synclab/device.hpp"
#include "synclab/errors.hpp"
#include "synclab/oclgrind.hpp"  // hbcheck_plugin
#include "synclab/process.hpp"
#include "synclab/protocol.hpp"

namespace fs = std::filesystem;
using synclab::UsageError;

namespace grade {
namespace {

// Whether the lab lists an Oclgrind device. It ends its child when *stop becomes non-zero.
bool oclgrind_listed(const std::string &executable, const volatile int *stop) {
    synclab::ProcessLimits limits;
    limits.timeout_s = 60;
    limits.stop = stop;
    const auto r = synclab::run_process({executable, "--list-devices"}, {}, limits);
    std::string out = r.out;
    std::transform(out.begin(), out.end(), out.begin(), ::tolower);
    return r.exited && r.exit_code == 0 && out.find("oclgrind") != std::string::npos;
}

// A grader killed with SIGKILL leaves its private folder behind: the next one removes every
// such folder of this user whose grader is gone (its lock file is no longer held).
void sweep_stale(const std::string &tmp_root) {
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(tmp_root, ec)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("synclab-grade-", 0) != 0) continue;
        struct stat st {};
        if (lstat(e.path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid())
            continue;
        const std::string lock = (e.path() / "grader.lock").string();
        const int fd = open(lock.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) continue;  // not one of ours (or still being made)
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) fs::remove_all(e.path(), ec);
        close(fd);
    }
}

// Where the grader's private folder goes.
std::string tmp_root() {
    const char *tmp = std::getenv("TMPDIR");
    return tmp && *tmp ? tmp : "/tmp";
}

}  // namespace

Settings device_settings(const Options &o, const std::string &bin, const std::string &icd_vendors) {
    Settings settings;
    settings.bin_dir = bin;
    settings.icd_vendors = icd_vendors;
    // --device a,b: every dynamic run on each device in turn.
    settings.devices.clear();
    std::stringstream devices_in(o.device);
    for (std::string d; std::getline(devices_in, d, ',');)
        if (!d.empty()) settings.devices.push_back(d);
    if (settings.devices.empty()) settings.devices.push_back("");
    settings.seed = o.seed;
    settings.draw_key = o.draw_key;
    settings.timeout_s = o.timeout;
    // The memory limit guards the grader's machine from a CPU device's runaway kernel. A GPU
    // driver reserves far more address space than it uses and fails under such a limit, so by
    // default only CPU devices get it (--memory sets it for every device).
    settings.device_memory_bytes.clear();
    for (const auto &spec : settings.devices) {
        const synclab::DeviceInfo d = synclab::select_device(spec);  // bad SPEC: one line, exit 2
        settings.device_memory_bytes.push_back(
            (o.has_memory || d.is_cpu() || d.is_oclgrind()) ? o.memory_mib << 20 : 0);
    }
    settings.oclgrind_memory_bytes = o.memory_mib << 20;
    return settings;
}

void check_race(Settings &settings, const Options &o, const std::string &lab,
                const volatile int *stop) {
    settings.quick = o.quick;
    settings.race_check = !settings.quick && !o.no_oclgrind;
    settings.stress = !settings.quick && !o.no_stress;
    settings.stress_schedules = o.stress;
    if (!settings.race_check) {
        settings.race_check_note = settings.quick ? "not race-checked (--quick)"
                                                  : "not race-checked (--no-oclgrind)";
    } else {
        settings.oclgrind_available = oclgrind_listed(lab, stop);
        if (*stop) return;
        if (!settings.oclgrind_available) {
            settings.race_check_note = "not race-checked: Oclgrind is not installed";
            std::cout << "note: Oclgrind is not installed (sudo apt-get install oclgrind), so the "
                         "race check is skipped: a kernel that is right only by luck may pass\n";
        }
    }
}

void check_oclgrind(const Settings &s, const std::vector<const Recipe *> &labs) {
    if (!s.race_check || s.oclgrind_available) return;  // judged, or not judged on purpose
    std::string meet;
    int n = 0;
    for (const auto *r : labs)
        if (r->declaration.oclgrind_groups) meet += (n++ ? "," : "") + r->id;
    if (!n) return;
    throw UsageError((n == 1 ? "lab " : "labs ") + meet + (n == 1 ? " needs" : " need") +
                     " Oclgrind, whose race check is the one check of the fences between "
                     "work-groups, and it is not installed: a fence bug there would pass; install it "
                     "(sudo apt-get install oclgrind), leave those labs out (--labs), or give "
                     "--no-oclgrind to fail them as not judged");
}

void check_hbcheck(const Settings &s, const Options &o, const std::vector<const Recipe *> &labs) {
    if (!s.race_check || !s.oclgrind_available || !synclab::hbcheck_plugin().empty()) return;
    std::string meet;
    int n = 0;
    for (const auto *r : labs)
        if (r->declaration.oclgrind_groups) meet += (n++ ? "," : "") + r->id;
    if (!n) return;
    meet = (n == 1 ? "lab " : "labs ") + meet;
    const char *given = std::getenv(synclab::protocol::kHbcheck);
    const std::string why = given ? synclab::protocol::kHbcheck + ("=" + std::string(given)) + " names no plugin file"
                                  : "it was not built";
    if (!o.no_hbcheck)
        throw UsageError(meet + (n == 1 ? " needs" : " need") + " hbcheck, the fence check between work-groups, and " +
                         why + ": a fence bug there would pass; build it (install liboclgrind-dev and "
                         "llvm-14-dev, then cmake and build again" +
                         (given ? ", or unset " + std::string(synclab::protocol::kHbcheck) : "") + "), leave those labs out "
                         "(--labs), or give --no-hbcheck to fail them as not checked");
    std::cout << "note: hbcheck is missing (" << why << "): " << meet << (n == 1 ? " fails" : " fail")
              << " as not checked (--no-hbcheck)\n";
}

void check_sandbox(Settings &settings, const Options &o) {
    const char *sandbox_env = std::getenv("SYNCLAB_GRADE_SANDBOX");
    const bool env_off = sandbox_env && std::string(sandbox_env) == "off";
    settings.sandbox = Sandbox::detect(o.no_sandbox || env_off,
                                       o.no_sandbox ? "--no-sandbox" : "SYNCLAB_GRADE_SANDBOX=off");
    // What the children read (as grade.cpp's job_folders binds it) and the folder holding theirs.
    std::vector<std::string> read{settings.bin_dir};
    std::error_code ec;
    const fs::path lib = fs::path(settings.bin_dir).parent_path() / "lib";
    if (fs::is_directory(lib, ec)) read.push_back(lib.string());
    if (!settings.icd_vendors.empty() && fs::is_directory(settings.icd_vendors, ec))
        read.push_back(settings.icd_vendors);
    settings.sandbox.needs(read, {tmp_root()});
    if (settings.sandbox.available()) return;
    if (o.many && !o.no_sandbox)
        throw UsageError("a class is not graded without a sandbox (" + settings.sandbox.why_not() +
                         "): each student's kernel would run with the grader's own privileges "
                         "and could read whatever the grader can; fix that, or give "
                         "--no-sandbox to grade without one");
    std::cout << "note: no sandbox: " << settings.sandbox.why_not()
              << "; each lab runs with the grader's own privileges, with the time and memory "
                 "limits only\n";
}

WorkFolder::WorkFolder(bool for_others) {
    const std::string tmp_root = grade::tmp_root();
    sweep_stale(tmp_root);
    std::string work = tmp_root + "/synclab-grade-XXXXXX";
    if (!mkdtemp(work.data()))
        throw UsageError("cannot make a temporary folder in " + tmp_root +
                         ": set TMPDIR to a writable folder");
    path_ = work;
    if (for_others) chmod(path_.c_str(), 0711);
    lock_ = open((work + "/grader.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (lock_ >= 0) flock(lock_, LOCK_EX);
}

WorkFolder::~WorkFolder() {
    std::error_code e;
    fs::remove_all(path_, e);
    if (lock_ >= 0) close(lock_);
}

}  // namespace grade
