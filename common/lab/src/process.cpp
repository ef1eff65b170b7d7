#include "synclab/process.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "synclab/errors.hpp"

extern char **environ;

namespace synclab {

std::string ProcessResult::describe() const {
    if (timed_out) return "timed out (killed)";
    if (signal) {
        const char *name = strsignal(signal);
        return std::string("killed by signal ") + std::to_string(signal) +
               (name ? std::string(" (") + name + ")" : "");
    }
    return "exit " + std::to_string(exit_code);
}

namespace {

// Our environment with `env` over it (an empty value unsets).
std::map<std::string, std::string> merged_env(const std::map<std::string, std::string> &env) {
    std::map<std::string, std::string> merged;
    for (char **e = environ; e && *e; ++e) {
        const std::string kv = *e;
        const auto eq = kv.find('=');
        if (eq != std::string::npos) merged[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    for (const auto &[k, v] : env) {
        if (v.empty()) merged.erase(k);
        else merged[k] = v;
    }
    return merged;
}

// The child, between fork() and exec: async-signal-safe calls only (no malloc, no setenv).
[[noreturn]] void exec_child(char *const *args, char *const *envp, pid_t parent, int alive_fd,
                             int out_fd, int err_fd, const ProcessLimits &limits) {
    setpgid(0, 0);  // its own group, so a timeout kills everything it started
    // Dies with the grader, even one killed by SIGKILL; if it already died, go now.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    // Out of the way of 0-3 first (async-signal-safe calls only), then fd 3, kept by exec.
    const int keep = alive_fd >= 0 ? fcntl(alive_fd, F_DUPFD_CLOEXEC, 10) : -1;
    if (alive_fd >= 0 && keep < 0) _exit(127);
    const int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    if (keep >= 0 && dup2(keep, 3) != 3) _exit(127);
    // Nothing else of ours: a file another thread opened without O_CLOEXEC (a report being
    // written) must not reach a submission's lab.
    const unsigned first = keep >= 0 ? 4 : 3;
    if (close_range(first, ~0U, 0) != 0)
        for (unsigned fd = first; fd < 65536; ++fd) close(static_cast<int>(fd));
    if (!limits.cwd.empty() && chdir(limits.cwd.c_str()) != 0) {
        static const char msg[] = "cannot enter the child's working folder\n";
        (void)!write(2, msg, sizeof msg - 1);
        _exit(127);
    }
    if (limits.memory_bytes) {
        rlimit rl{limits.memory_bytes, limits.memory_bytes};
        setrlimit(RLIMIT_AS, &rl);
    }
    rlimit core{0, 0};
    setrlimit(RLIMIT_CORE, &core);
    if (limits.nice > 0) {
        errno = 0;
        const int ours = getpriority(PRIO_PROCESS, 0);
        if (errno == 0) setpriority(PRIO_PROCESS, 0, ours + limits.nice > 19 ? 19 : ours + limits.nice);
    }
    execve(args[0], args, envp);
    static const char msg[] = "cannot run the program\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(127);
}

using Deadline = std::chrono::steady_clock::time_point;

// Reads the child's stdout and stderr into r until both close, the deadline passes
// (r.timed_out) or *limits.stop is set (r.interrupted). The pipes still open stay in fds.
void read_output(pollfd (&fds)[2], ProcessResult &r, const ProcessLimits &limits,
                 Deadline deadline) {
    std::string *sinks[2] = {&r.out, &r.err};
    int open_fds = 2;
    char buf[65536];
    while (open_fds > 0) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                              deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) { r.timed_out = true; break; }
        if (limits.stop && *limits.stop) { r.interrupted = true; break; }
        const int rc = poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000)));
        if (rc < 0 && errno != EINTR) break;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            const ssize_t got = read(fds[i].fd, buf, sizeof buf);
            if (got > 0) {
                std::string &sink = *sinks[i];
                sink.append(buf, static_cast<std::size_t>(got));
                const std::size_t half = std::max<std::size_t>(limits.max_output / 2, 1);
                if (sink.size() > 2 * half + sizeof buf) {  // keep the head and the tail
                    const std::size_t cut = sink.size() - 2 * half;
                    sink.erase(half, cut);
                    r.dropped += cut;
                }
            } else {
                close(fds[i].fd);
                fds[i].fd = -1;
                --open_fds;
            }
        }
    }
}

// The child's wait status. The pipes closed, but the child may still be exiting: wait, bounded
// by the deadline (past it, r.timed_out and the child killed).
int wait_child(pid_t pid, ProcessResult &r, Deadline deadline) {
    int status = 0;
    while (true) {
        const pid_t w = waitpid(pid, &status, (r.timed_out || r.interrupted) ? 0 : WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) break;
        if (std::chrono::steady_clock::now() >= deadline) {
            r.timed_out = true;
            kill(-pid, SIGKILL);
            waitpid(pid, &status, 0);
            break;
        }
        usleep(2000);
    }
    return status;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string> &argv,
                          const std::map<std::string, std::string> &env,
                          const ProcessLimits &limits) {
    if (argv.empty()) throw UsageError("run_process: no program given");
    // Everything the child needs is made before fork(): between fork and exec a child of a
    // threaded process may call only async-signal-safe functions (no malloc, no setenv).
    std::map<std::string, std::string> merged = merged_env(env);
    int alive[2] = {-1, -1};  // limits.parent_pipe: [0] is the child's fd 3, [1] stays here
    if (limits.parent_pipe) {
        if (pipe2(alive, O_CLOEXEC)) throw std::runtime_error("pipe failed");
        merged[protocol::kParentFd] = "3";
    }
    auto close_alive = [&] {
        for (int &fd : alive)
            if (fd >= 0) close(fd), fd = -1;
    };
    std::vector<std::string> env_strings;
    for (const auto &[k, v] : merged) env_strings.push_back(k + "=" + v);
    std::vector<char *> envp, args;
    for (auto &e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    for (const auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    const pid_t parent = getpid();
    int out_pipe[2], err_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC)) {
        close_alive();
        throw std::runtime_error("pipe failed");
    }
    if (pipe2(err_pipe, O_CLOEXEC)) {
        close(out_pipe[0]); close(out_pipe[1]);
        close_alive();
        throw std::runtime_error("pipe failed");
    }
    const pid_t pid = fork();
    if (pid < 0) {
        for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) close(fd);
        close_alive();
        throw std::runtime_error("fork failed");
    }
    if (pid == 0)
        exec_child(args.data(), envp.data(), parent, alive[0], out_pipe[1], err_pipe[1], limits);
    setpgid(pid, pid);
    close(out_pipe[1]);
    close(err_pipe[1]);
    if (alive[0] >= 0) close(alive[0]), alive[0] = -1;  // alive[1] is closed once it has ended

    ProcessResult r;
    const double timeout = std::clamp(limits.timeout_s, 0.0, protocol::kMaxTimeout);
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(static_cast<long long>(timeout * 1000));
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    read_output(fds, r, limits, deadline);
    if (r.timed_out || r.interrupted) kill(-pid, SIGKILL);
    const int status = wait_child(pid, r, deadline);
    kill(-pid, SIGKILL);  // anything it left behind in its group
    close_alive();
    for (auto &f : fds)
        if (f.fd >= 0) close(f.fd);
    if (WIFEXITED(status)) {
        r.exited = true;
        r.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        r.signal = WTERMSIG(status);
    }
    if (r.timed_out) { r.exited = false; r.signal = SIGKILL; }
    return r;
}

}  // namespace synclab
