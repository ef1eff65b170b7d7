// For the grader's tests: running synclab-grade, reading its gradebook, making submissions.
#pragma once
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <spawn.h>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "grade/record_csv.hpp"
#include "grade/record_junit.hpp"
#include "support.hpp"
#include "synclab/protocol.hpp"

extern char **environ;

namespace gradetest {

namespace fs = std::filesystem;


inline const std::string kGrader = "synclab-grade";

// A temporary folder, removed with everything in it.
struct TempDir {
    fs::path path;
    TempDir() {
        static int counter = 0;
        path = fs::temp_directory_path() /
               ("synclab-grade-test-" + std::to_string(getpid()) + "-" + std::to_string(++counter));
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    std::string operator/(const std::string &rel) const { return (path / rel).string(); }
};

// `cwd`: the folder it runs in ("": ours).
inline synclab::ProcessResult run_grader(const std::vector<std::string> &args, double timeout_s = 170,
                                        std::map<std::string, std::string> env = {},
                                        const std::string &cwd = "") {
    std::vector<std::string> argv{test::lab(kGrader)};
    argv.insert(argv.end(), args.begin(), args.end());
    synclab::ProcessLimits limits;
    limits.timeout_s = timeout_s;
    limits.cwd = cwd;
    env.emplace(synclab::protocol::kKernels, "");
    return synclab::run_process(argv, env, limits);
}

struct Row {
    std::string student, lab, grade, kind, reason, seconds, points, max_points, sha256, judged_by;
};

inline std::vector<std::string> split_csv(const std::string &line) {
    std::vector<std::string> f(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') { f.back() += '"'; ++i; }
        else if (c == '"') quoted = !quoted;
        else if (c == ',' && !quoted) f.emplace_back();
        else f.back() += c;
    }
    return f;
}

inline std::string read_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Every row of the gradebook; its students' total rows (lab "total") only with `totals`.
inline std::vector<Row> read_gradebook(const std::string &path, bool totals = false) {
    std::istringstream in(read_file(path));
    std::string line;
    std::getline(in, line);
    REQUIRE(line == "student,lab,grade,kind,reason,seconds,points,max_points,files_sha256,judged_by");
    std::vector<Row> rows;
    while (std::getline(in, line)) {
        const auto f = split_csv(line);
        REQUIRE(f.size() == 10);
        if (f[1] == "total" && f[2].empty() && !totals) continue;
        rows.push_back({f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9]});
    }
    return rows;
}

inline std::map<std::string, Row> by_student(const std::vector<Row> &rows) {
    std::map<std::string, Row> m;
    for (const auto &r : rows) {
        CHECK_MESSAGE(!m.count(r.student), "graded twice: " << r.student);
        m[r.student] = r;
    }
    return m;
}

// name -> size, for "nothing was written into the submission".
inline std::map<std::string, std::uintmax_t> listing(const std::string &dir) {
    std::map<std::string, std::uintmax_t> out;
    for (const auto &e : fs::recursive_directory_iterator(dir))
        out[e.path().string()] = e.is_regular_file() ? e.file_size() : 0;
    return out;
}

// Waits for `pid` to end (a bound of `seconds`, far past its need): its wait status in `status`;
// false and a failed check naming `what` when it did not (then it is killed).
inline bool ends_within(pid_t pid, double seconds, const std::string &what, int &status) {
    if (test::wait_until([&] { return waitpid(pid, &status, WNOHANG) == pid; }, seconds, what)) return true;
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return false;
}

// The same with its exit code (128 + the signal that ended it), or -1 when it did not end.
inline int exit_within(pid_t pid, int seconds) {
    int status = 0;
    if (!ends_within(pid, seconds, "process " + std::to_string(pid) + " ends", status)) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Starts argv in the background (its environment ours plus `env`) with stdout and stderr going to
// `log`: for tests that signal the grader while it runs.
// `fd3`, when given, is the child's fd 3.
inline pid_t spawn_logged(std::vector<std::string> args, const std::string &log,
                          const std::map<std::string, std::string> &env = {}, int fd3 = -1) {
    std::vector<char *> argv;
    for (auto &a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_strings;
    for (char **e = environ; *e; ++e) {
        const std::string kv = *e;
        if (!env.count(kv.substr(0, kv.find('=')))) env_strings.push_back(kv);
    }
    for (const auto &[k, v] : env) env_strings.push_back(k + "=" + v);
    std::vector<char *> envp;
    for (auto &e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    // Nothing to read: a terminal of ours is not its (script(1) would take it over).
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    if (fd3 >= 0) posix_spawn_file_actions_adddup2(&actions, fd3, 3);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    REQUIRE(rc == 0);
    return pid;
}

inline bool contains(const std::string &text, const std::string &needle) {
    return text.find(needle) != std::string::npos;
}

inline void copy_fixture(const std::string &fixture, const fs::path &to) {
    fs::create_directories(to);
    fs::copy_file(test::source("tests/fixtures/submissions/" + fixture + "/01_workgroup_reduce.cl"),
                  to / "01_workgroup_reduce.cl");
}

// The lab rows (not the students' total rows) in the gradebook, also while it is written.
inline int rows_in(const std::string &csv) {
    const std::string text = read_file(csv);
    int n = 0;
    for (char c : text) n += c == '\n';
    for (std::size_t at = 0; (at = text.find(",total,,,", at)) != std::string::npos; ++at) --n;
    return n - 1;  // the header
}

using test::running_with;

// Whether a lab child of a grader whose private folder is under `root` runs: the runner given a
// batch file there (batch.cpp), from its start until it ends.
inline bool lab_running(const std::string &root) { return running_with("--batch " + root + "/"); }

// A copy of `file` with `code` inserted before its last '}' (the end of reduceWithSync).
inline void with_code_at_end(const std::string &file, const std::string &code, const fs::path &to) {
    std::string text = read_file(file);
    const auto at = text.rfind('}');
    REQUIRE(at != std::string::npos);
    text.insert(at, code);
    fs::create_directories(to);
    std::ofstream(to / "01_workgroup_reduce.cl") << text;
}


// Writes `text` to `p`, making its folder first.
inline void write_text(const fs::path &p, const std::string &text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

// Every output of a grader run: its console, its gradebook and every JUnit file.
inline std::string everything(const synclab::ProcessResult &r, const std::string &csv,
                              const std::string &junit) {
    std::string all = r.out + r.err + read_file(csv);
    std::error_code ec;
    for (const auto &e : fs::recursive_directory_iterator(junit, ec)) all += read_file(e.path().string());
    return all;
}

// The gradebook's rows by student; a student graded twice fails the test.
inline std::map<std::string, grade::Result> rows_by_student(const std::string &csv) {
    std::map<std::string, grade::Result> m;
    for (const auto &r : grade::parse_gradebook(read_file(csv))) {
        CHECK_MESSAGE(!m.count(r.student), "graded twice: " << r.student);
        m[r.student] = r;
    }
    return m;
}

}  // namespace gradetest
