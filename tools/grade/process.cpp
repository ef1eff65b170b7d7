#include "process.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "synclab/errors.hpp"

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

ProcessResult run_process(const std::vector<std::string> &argv,
                          const std::map<std::string, std::string> &env,
                          const ProcessLimits &limits) {
    if (argv.empty()) throw UsageError("run_process: no program given");
    int out_pipe[2], err_pipe[2];
    if (pipe(out_pipe) || pipe(err_pipe)) throw std::runtime_error("pipe failed");
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        setpgid(0, 0);  // its own group, so a timeout kills everything it started
        const int devnull = open("/dev/null", O_RDONLY);
        dup2(devnull, 0);
        dup2(out_pipe[1], 1);
        dup2(err_pipe[1], 2);
        close(out_pipe[0]); close(out_pipe[1]); close(err_pipe[0]); close(err_pipe[1]);
        for (const auto &[k, v] : env) {
            if (v.empty()) unsetenv(k.c_str());
            else setenv(k.c_str(), v.c_str(), 1);
        }
        if (limits.memory_bytes) {
            rlimit rl{limits.memory_bytes, limits.memory_bytes};
            setrlimit(RLIMIT_AS, &rl);
        }
        rlimit core{0, 0};
        setrlimit(RLIMIT_CORE, &core);
        std::vector<char *> args;
        for (const auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
        args.push_back(nullptr);
        execv(args[0], args.data());
        dprintf(2, "cannot run %s: %s\n", args[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    close(out_pipe[1]);
    close(err_pipe[1]);

    ProcessResult r;
    const double timeout = std::clamp(limits.timeout_s, 0.0, kMaxTimeout);
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(static_cast<long long>(timeout * 1000));
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
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
    if (r.timed_out || r.interrupted) kill(-pid, SIGKILL);
    int status = 0;
    // The pipes closed, but the child may still be exiting: wait, bounded by the deadline.
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
    kill(-pid, SIGKILL);  // anything it left behind in its group
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
