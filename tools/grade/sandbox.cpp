#include "sandbox.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <grp.h>
#include <regex>
#include <set>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "synclab/process.hpp"
#include "synclab/protocol.hpp"

namespace fs = std::filesystem;

namespace grade {

namespace protocol = synclab::protocol;

namespace {

// Other files a kernel may include from its own submission.
bool includable(const std::string &name) {
    for (const char *ext : {".cl", ".h", ".clh"}) {
        const std::size_t n = std::strlen(ext);
        if (name.size() > n && name.compare(name.size() - n, n, ext) == 0) return true;
    }
    return false;
}

struct Fd {
    int fd;
    ~Fd() {
        if (fd >= 0) close(fd);
    }
};

bool write_file(const fs::path &path, const std::string &text) {
    Fd f{open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)};
    if (f.fd < 0) return false;
    for (std::size_t done = 0; done < text.size();) {
        const ssize_t w = write(f.fd, text.data() + done, text.size() - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        done += static_cast<std::size_t>(w);
    }
    return true;
}

}  // namespace

Staged stage_submission(const std::string &from, const std::string &to, const std::string &needed) {
    Staged s;
    std::error_code ec;
    struct stat st {};
    if (lstat(from.c_str(), &st) != 0) {
        s.refused = "the submission folder cannot be read (" + std::string(std::strerror(errno)) + ")";
        return s;
    }
    if (!S_ISDIR(st.st_mode)) {
        s.refused = "the submission folder is " + protocol::file_type(st.st_mode) +
                    ": hand in a folder holding your own files";
        return s;
    }
    fs::remove_all(to, ec);
    fs::create_directories(to, ec);
    fs::permissions(to, fs::perms::owner_all, ec);

    // The lab's own file first: everything about it is a reason the student must hear.
    const fs::path needed_path = fs::path(from) / needed;
    if (lstat(needed_path.c_str(), &st) != 0) return s;  // not handed in: "missing"
    std::string text, why;
    if (!protocol::read_plain(needed_path.string(), kMaxSubmissionFile, text, why)) {
        s.refused = needed + " is " + why + ": hand in the kernel file itself";
        return s;
    }
    if (text.find_first_not_of(" \t\r\n\f\v") == std::string::npos) {
        s.refused = needed + " is empty: hand in the kernel file with your code in it";
        return s;
    }
    // Then any other kernel source or header beside it, which it may include.
    std::vector<std::pair<std::string, std::string>> files{{needed, text}};
    std::size_t total = text.size();
    for (const auto &e : fs::directory_iterator(from, ec)) {
        const std::string name = e.path().filename().string();
        if (name == needed || !includable(name) || files.size() >= 64) continue;
        std::string other, skip;
        if (!protocol::read_plain(e.path().string(), kMaxSubmissionFile, other, skip)) continue;  // never staged: not includable
        if ((total += other.size()) > 8 * kMaxSubmissionFile) break;
        files.push_back({name, other});
    }
    // What the kernel includes is the preprocessor's to decide, in the lab (synclab/program_text.hpp).
    for (const auto &f : files) {
        if (!write_file(fs::path(to) / f.first, f.second)) {
            s.refused = "the grader could not copy " + f.first + " into its private folder";
            return s;
        }
        s.files.push_back(f.first);
    }
    return s;
}

namespace {

// All a lab reads of /etc (traced while grading every lab on POCL and on Oclgrind): the OpenCL
// ICD vendor list, the dynamic loader's cache, and the distribution's name, by which POCL's
// clang picks the linker's options for a kernel (Ubuntu's in lsb-release). Nothing else there
// (passwords, keys, the machine's configuration) is in a sandbox.
const char *const kEtcNeeded[] = {"/etc/OpenCL/vendors", "/etc/ld.so.cache", "/etc/os-release",
                                  "/etc/debian_version", "/etc/lsb-release"};

// Gives the children's user what the grader made in the folder `dir` (open): each folder and
// plain file there that is the grader's own. Never through a link (a child may have left one
// pointing anywhere) and never a file with another name elsewhere (a hard link): what a child
// made is its own already, and nothing else of the machine may become its.
void hand_over_in(int dir, int depth) {
    if (depth > 32) return;
    DIR *d = fdopendir(dup(dir));
    if (!d) return;
    for (const dirent *e; (e = readdir(d)) != nullptr;) {
        const std::string name = e->d_name;
        if (name == "." || name == "..") continue;
        Fd at{openat(dir, name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC)};
        struct stat st {};
        if (at.fd < 0 || fstat(at.fd, &st) != 0) continue;
        if (S_ISREG(st.st_mode) && st.st_nlink == 1 && st.st_uid == geteuid()) {
            (void)!fchownat(at.fd, "", kChildUid, kChildGid, AT_EMPTY_PATH);
        } else if (S_ISDIR(st.st_mode)) {
            Fd sub{openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)};
            struct stat again {};
            // The same folder as looked at: not one put in its place since.
            if (sub.fd < 0 || fstat(sub.fd, &again) != 0 || again.st_ino != st.st_ino ||
                again.st_dev != st.st_dev)
                continue;
            if (again.st_uid == geteuid()) (void)!fchown(sub.fd, kChildUid, kChildGid);
            hand_over_in(sub.fd, depth + 1);
        }
    }
    closedir(d);
}

void hand_over(const std::string &work) {
    Fd dir{open(work.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)};
    struct stat st {};
    if (dir.fd < 0 || fstat(dir.fd, &st) != 0) return;
    if (st.st_uid == geteuid()) (void)!fchown(dir.fd, kChildUid, kChildGid);
    hand_over_in(dir.fd, 0);
}

// The first of `paths` that the children's user cannot access as `how` (access(2)'s mode), or
// "". Asked of the kernel as that user, in a process of its own, so groups and ACLs count as
// they will for the children. Nothing allocated after the fork.
std::string first_denied(const std::vector<std::string> &paths, int how) {
    if (paths.empty()) return "";
    std::vector<const char *> c;
    for (const auto &p : paths) c.push_back(p.c_str());
    const pid_t pid = fork();
    if (pid < 0) return paths[0];
    if (pid == 0) {
        const gid_t g = kChildGid;
        const uid_t u = kChildUid;
        if (setgroups(0, nullptr) != 0 || setresgid(g, g, g) != 0 || setresuid(u, u, u) != 0)
            _exit(255);
        for (std::size_t i = 0; i < c.size() && i < 250; ++i)
            if (access(c[i], how) != 0) _exit(static_cast<int>(i) + 1);
        _exit(0);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status)) return paths[0];
    const int code = WEXITSTATUS(status);
    if (code == 0) return "";
    return static_cast<std::size_t>(code) <= paths.size() ? paths[code - 1] : paths[0];
}

// The groups owning the GPU's device nodes that others may not use (render, video: AMD's and
// Intel's), which a child running as nobody keeps to reach the GPU; never root's group.
std::string device_groups(const std::vector<std::string> &devices) {
    std::set<gid_t> gids;
    auto note = [&](const fs::path &p) {
        struct stat st {};
        const mode_t others = S_IROTH | S_IWOTH;
        if (stat(p.c_str(), &st) == 0 && S_ISCHR(st.st_mode) && st.st_gid != 0 &&
            (st.st_mode & others) != others)
            gids.insert(st.st_gid);
    };
    std::error_code ec;
    for (const auto &d : devices) {
        note(d);
        if (fs::is_directory(d, ec))
            for (const auto &e : fs::directory_iterator(d, ec)) note(e.path());
    }
    std::string list;
    for (const gid_t g : gids) {
        if (!list.empty()) list += ',';
        list += std::to_string(g);
    }
    return list;
}

std::string first_of(std::initializer_list<const char *> paths) {
    for (const char *p : paths)
        if (access(p, X_OK) == 0) return p;
    return "";
}

}  // namespace

Sandbox Sandbox::detect(bool disabled, const std::string &off_by) {
    Sandbox s;
    if (disabled) {
        s.why_not_ = "turned off by " + off_by;
        return s;
    }
    const std::string bwrap = first_of({"/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"});
    if (bwrap.empty()) {
        s.why_not_ = "bubblewrap is not installed (sudo apt-get install bubblewrap)";
        return s;
    }
    // As root, a child would be root outside its user namespace too: it runs as nobody.
    const std::string setpriv = geteuid() == 0 ? first_of({"/usr/bin/setpriv", "/bin/setpriv"}) : "";
    if (geteuid() == 0 && setpriv.empty()) {
        s.why_not_ = "setpriv, which runs the labs as nobody for a grader running as root, is not "
                     "installed (sudo apt-get install util-linux; setpriv on older releases)";
        return s;
    }
    std::error_code ec;
    for (const auto &e : fs::directory_iterator("/dev", ec)) {
        const std::string n = e.path().filename().string();
        if (n.rfind("nvidia", 0) == 0 || n == "dri" || n == "kfd") s.devices_.push_back(e.path());
    }
    std::sort(s.devices_.begin(), s.devices_.end());
    if (!setpriv.empty()) s.groups_ = device_groups(s.devices_);
    // It must really start here, as the children's user: a container may forbid the namespaces
    // it needs. What the child writes shows whose it is outside.
    char dir[] = "/tmp/synclab-sandbox-probe-XXXXXX";
    if (!mkdtemp(dir)) {
        s.why_not_ = "no temporary folder to try bubblewrap in";
        return s;
    }
    s.bwrap_ = bwrap;
    s.setpriv_ = setpriv;
    synclab::ProcessLimits limits;
    limits.timeout_s = 20;
    const auto r = synclab::run_process(s.wrap({"/bin/sh", "-c", ": > probe"}, dir, {}), {}, limits);
    struct stat st {};
    const bool wrote = lstat((std::string(dir) + "/probe").c_str(), &st) == 0;
    fs::remove_all(dir, ec);
    const uid_t expected = s.drops_privilege() ? kChildUid : geteuid();
    if (!r.exited || r.exit_code != 0 || !wrote) {
        std::string err = r.err.substr(0, r.err.find('\n'));
        s.bwrap_.clear();
        s.why_not_ = "bubblewrap cannot start here" + std::string(s.drops_privilege() ? " as nobody" : "") +
                     " (" + (err.empty() ? r.describe() : err) + ")";
    } else if (st.st_uid != expected) {
        s.bwrap_.clear();
        s.why_not_ = "the sandbox's child ran as uid " + std::to_string(st.st_uid) + ", not " +
                     std::to_string(expected);
    }
    return s;
}

void Sandbox::needs(const std::vector<std::string> &read, const std::vector<std::string> &pass) {
    if (!available() || !drops_privilege()) return;
    std::string denied = first_denied(read, R_OK | X_OK);
    const bool reading = !denied.empty();
    if (!reading) denied = first_denied(pass, X_OK);
    if (denied.empty()) return;
    bwrap_.clear();
    why_not_ = "the labs run as nobody (uid " + std::to_string(kChildUid) + "), who cannot " +
               (reading ? "read " : "pass through ") + denied + " (chmod o+" +
               (reading ? "rx" : "x") + " it and the folders above it, or use another)";
}

std::vector<std::string> Sandbox::wrap(const std::vector<std::string> &argv, const std::string &work,
                                       const std::vector<std::string> &ro,
                                       const std::string &cwd) const {
    if (bwrap_.empty()) return argv;
    std::vector<std::string> w;
    if (drops_privilege()) {
        hand_over(work);
        w = {setpriv_, "--reuid=" + std::to_string(kChildUid),
             "--regid=" + std::to_string(kChildGid),
             groups_.empty() ? "--clear-groups" : "--groups=" + groups_, "--"};
    }
    w.insert(w.end(), {bwrap_, "--die-with-parent", "--new-session", "--unshare-all", "--cap-drop",
                       "ALL", "--ro-bind", "/usr", "/usr"});
    // Debian's /bin, /lib, ... are links into /usr: the same links inside.
    for (const char *top : {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
        struct stat st {};
        if (lstat(top, &st) != 0) continue;
        if (S_ISLNK(st.st_mode)) {
            std::error_code ec;
            w.insert(w.end(), {"--symlink", fs::read_symlink(top, ec).string(), top});
        } else {
            w.insert(w.end(), {"--ro-bind", top, top});
        }
    }
    // Of /etc only what a lab reads (kEtcNeeded).
    for (const char *etc : kEtcNeeded) w.insert(w.end(), {"--ro-bind-try", etc, etc});
    // /sys: what CPUs and GPUs there are.
    w.insert(w.end(), {"--ro-bind-try", "/sys", "/sys", "--proc", "/proc", "--dev", "/dev"});
    for (const auto &d : devices_) w.insert(w.end(), {"--dev-bind-try", d, d});
    w.insert(w.end(), {"--tmpfs", "/tmp"});
    for (const auto &r : ro) w.insert(w.end(), {"--ro-bind", r, r});
    w.insert(w.end(), {"--bind", work, work, "--chdir", cwd.empty() ? work : cwd, "--"});
    w.insert(w.end(), argv.begin(), argv.end());
    return w;
}

}  // namespace grade
