// synclab-grade: grades one student's kernel folder, or a class of them, by running each lab
// as a child process (bounded in time and memory) and checking it on Oclgrind.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <regex>
#include <thread>
#include <sys/file.h>
#include <sys/stat.h>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <sys/syscall.h>
#include <unistd.h>

#include <cxxopts.hpp>

#include "grade.hpp"
#include "synclab/device.hpp"
#include "labs.hpp"
#include "report.hpp"
#include "synclab/errors.hpp"
#include "synclab/lab.hpp"  // guarded_main
#include "process.hpp"

namespace fs = std::filesystem;
using synclab::UsageError;

namespace {

volatile sig_atomic_t g_stop = 0;
volatile int g_stop_flag = 0;  // what grade_lab() polls

// Async-signal-safe: kills the process group of every child of ours (run_process puts each
// child in its own group, so a terminal's Ctrl-C does not reach it).
void kill_children() {
    const pid_t self = getpid();
    const int dir = open("/proc", O_RDONLY | O_DIRECTORY);
    if (dir < 0) return;
    char buf[8192];
    for (;;) {
        const long n = syscall(SYS_getdents64, dir, buf, sizeof buf);
        if (n <= 0) break;
        for (long off = 0; off < n;) {
            // struct linux_dirent64: d_ino (8), d_off (8), d_reclen (2), d_type (1), d_name
            unsigned short reclen;
            std::memcpy(&reclen, buf + off + 16, sizeof reclen);
            const char *name = buf + off + 19;
            off += reclen;
            pid_t pid = 0;
            bool digits = *name != 0;
            for (const char *c = name; *c; ++c) {
                if (*c < '0' || *c > '9') { digits = false; break; }
                pid = pid * 10 + (*c - '0');
            }
            if (!digits) continue;
            char path[64] = "/proc/";
            std::size_t len = 6;
            for (const char *c = name; *c && len < 40; ++c) path[len++] = *c;
            std::memcpy(path + len, "/stat", 6);
            const int fd = open(path, O_RDONLY);
            if (fd < 0) continue;
            char stat[512];
            const ssize_t got = read(fd, stat, sizeof stat - 1);
            close(fd);
            if (got <= 0) continue;
            stat[got] = 0;
            const char *p = std::strrchr(stat, ')');  // "pid (comm) S ppid ..."
            if (!p || p[1] != ' ' || !p[2] || p[3] != ' ') continue;
            pid_t ppid = 0;
            for (p += 4; *p >= '0' && *p <= '9'; ++p) ppid = ppid * 10 + (*p - '0');
            if (ppid == self) {
                kill(-pid, SIGKILL);
                kill(pid, SIGKILL);
            }
        }
    }
    close(dir);
}

extern "C" void on_signal(int sig) {
    g_stop = sig;
    g_stop_flag = 1;
    kill_children();
}

struct Submission {
    std::string student, dir;  // dir: absolute; the kernel files are in it (or in dir/kernels)
    std::string refused;       // why none of its labs can be graded (a symbolic link, say)
};

std::string absolute(const std::string &p) {
    std::error_code ec;
    const fs::path a = fs::weakly_canonical(fs::absolute(p), ec);
    return ec ? fs::absolute(p).lexically_normal().string() : a.string();
}

bool inside(const std::string &path, const std::string &dir) {
    const std::string d = dir.back() == '/' ? dir : dir + "/";
    return path == dir || path.rfind(d, 0) == 0;
}

// A folder holds a submission's kernels directly, or in a kernels/ inside it. Links are not
// followed: a linked kernels/ is handed to staging, which refuses it.
std::string kernels_in(const std::string &dir, const std::vector<grade::Recipe> &labs) {
    std::error_code ec;
    bool direct = false;
    for (const auto &r : labs)
        direct |= fs::symlink_status(fs::path(dir) / r.kernel_file, ec).type() != fs::file_type::not_found;
    const fs::path k = fs::path(dir) / "kernels";
    if (!direct && fs::symlink_status(k, ec).type() != fs::file_type::not_found) return k.string();
    return dir;
}

std::string self_dir() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) throw UsageError("cannot find the grader's own folder (/proc/self/exe): run it on Linux");
    return exe.parent_path().string();
}

// The project's kernels/: SYNCLAB_SOURCE_DIR, then beside or above the grader, then the source
// tree it was built from.
std::string project_kernels(const std::string &bin, const std::vector<grade::Recipe> &labs) {
    std::vector<fs::path> tries;
    if (const char *env = std::getenv("SYNCLAB_SOURCE_DIR"); env && *env)
        tries.push_back(fs::path(env) / "kernels");
    fs::path p = bin;
    for (int up = 0; up < 4 && !p.empty(); ++up, p = p.parent_path()) {
        tries.push_back(p / "kernels");
        if (p == p.root_path()) break;
    }
    tries.push_back(fs::path(SYNCLAB_SOURCE_DIR) / "kernels");
    std::error_code ec;
    for (const auto &t : tries)
        for (const auto &r : labs)
            if (fs::is_regular_file(t / r.kernel_file, ec)) return t.string();
    return "";
}

std::string normalize_lab(std::string id) {
    if (id.rfind("lab", 0) == 0) id = id.substr(3);
    if (id.size() == 1 && std::isdigit(static_cast<unsigned char>(id[0]))) id = "0" + id;
    return id;
}

// A student's name as the console shows it: line breaks and other control characters escaped.
std::string shown(const std::string &name) {
    std::string out;
    for (unsigned char c : name) {
        if (c == '\n') out += "\\n";
        else if (c == '\r') out += "\\r";
        else if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else out += static_cast<char>(c);
    }
    return out;
}

// Strict numbers: the whole text, in the option's unit, or one line saying what is wrong.
double number_option(const std::string &name, const std::string &text, const std::string &unit,
                     double lo, double hi, const std::string &why_lo) {
    static const std::regex plain(R"([0-9]+(\.[0-9]+)?)");
    if (!std::regex_match(text, plain))
        throw UsageError("--" + name + " '" + text + "' is not a number of " + unit +
                         " (write it like 60 or 2.5, no units or commas)");
    const double v = std::strtod(text.c_str(), nullptr);
    if (v < lo)
        throw UsageError("--" + name + " " + text + " is too small: give at least " +
                         (lo == static_cast<long long>(lo) ? std::to_string(static_cast<long long>(lo))
                                                          : std::to_string(lo)) +
                         " " + unit + " (" + why_lo + ")");
    if (v > hi)
        throw UsageError("--" + name + " " + text + " is too large: give at most " +
                         std::to_string(static_cast<long long>(hi)) + " " + unit);
    return v;
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

const char *kMore = R"help(
Modes:
  synclab-grade --kernels DIR     grade one student: DIR holds the .cl files, named as in
                                  kernels/ (or DIR/kernels/ does)
  synclab-grade --class DIR       grade a class: every sub-folder of DIR is one student

A submission is hostile input. For each lab, its own regular files are copied into a private
folder first: a kernel file (or a student folder) that is a symbolic link, a FIFO or a device,
an empty or oversized kernel file, and an #include of anything but another file handed in
beside it are refused ("refused", with the reason). The lab (beside synclab-grade) then runs as
a child process on that copy, inside bubblewrap when it is installed (a read-only system, no
network, only the copy writable; SYNCLAB_GRADE_SANDBOX=off turns it off), always with the
--timeout and --memory limits, and never outliving the grader:
  1. dynamic runs on --device (default: the lab's, POCL's CPU), one per argument set its
     declaration lists (several sizes, work-group sizes and exact integer inputs), all in one
     lab process (lab --batch) that stops at the first failure, each with fresh random inputs
     (--seed makes them repeatable) and --timeout: a wrong answer, a compile error
     (file:line), a crash or a hang fails the lab;
  2. the race check: the lab on Oclgrind, which reports data races, barrier divergence,
     out-of-bounds and uninitialized accesses: any of them fails the lab, told in one line
     (what, kernel, file:line, likely fix). Skipped, and said so in every row, when Oclgrind
     is not installed (or with --quick / --no-oclgrind).
A lab whose file is not in the folder is "missing". Demonstration variants (lab 01's nosync)
are never graded; a variant no device here can run, and a run above the device's largest
work-group, are "not checked (why)" (a lab with no run made is an error, never a pass).

Outputs (never inside a submission):
  --csv FILE       the gradebook: student,lab,grade,kind,reason,seconds (a name or reason
                   that a spreadsheet would run as a formula, = + - @ first, gets a ' first).
                   It is locked while a grader writes it (a second one is refused), each
                   row is written and synced as soon as it is known, and rows already there
                   are kept: add --resume to grade only the rest, or --restart to empty it
                   first
  --junit DIR      DIR/<student>.xml, JUnit XML (one testcase per lab), as CI autograders
                   such as GitHub Classroom read; characters other than A-Z a-z 0-9 . _ -
                   become _, and names that then clash get -2, -3, ...
  stdout           one line per graded lab (on a terminal, a progress line with the time
                   left), then a student x lab table and the reasons
Kinds: pass, missing, refused, compile-error, wrong-answer, crash, timeout, data-race,
barrier-divergence, out-of-bounds, uninitialized, error.

-j N grades N labs at once (default: the number of cores); the gradebook's rows stay in
student, lab order.

Exit codes: 0 every graded lab passed, 1 something failed or was missing, 2 usage error (or a
gradebook that cannot be written), 128 + the signal's number when interrupted
(130 for Ctrl-C, 143 for SIGTERM); the gradebook keeps the finished rows.

Examples:
  synclab-grade --kernels kernels --labs 01
  synclab-grade --class submissions/ --csv week3.csv --junit week3-junit --timeout 20
  synclab-grade --class submissions/ --csv week3.csv --resume
)help";

int run(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);  // a file-size limit makes a write fail, and that is told
    const char *user_icd = std::getenv("OCL_ICD_VENDORS");  // before any device lookup sets it
    const std::string icd_vendors = user_icd ? user_icd : "";
    cxxopts::Options parser("synclab-grade",
                            "Grades students' lab kernels: runs each lab as a child process, "
                            "checks its answers and its races, and writes a gradebook.");
    parser.add_options()
        ("kernels", "grade one student's folder of .cl files", cxxopts::value<std::string>(), "DIR")
        ("class", "grade a class: every sub-folder of DIR is one student",
         cxxopts::value<std::string>(), "DIR")
        ("labs", "labs to grade, e.g. 01,02 (default: every gradable lab)",
         cxxopts::value<std::string>(), "LIST")
        ("device", "device(s) for the dynamic runs, comma-separated, each as the labs' --device "
                   "(e.g. pocl,nvidia; default: the lab's)",
         cxxopts::value<std::string>()->default_value(""), "SPEC")
        ("timeout", "seconds each child run may take before it counts as a hang (at least 2)",
         cxxopts::value<std::string>()->default_value("60"), "S")
        ("memory", "address-space limit of each child run in MiB (at least 1024; 0: none; "
                   "default: 4096 on POCL and Oclgrind, none on other devices, whose drivers "
                   "may reserve more)",
         cxxopts::value<std::string>(), "MIB")
        ("seed", "random seed for every run (0: fresh inputs every run)",
         cxxopts::value<std::string>()->default_value("0"), "N")
        ("j,jobs", "labs graded at once (default: the number of cores)",
         cxxopts::value<std::string>(), "N")
        ("csv", "gradebook CSV file", cxxopts::value<std::string>()->default_value("gradebook.csv"), "FILE")
        ("junit", "folder for the JUnit XML reports", cxxopts::value<std::string>()->default_value("junit"), "DIR")
        ("resume", "keep the rows already in the gradebook and grade only the rest")
        ("restart", "empty the gradebook first (its rows are lost)")
        ("quick", "one dynamic run per lab and no race check: a fast first pass")
        ("no-oclgrind", "skip the race check on Oclgrind")
        ("list-labs", "list the labs this build can grade, then exit")
        ("h,help", "show this help");
    cxxopts::ParseResult o;
    try {
        o = parser.parse(argc, argv);
    } catch (const cxxopts::exceptions::exception &e) {
        throw UsageError(std::string(e.what()) + " (see --help)");
    }
    if (!o.unmatched().empty())
        throw UsageError("unexpected argument '" + o.unmatched().front() + "' (see --help)");
    if (o.count("help")) {
        std::cout << parser.help() << kMore;
        return 0;
    }

    const std::string bin = self_dir();
    // The labs are whatever lab executables stand beside the grader and describe themselves.
    std::vector<std::string> problems;
    const std::vector<grade::Recipe> all_labs = grade::discover_labs(bin, &problems, &g_stop_flag);
    const std::string project = project_kernels(bin, all_labs);
    std::vector<const grade::Recipe *> gradable;
    std::string not_gradable;
    std::error_code ec;
    for (const auto &p : problems) not_gradable += " " + p + ";";
    for (const auto &r : all_labs) {
        if (!project.empty() && fs::is_regular_file(fs::path(project) / r.kernel_file, ec))
            gradable.push_back(&r);
        else
            not_gradable += " lab " + r.id + " (no kernels/" + r.kernel_file + ")";
    }
    if (o.count("list-labs")) {
        for (const auto *r : gradable)
            std::cout << r->id << "  " << r->executable << "  " << r->kernel_file << "\n";
        for (const auto &p : problems) std::cerr << "synclab-grade: not a lab: " << p << "\n";
        return 0;
    }

    const bool one = o.count("kernels") > 0, many = o.count("class") > 0;
    if (one == many)
        throw UsageError("give either --kernels DIR (one student) or --class DIR (every sub-folder "
                         "a student), not both and not neither (see --help)");
    if (o.count("resume") && o.count("restart"))
        throw UsageError("--resume keeps the gradebook's rows and --restart empties it: give one");
    const double timeout = number_option("timeout", o["timeout"].as<std::string>(), "seconds", 2,
                                         synclab::kMaxTimeout,
                                         "a lab needs that long to build its kernels and start");
    // 1 TiB: any real limit is below it, and MiB << 20 stays far from overflowing.
    constexpr double kMaxMemoryMiB = double(std::size_t(1) << 20);
    std::size_t memory_mib = 4096;
    if (o.count("memory")) {
        const std::string text = o["memory"].as<std::string>();
        memory_mib = text == "0" ? 0
                                 : static_cast<std::size_t>(number_option(
                                       "memory", text, "MiB", 1024, kMaxMemoryMiB,
                                       "a lab's OpenCL runtime needs about 512 MiB of address "
                                       "space to start; 0 means no limit"));
        if (o["memory"].as<std::string>().find('.') != std::string::npos)
            throw UsageError("--memory " + text + " is not a whole number of MiB");
    }
    const std::string seed_text = o["seed"].as<std::string>();
    if (!std::regex_match(seed_text, std::regex("[0-9]{1,19}")))
        throw UsageError("--seed '" + seed_text + "' is not a whole number (e.g. --seed 11)");
    unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
    if (o.count("jobs"))
        jobs = static_cast<unsigned>(number_option("jobs", o["jobs"].as<std::string>(), "jobs", 1,
                                                   256, "one lab at a time is the least"));
    if (o.count("jobs") && o["jobs"].as<std::string>().find('.') != std::string::npos)
        throw UsageError("--jobs " + o["jobs"].as<std::string>() + " is not a whole number");

    std::vector<const grade::Recipe *> labs;
    if (!o.count("labs")) {
        labs = gradable;
    } else {
        const std::string list = o["labs"].as<std::string>();
        std::stringstream ss(list);
        for (std::string id; std::getline(ss, id, ',');) {
            if (id.empty()) continue;
            id = normalize_lab(id);
            const auto it = std::find_if(gradable.begin(), gradable.end(),
                                         [&](const grade::Recipe *r) { return r->id == id; });
            if (it == gradable.end()) {
                std::string known;
                for (const auto *r : gradable) known += (known.empty() ? "" : ",") + r->id;
                throw UsageError("lab '" + id + "' cannot be graded here: gradable labs are " +
                                 (known.empty() ? "none" : known) +
                                 (not_gradable.empty() ? "" : "; not gradable:" + not_gradable));
            }
            if (std::find(labs.begin(), labs.end(), *it) == labs.end()) labs.push_back(*it);
        }
        if (labs.empty())
            throw UsageError("--labs '" + list + "' names no lab: give ids such as 01,02, or "
                             "leave --labs out to grade every lab");
    }
    if (labs.empty())
        throw UsageError("no lab can be graded: build the labs first (cmake --build build)" +
                         (not_gradable.empty() ? std::string() : ";" + not_gradable));

    // Submissions. A student's folder that is not a plain folder fails that student, not the
    // class.
    std::vector<Submission> subs;
    const std::string given = o[one ? "kernels" : "class"].as<std::string>();
    if (given.empty())
        throw UsageError(std::string("--") + (one ? "kernels" : "class") +
                         " is empty: give the folder's path");
    if (one) {
        const std::string dir = absolute(given);
        if (!fs::is_directory(dir, ec))
            throw UsageError("--kernels " + given +
                             " is not a folder: give the folder holding the .cl files");
        subs.push_back({fs::path(dir).filename().string(), dir, ""});
    } else {
        const std::string dir = absolute(given);
        if (!fs::is_directory(dir, ec))
            throw UsageError("--class " + given +
                             " is not a folder: give the folder whose sub-folders are submissions");
        for (const auto &e : fs::directory_iterator(dir, ec)) {
            const std::string name = e.path().filename().string();
            if (name.empty() || name[0] == '.') continue;
            const auto type = e.symlink_status(ec).type();
            if (type == fs::file_type::directory)
                subs.push_back({name, (fs::path(dir) / name).string(), ""});
            else if (type == fs::file_type::symlink)
                subs.push_back({name, (fs::path(dir) / name).string(),
                                "the submission folder is a symbolic link: hand in a folder "
                                "holding your own files"});
        }
        std::sort(subs.begin(), subs.end(),
                  [](const Submission &a, const Submission &b) { return a.student < b.student; });
        if (subs.empty())
            throw UsageError("--class " + given +
                             " has no sub-folders: put each student's files in a folder of its own");
    }

    // Outputs: absolute (the grader works in its own folder), never inside a submission.
    if (o["csv"].as<std::string>().empty()) throw UsageError("--csv is empty: give a file name");
    if (o["junit"].as<std::string>().empty()) throw UsageError("--junit is empty: give a folder name");
    const std::string csv = absolute(o["csv"].as<std::string>());
    const std::string junit = absolute(o["junit"].as<std::string>());
    for (const auto &s : subs) {
        if (!s.refused.empty()) continue;
        if (inside(csv, s.dir))
            throw UsageError("the gradebook " + csv + " would be inside the submission " + s.dir +
                             ": run from another folder or give --csv FILE elsewhere");
        if (inside(junit, s.dir) || inside(s.dir, junit))
            throw UsageError("the JUnit folder " + junit + " would be inside the submission " +
                             s.dir + ": give --junit DIR elsewhere");
    }

    grade::Settings settings;
    settings.bin_dir = bin;
    settings.icd_vendors = icd_vendors;
    // --device a,b: every dynamic run on each device in turn.
    const std::string device_list = o["device"].as<std::string>();
    settings.devices.clear();
    std::stringstream devices_in(device_list);
    for (std::string d; std::getline(devices_in, d, ',');)
        if (!d.empty()) settings.devices.push_back(d);
    if (settings.devices.empty()) settings.devices.push_back("");
    settings.seed = std::stoull(seed_text);
    settings.timeout_s = timeout;
    // The memory limit guards the grader's machine from a CPU device's runaway kernel. A GPU
    // driver reserves far more address space than it uses and fails under such a limit, so by
    // default only CPU devices get it (--memory sets it for every device).
    settings.device_memory_bytes.clear();
    for (const auto &spec : settings.devices) {
        const synclab::DeviceInfo d = synclab::select_device(spec);  // bad SPEC: one line, exit 2
        settings.device_memory_bytes.push_back(
            (o.count("memory") || d.is_cpu() || d.is_oclgrind()) ? memory_mib << 20 : 0);
    }
    settings.oclgrind_memory_bytes = memory_mib << 20;

    // Both outputs are checked before the first student, and the gradebook is ours alone from
    // here to the end.
    grade::check_junit_dir(junit);
    const auto mode = o.count("resume")    ? grade::Gradebook::Mode::resume
                      : o.count("restart") ? grade::Gradebook::Mode::restart
                                           : grade::Gradebook::Mode::fresh;
    grade::Gradebook book(csv, mode);

    // From the first child on, a signal stops the grader cleanly and kills the child.
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);

    settings.quick = o.count("quick") > 0;
    settings.race_check = !settings.quick && !o.count("no-oclgrind");
    if (!settings.race_check) {
        settings.race_check_note = settings.quick ? "not race-checked (--quick)"
                                                  : "not race-checked (--no-oclgrind)";
    } else {
        settings.oclgrind_available =
            grade::oclgrind_listed((fs::path(bin) / labs[0]->executable).string(), &g_stop_flag);
        if (g_stop) {
            std::cout << "interrupted (" << strsignal(g_stop) << ") before grading began\n";
            return 128 + g_stop;
        }
        if (!settings.oclgrind_available) {
            settings.race_check_note = "not race-checked: Oclgrind is not installed";
            std::cout << "note: Oclgrind is not installed (sudo apt-get install oclgrind), so the "
                         "race check is skipped: a kernel that is right only by luck may pass\n";
        }
    }
    const char *sandbox_env = std::getenv("SYNCLAB_GRADE_SANDBOX");
    settings.sandbox = grade::Sandbox::detect(sandbox_env && std::string(sandbox_env) == "off");
    if (!settings.sandbox.available())
        std::cout << "note: no sandbox: " << settings.sandbox.why_not()
                  << "; each lab runs with the time and memory limits only\n";

    // The children's private folder, locked while we live so a later grader can tell a stale
    // one (left by a SIGKILL) from ours.
    const char *tmp = std::getenv("TMPDIR");
    const std::string tmp_root = tmp && *tmp ? tmp : "/tmp";
    sweep_stale(tmp_root);
    std::string work = tmp_root + "/synclab-grade-XXXXXX";
    if (!mkdtemp(work.data()))
        throw UsageError("cannot make a temporary folder in " + tmp_root +
                         ": set TMPDIR to a writable folder");
    const int work_lock = open((work + "/grader.lock").c_str(),
                               O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (work_lock >= 0) flock(work_lock, LOCK_EX);
    struct Cleanup {
        fs::path work;
        int lock;
        ~Cleanup() {
            std::error_code e;
            fs::remove_all(work, e);
            if (lock >= 0) close(lock);
        }
    } cleanup{work, work_lock};

    std::map<std::pair<std::string, std::string>, grade::Result> done;
    for (const auto &r : book.kept()) done[{r.student, r.lab}] = r;
    std::vector<std::string> lab_ids;
    for (const auto *r : labs) lab_ids.push_back(r->id);
    std::vector<std::string> names;
    for (const auto &s : subs) names.push_back(s.student);
    // Fixed for the whole class up front, so a resumed run writes the same files.
    const std::vector<std::string> junit_files = grade::junit_names(names);

    // The labs of one submission in one process where synclab-labs can run them (grade_labs);
    // SYNCLAB_GRADE_SHARED=off grades one process a lab.
    // Asked only when a class keeps every worker busy with whole submissions (units, below).
    const char *shared_env = std::getenv("SYNCLAB_GRADE_SHARED");
    const bool could_share = subs.size() >= jobs && labs.size() > 1;
    if (could_share && !(shared_env && std::string(shared_env) == "off")) {
        settings.runner = (fs::path(bin) / "synclab-labs").string();
        settings.runner_labs = grade::runner_labs(settings.runner, all_labs, work, &g_stop_flag);
        if (settings.runner_labs.empty()) settings.runner.clear();
    }

    // Every (student, lab) in gradebook order; the workers take the ungraded ones in turn.
    struct Task {
        std::size_t student;
        const grade::Recipe *recipe;
        grade::Result result;
        bool ready = false;
    };
    std::vector<Task> tasks;
    std::vector<std::size_t> todo;
    for (std::size_t k = 0; k < subs.size(); ++k)
        for (const auto *recipe : labs) {
            tasks.push_back({k, recipe, {}, false});
            const auto it = done.find({subs[k].student, recipe->id});
            if (it != done.end()) {
                tasks.back().result = it->second;
                tasks.back().ready = true;
            } else {
                todo.push_back(tasks.size() - 1);
            }
        }
    // What a worker takes: a student's ungraded labs together, when the class keeps every worker
    // busy that way and they can share a process; otherwise one (student, lab).
    std::vector<std::vector<std::size_t>> units;
    const bool by_student = !settings.runner.empty();
    for (std::size_t t : todo) {
        if (by_student && !units.empty() && tasks[units.back().front()].student == tasks[t].student)
            units.back().push_back(t);
        else
            units.push_back({t});
    }
    jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, std::max<std::size_t>(units.size(), 1)));
    std::cout << "grading " << subs.size() << (one ? " submission" : " submissions") << " x "
              << labs.size() << " lab(s), " << jobs << " at a time; gradebook " << csv
              << (done.empty() ? "" : " (resumed)") << ", JUnit reports in " << junit << "/\n"
              << std::flush;

    std::mutex m;
    std::condition_variable cv;
    std::size_t next = 0;
    bool abort_workers = false;
    auto worker = [&](unsigned id) {
        const std::string job_dir = work + "/job-" + std::to_string(id);
        std::error_code e;
        fs::create_directories(job_dir, e);
        for (;;) {
            std::size_t u;
            {
                std::lock_guard<std::mutex> lock(m);
                if (next >= units.size() || abort_workers || g_stop) return;
                u = next++;
            }
            const Submission &sub = subs[tasks[units[u].front()].student];
            std::vector<const grade::Recipe *> recipes;
            for (std::size_t t : units[u]) recipes.push_back(tasks[t].recipe);
            std::vector<grade::Result> results;
            if (!sub.refused.empty()) {
                for (const auto *recipe : recipes) {
                    grade::Result r;
                    r.student = sub.student;
                    r.lab = recipe->id;
                    r.grade = "fail";
                    r.kind = "refused";
                    r.reason = sub.refused;
                    results.push_back(r);
                }
            } else if (recipes.size() == 1) {
                results.push_back(grade::grade_lab(*recipes[0], sub.student,
                                                   kernels_in(sub.dir, all_labs), settings,
                                                   &g_stop_flag, job_dir));
            } else {
                results = grade::grade_labs(recipes, sub.student, kernels_in(sub.dir, all_labs),
                                            settings, &g_stop_flag, job_dir);
            }
            {
                std::lock_guard<std::mutex> lock(m);
                for (std::size_t i = 0; i < units[u].size(); ++i) {
                    tasks[units[u][i]].result = std::move(results[i]);
                    tasks[units[u][i]].ready = true;
                }
            }
            cv.notify_all();
        }
    };
    std::vector<std::thread> pool;
    for (unsigned i = 0; i < jobs; ++i) pool.emplace_back(worker, i);
    struct Joiner {  // never leave a worker running, whatever way we leave
        std::vector<std::thread> &pool;
        std::mutex &m;
        bool &abort;
        ~Joiner() {
            {
                std::lock_guard<std::mutex> lock(m);
                abort = true;
            }
            if (std::any_of(pool.begin(), pool.end(), [](auto &t) { return t.joinable(); }) &&
                !g_stop_flag) {
                g_stop_flag = 1;  // a gradebook that cannot be written: end the running children
                kill_children();
            }
            for (auto &t : pool)
                if (t.joinable()) t.join();
        }
    } joiner{pool, m, abort_workers};

    const bool tty = isatty(1);
    const auto start = std::chrono::steady_clock::now();
    std::size_t written = 0, kept = 0, appended = 0, graded_now = 0;
    std::vector<grade::Result> all;
    std::vector<grade::Result> mine;  // the current student's rows, for its JUnit file
    auto last_progress = start, last_row = start;
    auto seconds = [](auto from, auto to) { return std::chrono::duration<double>(to - from).count(); };
    // On a terminal the last line is the progress, redrawn in place; it is gone once all is done.
    // Time left: the rows still to come at the pace the graded ones came, less the time since
    // the last one.
    auto progress = [&] {
        if (!tty || written == tasks.size()) return;
        last_progress = std::chrono::steady_clock::now();
        const std::size_t left = tasks.size() - written;
        std::cout << "\r\033[K[" << written << "/" << tasks.size() << "] ";
        if (graded_now) {
            const double per = seconds(start, last_row) / static_cast<double>(graded_now);
            const double eta = per * static_cast<double>(left) - seconds(last_row, last_progress);
            std::cout << "about " << static_cast<long long>(std::max(eta, 0.0) + 0.5) << " s left";
        }
        std::cout << std::flush;
    };
    auto emit = [&](Task &task) {  // in gradebook order
        grade::Result &r = task.result;
        if (!r.kept) {
            book.append(r);
            ++appended;
            ++graded_now;
            last_row = std::chrono::steady_clock::now();
        } else {
            ++kept;
        }
        ++written;
        if (tty) std::cout << "\r\033[K";
        const std::string verdict = r.passed() ? "pass" : r.grade == "missing" ? "missing" : "FAIL";
        std::string why;
        if (r.grade == "missing") why = " (" + r.reason + ")";
        else if (!r.passed()) why = " " + r.kind + ": " + r.reason;
        else if (r.reason.find("not ") != std::string::npos) why = " (" + r.reason + ")";
        std::cout << "[" << written << "/" << tasks.size() << "] " << shown(subs[task.student].student)
                  << ", lab " << r.lab << ": " << verdict << why
                  << (r.kept ? " (kept from the gradebook)" : "") << "\n";
        mine.push_back(r);
        if (mine.size() == labs.size()) {
            grade::write_junit(junit, junit_files[task.student], subs[task.student].student, mine);
            all.insert(all.end(), mine.begin(), mine.end());
            mine.clear();
        }
        progress();
    };
    {
        progress();
        std::unique_lock<std::mutex> lock(m);
        while (written < tasks.size()) {
            cv.wait_for(lock, std::chrono::milliseconds(200),
                        [&] { return tasks[written].ready || g_stop; });
            if (g_stop) break;
            if (std::chrono::steady_clock::now() - last_progress > std::chrono::seconds(1))
                progress();  // the time left counts down while a slow lab runs
            while (written < tasks.size() && tasks[written].ready) {
                Task &task = tasks[written];
                lock.unlock();
                emit(task);
                lock.lock();
            }
        }
    }
    if (g_stop) {
        for (auto &t : pool) t.join();
        pool.clear();
        // Every row finished before the signal is kept, in order where it can be, so --resume
        // need not grade it again.
        std::size_t late = 0;
        for (std::size_t i = written; i < tasks.size(); ++i)
            if (tasks[i].ready && !tasks[i].result.grade.empty() && !tasks[i].result.kept) {
                book.append(tasks[i].result);
                ++late;
            }
        if (tty) std::cout << "\r\033[K";
        std::cout << "\ninterrupted (" << strsignal(g_stop) << "): "
                  << book.kept().size() + appended + late << " finished row(s) are in " << csv
                  << "; run the same command with --resume to go on\n";
        return 128 + g_stop;
    }
    for (auto &t : pool) t.join();
    pool.clear();

    std::vector<std::string> students;
    for (const auto &s : subs) students.push_back(shown(s.student));
    for (auto &r : all) r.student = shown(r.student);
    std::cout << "\n";
    grade::print_table(std::cout, students, lab_ids, all);
    const auto failed = std::count_if(all.begin(), all.end(),
                                      [](const grade::Result &r) { return !r.passed(); });
    std::cout << "\n" << all.size() - failed << "/" << all.size() << " passed"
              << (kept ? " (" + std::to_string(kept) + " kept from the gradebook)" : "")
              << "; gradebook " << csv << ", JUnit reports in " << junit << "/\n";
    return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char **argv) {
    return synclab::guarded_main("synclab-grade", [&] { return run(argc, argv); });
}
