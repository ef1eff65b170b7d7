#include "synclab/protocol.hpp"

#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "synclab/errors.hpp"

namespace synclab::protocol {

double batch_timeout(double timeout_s, std::size_t runs) {
    // The grader never gives its children --build-timeout: their builds are held to kBuildSeconds.
    const double line = std::max(timeout_s, kBuildSeconds) * kClockLimit;
    return std::min(line * static_cast<double>(std::max<std::size_t>(runs, 1)) + 30, kMaxTimeout);
}

bool is_hang(double wall_s, double ran_s, double timeout_s) {
    return ran_s >= timeout_s || wall_s >= timeout_s * kClockLimit;
}

std::string batch_text(const std::vector<Args> &lines) {
    std::string text;
    for (const auto &line : lines) {
        for (std::size_t a = 0; a < line.size(); ++a) {
            if (line[a].find_first_of("\t\n\r") != std::string::npos)
                throw UsageError("a batch argument holds a tab or a line break: " + line[a].substr(0, 80));
            text += (a ? "\t" : "") + line[a];
        }
        text += "\n";
    }
    return text;
}

std::vector<Args> read_batch(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw UsageError("cannot read --batch file " + path + ": check the path");
    std::vector<Args> lines;
    for (std::string l; std::getline(in, l);) {
        if (l.empty()) continue;
        Args args(1);
        for (char c : l) {
            if (c == '\t') args.emplace_back();
            else args.back() += c;
        }
        for (const auto &a : args)
            if (a == "--batch" || a.rfind("--batch=", 0) == 0)
                throw UsageError("--batch file " + path + " names --batch itself: one level only");
        lines.push_back(std::move(args));
    }
    if (lines.empty()) throw UsageError("--batch file " + path + " holds no run: one a line");
    return lines;
}

std::size_t next_line(const std::vector<Args> &lines, std::size_t i, bool failed) {
    std::size_t next = i + 1;
    while (failed && next < lines.size() && !lines[next].empty() && !lines[i].empty() &&
           lines[next][0] == lines[i][0])
        ++next;
    return next;
}

std::string verdict_file(std::size_t line) { return "verdict-" + std::to_string(line + 1) + ".tsv"; }

void mark_run(std::size_t i, std::size_t n, const std::string &shown, double at_s) {
    std::fflush(stdout);
    std::fflush(stderr);
    std::printf("== run %zu of %zu:%s\n", i + 1, n, shown.c_str());
    std::fflush(stdout);
    std::fprintf(stderr, "== run %zu of %zu at %.3f s\n", i + 1, n, at_s);
    std::fflush(stderr);
}

namespace {

// The run a marker line begins (1-based), or 0. A stdout marker ends in ':' after N; a stderr
// marker in " at S s", S finite and not before the run before it.
std::size_t marker(const std::string &l, std::size_t n, bool on_err, double &at) {
    if (l.rfind("== run ", 0) != 0) return 0;
    std::size_t i = 0, of = 0;
    int used = 0;
    if (on_err) {
        if (std::sscanf(l.c_str(), "== run %zu of %zu at %lf s%n", &i, &of, &at, &used) != 3 ||
            static_cast<std::size_t>(used) != l.size() || !std::isfinite(at) || at < 0)
            return 0;
    } else if (std::sscanf(l.c_str(), "== run %zu of %zu:%n", &i, &of, &used) != 2 || used == 0) {
        return 0;
    }
    return of == n && i >= 1 && i <= n ? i : 0;
}

std::vector<std::string> split(const std::string &text, std::size_t n, bool on_err,
                               std::vector<bool> *marked, std::vector<double> *at) {
    std::vector<std::string> part(n);
    std::istringstream in(text);
    std::size_t cur = 0;  // 1-based; 0 before the first marker
    double last = 0;
    for (std::string l; std::getline(in, l);) {
        double when = 0;
        const std::size_t i = marker(l, n, on_err, when);
        if (i > cur && (!on_err || when >= last)) {
            cur = i;
            if (on_err) {
                (*marked)[i - 1] = true;
                (*at)[i - 1] = last = when;
            }
            continue;
        }
        if (n) part[cur ? cur - 1 : 0] += l + "\n";
    }
    return part;
}

}  // namespace

RunParts split_runs(const std::string &out, const std::string &err, std::size_t n) {
    RunParts p;
    p.marked.assign(n, false);
    p.at.assign(n, 0);
    p.out = split(out, n, false, nullptr, nullptr);
    p.err = split(err, n, true, &p.marked, &p.at);
    return p;
}

std::string file_type(unsigned mode) {
    const mode_t m = mode;
    if (S_ISLNK(m)) return "a symbolic link";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISSOCK(m)) return "a socket";
    if (S_ISDIR(m)) return "a folder";
    return "not a regular file";
}

bool read_plain(const std::string &path, std::size_t limit, std::string &out, std::string &why) {
    const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        struct stat st {};
        if (errno == ELOOP || (lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)))
            why = "a symbolic link";
        else
            why = std::string("unreadable (") + std::strerror(errno) + ")";
        return false;
    }
    struct FdCloser {
        int fd;
        ~FdCloser() { close(fd); }
    } closer{fd};
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        why = file_type(st.st_mode);
        return false;
    }
    if (static_cast<std::size_t>(st.st_size) > limit) {
        why = "too large (" + std::to_string(st.st_size) + " bytes; at most " + std::to_string(limit) + ")";
        return false;
    }
    out.clear();
    char buf[65536];
    for (ssize_t got; (got = read(fd, buf, sizeof buf)) != 0;) {
        if (got < 0) {
            if (errno == EINTR) continue;
            why = std::string("unreadable (") + std::strerror(errno) + ")";
            return false;
        }
        out.append(buf, static_cast<std::size_t>(got));
        if (out.size() > limit) {
            why = "too large (it grew while being read)";
            return false;
        }
    }
    return true;
}

VerdictRecord read_verdict(const std::string &path, bool *found) {
    std::string text, why;
    const bool plain = read_plain(path, 1u << 20, text, why);  // a verdict is a few lines
    if (found) *found = plain;
    return parse_verdict(plain ? text : "");
}

std::string shell_quote(const std::string &a) {
    const bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                         "0123456789-_=.,/:+@%") == std::string::npos;
    if (plain) return a;
    std::string q = "'";
    for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

std::string shell_command(const Args &argv) {
    std::string out;
    for (const auto &a : argv) out += (out.empty() ? "" : " ") + shell_quote(a);
    return out;
}

}  // namespace synclab::protocol
