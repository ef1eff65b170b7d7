// synclab-grade: grades one student's kernel folder, or a class of them, by running each lab
// as a child process (bounded in time and memory) and checking it on Oclgrind.
#include <algorithm>
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
    std::string student, dir;  // dir: absolute; the kernel files are in it
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

// A folder holds a submission's kernels directly, or in a kernels/ inside it.
std::string kernels_in(const std::string &dir, const std::vector<grade::Recipe> &labs) {
    std::error_code ec;
    bool direct = false;
    for (const auto &r : labs)
        direct |= fs::is_regular_file(fs::path(dir) / r.kernel_file, ec);
    if (!direct && fs::is_directory(fs::path(dir) / "kernels", ec))
        return (fs::path(dir) / "kernels").string();
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

const char *kMore = R"(
Modes:
  synclab-grade --kernels DIR     grade one student: DIR holds the .cl files, named as in
                                  kernels/ (or DIR/kernels/ does)
  synclab-grade --class DIR       grade a class: every sub-folder of DIR is one student

Each lab is graded by running its executable (beside synclab-grade) as a child process in a
private temporary folder, with --timeout and --memory limits, one lab after another:
  1. dynamic runs on --device (default: the lab's, POCL's CPU) with fresh random inputs
     (--seed makes them repeatable): exit 1 is a wrong answer, exit 2 a compile error (the
     build log's first error line, file:line) or set-up error; a signal is a crash; a run
     past --timeout is a hang;
  2. the race check: the lab on Oclgrind (--device oclgrind --wg 64), whose log is read:
     a data race, barrier divergence, out-of-bounds or uninitialized access fails the lab,
     told in one line (what, kernel, file:line, likely fix). Skipped, with a note, when
     Oclgrind is not installed (or with --quick / --no-oclgrind).
A lab whose file is not in the folder is "missing". The demonstration variants (lab 01's
nosync) are never graded.

Outputs (never inside a submission):
  --csv FILE       the gradebook: student,lab,grade,kind,reason,seconds; each row is
                   appended and flushed as soon as it is known, so an interrupted run keeps
                   every finished row, and --resume goes on from them
  --junit DIR      DIR/<student>.xml, JUnit XML (one testcase per lab), as CI autograders
                   such as GitHub Classroom read; characters other than A-Z a-z 0-9 . _ -
                   become _, and names that then clash get -2, -3, ...
  stdout           one line per graded lab, then a student x lab table and the reasons
Kinds: pass, missing, compile-error, wrong-answer, crash, timeout, data-race,
barrier-divergence, out-of-bounds, uninitialized, error.

Exit codes: 0 every graded lab passed, 1 something failed or was missing, 2 usage error,
128 + the signal's number when interrupted (130 for Ctrl-C, 143 for SIGTERM); the gradebook
keeps the finished rows.

Examples:
  synclab-grade --kernels kernels --labs 01
  synclab-grade --class submissions/ --csv week3.csv --junit week3-junit --timeout 20
  synclab-grade --class submissions/ --csv week3.csv --resume
)";

int run(int argc, char **argv) {
    cxxopts::Options parser("synclab-grade",
                            "Grades students' lab kernels: runs each lab as a child process, "
                            "checks its answers and its races, and writes a gradebook.");
    parser.add_options()
        ("kernels", "grade one student's folder of .cl files", cxxopts::value<std::string>(), "DIR")
        ("class", "grade a class: every sub-folder of DIR is one student",
         cxxopts::value<std::string>(), "DIR")
        ("labs", "labs to grade, e.g. 01,02 (default: every gradable lab)",
         cxxopts::value<std::string>()->default_value(""), "LIST")
        ("device", "device(s) for the dynamic runs, comma-separated, each as the labs' --device "
                   "(e.g. pocl,nvidia; default: the lab's)",
         cxxopts::value<std::string>()->default_value(""), "SPEC")
        ("timeout", "seconds each child run may take before it counts as a hang",
         cxxopts::value<double>()->default_value("60"), "S")
        ("memory", "address-space limit of each child run in MiB (0: none; default: 4096 on "
                   "POCL and Oclgrind, none on other devices, whose drivers may reserve more)",
         cxxopts::value<std::size_t>(), "MIB")
        ("seed", "random seed for every run (0: fresh inputs every run)",
         cxxopts::value<std::uint64_t>()->default_value("0"), "N")
        ("csv", "gradebook CSV file", cxxopts::value<std::string>()->default_value("gradebook.csv"), "FILE")
        ("junit", "folder for the JUnit XML reports", cxxopts::value<std::string>()->default_value("junit"), "DIR")
        ("resume", "keep the rows already in the gradebook and grade only the rest")
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
    const double timeout = o["timeout"].as<double>();
    if (!(timeout > 0 && timeout <= synclab::kMaxTimeout))
        throw UsageError("--timeout must be more than 0 and at most 1000000 seconds");
    // 1 TiB: any real limit is below it, and MiB << 20 stays far from overflowing.
    constexpr std::size_t kMaxMemoryMiB = std::size_t(1) << 20;
    if (o.count("memory") && o["memory"].as<std::size_t>() > kMaxMemoryMiB)
        throw UsageError("--memory is too large: give MiB from 1 to 1048576, or 0 for no limit");

    std::vector<const grade::Recipe *> labs;
    if (o["labs"].as<std::string>().empty()) {
        labs = gradable;
    } else {
        std::stringstream ss(o["labs"].as<std::string>());
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
    }
    if (labs.empty())
        throw UsageError("no lab can be graded: build the labs first (cmake --build build)" +
                         (not_gradable.empty() ? std::string() : ";" + not_gradable));

    // Submissions.
    std::vector<Submission> subs;
    if (one) {
        const std::string dir = absolute(o["kernels"].as<std::string>());
        if (!fs::is_directory(dir, ec))
            throw UsageError("--kernels " + o["kernels"].as<std::string>() +
                             " is not a folder: give the folder holding the .cl files");
        subs.push_back({fs::path(dir).filename().string(), dir});
    } else {
        const std::string dir = absolute(o["class"].as<std::string>());
        if (!fs::is_directory(dir, ec))
            throw UsageError("--class " + o["class"].as<std::string>() +
                             " is not a folder: give the folder whose sub-folders are submissions");
        for (const auto &e : fs::directory_iterator(dir, ec)) {
            const std::string name = e.path().filename().string();
            if (name.empty() || name[0] == '.' || !e.is_directory(ec)) continue;
            subs.push_back({name, absolute(e.path().string())});
        }
        std::sort(subs.begin(), subs.end(),
                  [](const Submission &a, const Submission &b) { return a.student < b.student; });
        if (subs.empty())
            throw UsageError("--class " + o["class"].as<std::string>() +
                             " has no sub-folders: put each student's files in a folder of its own");
    }

    // Outputs: absolute (the grader works in its own folder), never inside a submission.
    const std::string csv = absolute(o["csv"].as<std::string>());
    const std::string junit = absolute(o["junit"].as<std::string>());
    for (const auto &s : subs) {
        if (inside(csv, s.dir))
            throw UsageError("the gradebook " + csv + " would be inside the submission " + s.dir +
                             ": run from another folder or give --csv FILE elsewhere");
        if (inside(junit, s.dir) || inside(s.dir, junit))
            throw UsageError("the JUnit folder " + junit + " would be inside the submission " +
                             s.dir + ": give --junit DIR elsewhere");
    }

    grade::Settings settings;
    settings.bin_dir = bin;
    // --device a,b: every dynamic run on each device in turn.
    const std::string device_list = o["device"].as<std::string>();
    settings.devices.clear();
    std::stringstream devices_in(device_list);
    for (std::string d; std::getline(devices_in, d, ',');)
        if (!d.empty()) settings.devices.push_back(d);
    if (settings.devices.empty()) settings.devices.push_back("");
    settings.seed = o["seed"].as<std::uint64_t>();
    settings.timeout_s = timeout;
    // The memory limit guards the grader's machine from a CPU device's runaway kernel. A GPU
    // driver reserves far more address space than it uses and fails under such a limit, so by
    // default only CPU devices get it (--memory sets it for every device).
    const std::size_t mib = o.count("memory") ? o["memory"].as<std::size_t>() : 4096;
    settings.device_memory_bytes.clear();
    for (const auto &spec : settings.devices) {
        const synclab::DeviceInfo d = synclab::select_device(spec);  // bad SPEC: one line, exit 2
        settings.device_memory_bytes.push_back(
            (o.count("memory") || d.is_cpu() || d.is_oclgrind()) ? mib << 20 : 0);
    }
    settings.oclgrind_memory_bytes = mib << 20;
    // From the first child on, a signal stops the grader cleanly and kills the child.
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);

    settings.quick = o.count("quick") > 0;
    settings.race_check = !settings.quick && !o.count("no-oclgrind");
    if (!settings.race_check) {
        settings.race_check_note =
            settings.quick ? "race check skipped (--quick)" : "race check skipped (--no-oclgrind)";
    } else {
        settings.oclgrind_available =
            grade::oclgrind_listed((fs::path(bin) / labs[0]->executable).string(), &g_stop_flag);
        if (g_stop) {
            std::cout << "interrupted (" << strsignal(g_stop) << ") before grading began\n";
            return 128 + g_stop;
        }
        if (!settings.oclgrind_available) {
            settings.race_check_note = "race check skipped: Oclgrind is not installed";
            std::cout << "note: Oclgrind is not installed (sudo apt-get install oclgrind), so the "
                         "race check is skipped: a kernel that is right only by luck may pass\n";
        }
    }

    grade::Gradebook book(csv, o.count("resume") > 0);
    std::map<std::pair<std::string, std::string>, grade::Result> done;
    for (const auto &r : book.kept()) done[{r.student, r.lab}] = r;

    // The children's private folder, and the grader's working folder while they run.
    const char *tmp = std::getenv("TMPDIR");
    std::string work = std::string(tmp && *tmp ? tmp : "/tmp") + "/synclab-grade-XXXXXX";
    if (!mkdtemp(work.data()))
        throw UsageError("cannot make a temporary folder in " + fs::path(work).parent_path().string() +
                         ": set TMPDIR to a writable folder");
    settings.work_dir = work;
    const fs::path home = fs::current_path();
    struct Cleanup {
        fs::path home, work;
        ~Cleanup() {
            std::error_code e;
            fs::current_path(home, e);
            fs::remove_all(work, e);
        }
    } cleanup{home, work};
    fs::current_path(work);

    std::cout << "grading " << subs.size() << (one ? " submission" : " submissions") << " x "
              << labs.size() << " lab(s); gradebook " << csv << (done.empty() ? "" : " (resumed)")
              << ", JUnit reports in " << junit << "/\n"
              << std::flush;
    std::vector<grade::Result> all;
    std::vector<std::string> students, lab_ids;
    for (const auto *r : labs) lab_ids.push_back(r->id);
    std::vector<std::string> names;
    for (const auto &s : subs) names.push_back(s.student);
    // Fixed for the whole class up front, so a resumed run writes the same files.
    const std::vector<std::string> junit_files = grade::junit_names(names);
    const std::size_t total = subs.size() * labs.size();
    std::size_t count = 0, kept = 0, appended = 0;
    for (std::size_t k = 0; k < subs.size(); ++k) {
        const Submission &s = subs[k];
        students.push_back(s.student);
        const std::string kdir = kernels_in(s.dir, all_labs);
        std::vector<grade::Result> mine;
        for (const auto *recipe : labs) {
            ++count;
            grade::Result r;
            const auto it = done.find({s.student, recipe->id});
            if (it != done.end()) {
                r = it->second;
                ++kept;
            } else {
                r = grade::grade_lab(*recipe, s.student, kdir, settings, &g_stop_flag);
                if (r.grade.empty()) break;  // stopped while grading: nothing to keep
                // A row finished before the signal is kept, so --resume need not grade it again.
                book.append(r);
                ++appended;
            }
            std::cout << "[" << count << "/" << total << "] " << s.student << ", lab " << r.lab
                      << ": " << (r.passed() ? "pass" : r.grade == "missing" ? "missing" : "FAIL")
                      << (r.passed() ? "" : " " + r.kind + ": " + r.reason)
                      << (r.kept ? " (kept from the gradebook)" : "") << "\n"
                      << std::flush;
            mine.push_back(r);
            if (g_stop) break;
        }
        if (g_stop) break;
        grade::write_junit(junit, junit_files[k], s.student, mine);
        all.insert(all.end(), mine.begin(), mine.end());
    }
    if (g_stop) {
        std::cout << "\ninterrupted (" << strsignal(g_stop) << "): " << book.kept().size() + appended
                  << " finished row(s) are in " << csv
                  << "; run the same command with --resume to go on\n";
        return 128 + g_stop;
    }

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
