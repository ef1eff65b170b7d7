// synclab-grade against hostile submissions and careless use: nothing outside a submission
// counts or leaks, one student never stops a class, the gradebook loses nothing, the sandbox
// holds, and a grader killed with SIGKILL leaves no lab running.
#include <doctest/doctest.h>

#include <csignal>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "grade/record_csv.hpp"
#include "grade/record_junit.hpp"
#include "grade/sandbox.hpp"
#include "grade_support.hpp"
#include "synclab/protocol.hpp"

using namespace gradetest;

namespace {

const std::string kLab01 = "01_workgroup_reduce.cl";

std::string solution01() { return test::source("solutions/" + kLab01); }

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("staging copies the submission's own files and refuses what is not one") {
    TempDir dir;
    const fs::path from = dir.path / "student", to = dir.path / "copy";
    auto stage = [&] { return grade::stage_submission(from.string(), to.string(), kLab01); };
    // A plain submission: its kernel and its headers are copied, nothing else.
    write_text(from / kLab01, "#include \"helpers.cl\"\nkernel void k() {}\n");
    write_text(from / "helpers.cl", "#define X 1\n");
    write_text(from / "notes.txt", "not a kernel\n");
    auto s = stage();
    CHECK(s.refused == "");
    CHECK(s.files == std::vector<std::string>{kLab01, "helpers.cl"});
    CHECK(read_file((to / kLab01).string()) == read_file((from / kLab01).string()));
    CHECK_FALSE(fs::exists(to / "notes.txt"));
    // A header that is a link is not copied: the kernel that includes it does not find it.
    fs::remove(from / "helpers.cl");
    fs::create_symlink(solution01(), from / "helpers.cl");
    s = stage();
    CHECK(s.refused == "");
    CHECK(s.files == std::vector<std::string>{kLab01});
    CHECK_FALSE(fs::exists(to / "helpers.cl"));
    fs::remove(from / "helpers.cl");
    // Not handed in: nothing refused, nothing staged (the grader calls it missing).
    fs::remove(from / kLab01);
    s = stage();
    CHECK(s.refused == "");
    CHECK(s.files.empty());
    // The kernel file a link, a FIFO (never blocking), empty, or too large.
    fs::create_symlink(solution01(), from / kLab01);
    CHECK(contains(stage().refused, "symbolic link"));
    fs::remove(from / kLab01);
    REQUIRE(mkfifo((from / kLab01).c_str(), 0600) == 0);
    CHECK(contains(stage().refused, "FIFO"));
    fs::remove(from / kLab01);
    write_text(from / kLab01, " \n\t\n");
    CHECK(contains(stage().refused, "empty"));
    write_text(from / kLab01, std::string(grade::kMaxSubmissionFile + 1, ' ') + "x");
    CHECK(contains(stage().refused, "too large"));
    fs::remove(from / kLab01);
    fs::create_directories(from / kLab01);
    CHECK(contains(stage().refused, "folder"));
    // The student folder itself a link.
    const fs::path linked = dir.path / "linked";
    fs::create_directory_symlink(test::source("solutions"), linked);
    CHECK(contains(grade::stage_submission(linked.string(), to.string(), kLab01).refused,
                   "symbolic link"));
}

TEST_CASE("the gradebook round-trips names with commas, quotes and line breaks") {
    grade::Result r;
    r.student = "a,\"b\"\nc\r\nd";
    r.lab = "01";
    r.grade = grade::Grade::Fail;
    r.kind = grade::Kind::WrongAnswer;
    r.reason = "two\nlines";
    r.seconds = 1.5;
    const std::string text = std::string(grade::kGradebookHeader) + "\n" + grade::csv_row(r) +
                             grade::csv_row(r) + "\"cut,01,pa";  // a last row cut short
    std::size_t whole = 0;
    const auto rows = grade::parse_gradebook(text, &whole);
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].student == r.student);
    CHECK(rows[0].reason == r.reason);
    CHECK(rows[1].seconds == doctest::Approx(1.5));
    CHECK(text.substr(whole) == "\"cut,01,pa");
}

TEST_CASE("the gradebook keeps a spreadsheet from running a student's name as a formula") {
    // A cell that begins with = + - @ (or a tab or CR) is a formula to a spreadsheet: the
    // gradebook writes such a text after a ' and reads it back without it.
    for (const std::string name :
         {"=HYPERLINK(\"http://x\",\"y\")", "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1",
          "'already quoted", "''two", "plain", "a=b"}) {
        CAPTURE(name);
        grade::Result r;
        r.student = name;
        r.lab = "01";
        r.grade = grade::Grade::Fail;
        r.kind = grade::Kind::CompileError;
        r.reason = name;  // a reason quotes the student's text too
        const std::string row = grade::csv_row(r);
        const char first = row[0] == '"' ? row[1] : row[0];
        CHECK(std::string("=+-@\t\r").find(first) == std::string::npos);
        CHECK(row.find(",=") == std::string::npos);
        CHECK(row.find(",\"=") == std::string::npos);
        const auto rows =
            grade::parse_gradebook(std::string(grade::kGradebookHeader) + "\n" + row);
        REQUIRE(rows.size() == 1);
        CHECK(rows[0].student == name);
        CHECK(rows[0].reason == name);
    }
}

}  // TEST_SUITE("unit")

TEST_SUITE("grade") {

TEST_CASE("hostile submissions are refused or graded on their own files, and nothing outside leaks") {
    TempDir dir;
    const fs::path klass = dir.path / "class";
    const fs::path secret = dir.path / "secret.cl";
    const std::string token = "TOKEN_b1f3e9a7_NOT_FOR_STUDENTS";
    write_text(secret, "kernel void " + token + "( {\n");  // a compile error if it were built
    copy_fixture("correct_for_loop", klass / "good");
    write_text(klass / "include_solution" / kLab01, "#include \"" + solution01() + "\"\n");
    write_text(klass / "include_secret" / kLab01, "#include \"" + secret.string() + "\"\n");
    write_text(klass / "spliced_include" / kLab01, "#incl\\\nude \"" + secret.string() + "\"\n");
    fs::create_directories(klass / "symlinked_kernel");
    fs::create_symlink(solution01(), klass / "symlinked_kernel" / kLab01);
    fs::create_directory_symlink(klass / "good", klass / "symlinked_student");
    fs::create_directory_symlink("/", klass / "symlink_to_root");
    fs::create_directories(klass / "fifo");
    REQUIRE(mkfifo((klass / "fifo" / kLab01).c_str(), 0600) == 0);
    write_text(klass / "empty" / kLab01, "");
    write_text(klass / "huge" / kLab01, std::string(2 << 20, '\n') + read_file(solution01()));
    // A name with a line break: refused (rename it), written escaped in the gradebook, and
    // found again by --resume.
    copy_fixture("correct_for_loop", klass / "new\nline");
    const std::map<std::string, std::string> want{
        {"good", "pass"},           {"include_solution", "refused"}, {"include_secret", "refused"},
        {"spliced_include", "refused"}, {"symlinked_kernel", "refused"},
        {"symlinked_student", "refused"}, {"symlink_to_root", "refused"}, {"fifo", "refused"},
        {"empty", "refused"},       {"huge", "refused"},             {"new\\nline", "refused"}};
    const std::string csv = dir / "g.csv", junit = dir / "junit";
    const auto before = listing(klass.string());
    const auto r = run_grader({"--class", klass.string(), "--labs", "01", "--quick", "--timeout",
                               "30", "--csv", csv, "--junit", junit}, 300);
    CAPTURE(r.out);
    CAPTURE(r.err);
    CHECK(r.exit_code == 1);
    auto rows = rows_by_student(csv);
    CHECK(rows.size() == want.size());
    for (const auto &[name, kind] : want) {
        CAPTURE(name);
        REQUIRE(rows.count(name));
        CHECK(grade::name(rows.at(name).kind) == kind);
        CHECK(test::line_count(rows.at(name).reason) <= 1);
    }
    CHECK(contains(rows.at("include_secret").reason, "#include"));
    CHECK(contains(rows.at("symlinked_kernel").reason, "symbolic link"));
    CHECK(contains(rows.at("fifo").reason, "FIFO"));
    CHECK(contains(rows.at("empty").reason, "empty"));
    CHECK(contains(rows.at("huge").reason, "too large"));
    CHECK(contains(rows.at("new\\nline").reason, "rename"));
    // Nothing of the secret file, nor the solutions' code, appears in any output.
    const std::string out = everything(r, csv, junit);
    CHECK_FALSE(contains(out, token));
    CHECK_FALSE(contains(out, "scratch[id] += scratch[id + stride]"));
    CHECK(listing(klass.string()) == before);

    // Resuming keeps every row, the line-broken name included, and grades nothing again.
    const auto again = run_grader({"--class", klass.string(), "--labs", "01", "--quick", "--csv",
                                   csv, "--junit", junit, "--resume"}, 120);
    CAPTURE(again.out);
    CHECK(again.exit_code == 1);
    CHECK(rows_by_student(csv).size() == want.size());
    CHECK(contains(again.out, "new\\nline, lab 01: FAIL refused"));
    int kept = 0;
    for (std::size_t at = 0; (at = again.out.find("(kept from the gradebook)\n", at)) != std::string::npos; ++at)
        ++kept;
    CHECK(kept == static_cast<int>(want.size()));
}

TEST_CASE("the gradebook is never emptied, shared or lost without a word") {
    TempDir dir;
    const fs::path klass = dir.path / "class";
    for (const char *name : {"a", "b", "c"}) copy_fixture("correct_for_loop", klass / name);
    copy_fixture("infinite_loop", klass / "d_hangs");
    const std::string csv = dir / "g.csv", junit = dir / "junit";
    const std::vector<std::string> base{"--class", klass.string(), "--labs", "01", "--quick",
                                        "--csv", csv, "--junit", junit};
    auto with = [&](std::vector<std::string> more) {
        std::vector<std::string> a = base;
        a.insert(a.end(), more.begin(), more.end());
        return a;
    };

    // A second grader on the same gradebook is refused in one line while the first writes it,
    // and the first keeps every row.
    std::vector<std::string> first{test::lab(kGrader)};
    for (const auto &a : with({"--timeout", "8", "-j", "1"})) first.push_back(a);
    const pid_t pid = spawn_logged(first, dir / "first.log");
    test::wait_until([&] { return rows_in(csv) >= 1; }, 120, "the first grader writes a row");
    const auto second = run_grader(with({"--resume"}), 60);
    CAPTURE(second.err);
    CHECK(second.exit_code == 2);
    CHECK(test::line_count(second.err) == 1);
    CHECK(contains(second.err, "being written by another synclab-grade"));
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WEXITSTATUS(status) == 1);
    CHECK(rows_in(csv) == 4);
    const std::string kept = read_file(csv);

    // Without --resume or --restart an existing gradebook is refused, and left as it was.
    const auto fresh = run_grader(with({}), 60);
    CAPTURE(fresh.err);
    CHECK(fresh.exit_code == 2);
    CHECK(contains(fresh.err, "--resume"));
    CHECK(contains(fresh.err, "--restart"));
    CHECK(read_file(csv) == kept);
    // --restart empties it on purpose.
    const auto restart = run_grader({"--class", klass.string(), "--labs", "01", "--quick",
                                     "--csv", csv, "--junit", junit, "--restart",
                                     "--timeout", "3"}, 120);
    CHECK(restart.exit_code == 1);
    CHECK(rows_in(csv) == 4);

    // A write that fails exits non-zero with one line: a full device, a file-size limit.
    const auto dev_full = run_grader({"--class", klass.string(), "--labs", "01", "--quick",
                                      "--csv", "/dev/full", "--junit", junit}, 60);
    CAPTURE(dev_full.err);
    CHECK(dev_full.exit_code == 2);
    CHECK(test::line_count(dev_full.err) == 1);
    CHECK(contains(dev_full.err, "No space left"));
    synclab::ProcessLimits limits;
    limits.timeout_s = 120;
    std::string small_csv = dir / "small.csv";
    std::string cmd = "ulimit -f 1; exec '" + test::lab(kGrader) + "' --class '" + klass.string() +
                      "' --labs 01 --quick --timeout 3 -j 1 --csv '" + small_csv + "' --junit '" +
                      junit + "'";
    const auto limited = synclab::run_process({"/bin/sh", "-c", cmd}, {}, limits);
    CAPTURE(limited.err);
    CHECK(limited.exited);
    CHECK(limited.exit_code == 2);
    CHECK(test::line_count(limited.err) == 1);
    CHECK(contains(limited.err, "cannot write"));
    // An unusable JUnit folder is found before the first student.
    write_text(dir.path / "plainfile", "x");
    const auto bad_junit = run_grader({"--class", klass.string(), "--labs", "01", "--quick",
                                       "--csv", dir / "j.csv", "--junit", dir / "plainfile/sub"}, 60);
    CHECK(bad_junit.exit_code == 2);
    CHECK(test::line_count(bad_junit.err) == 1);
    CHECK_FALSE(contains(bad_junit.out, "lab 01:"));
}

TEST_CASE("bad options are refused in one line that names the cause") {
    TempDir out;
    const std::string sub = test::fixture("correct_for_loop");
    const std::vector<std::pair<std::vector<std::string>, std::string>> bad{
        {{"--timeout", "1min"}, "not a number"},
        {{"--timeout", "2,5"}, "not a number"},
        {{"--timeout", "1e-6"}, "not a number"},
        {{"--timeout", "0.5"}, "at least 2"},
        {{"--memory", "1"}, "at least 1024"},
        {{"--memory", "4096MB"}, "not a number"},
        {{"--seed", "12abc"}, "not a whole number"},
        {{"--draw-key", "two\nlines"}, "one line of at most 256 characters"},
        {{"-j", "0"}, "at least 1"},
        {{"--labs", ","}, "names no lab"},
        {{"--csv", ""}, "--csv is empty"},
        {{"--junit", ""}, "--junit is empty"},
        {{"--resume", "--restart"}, "give one"},
    };
    for (const auto &[args, says] : bad) {
        std::vector<std::string> all{"--kernels", sub};
        if (std::find(args.begin(), args.end(), "--csv") == args.end())
            all.insert(all.end(), {"--csv", out / "g.csv"});
        all.insert(all.end(), args.begin(), args.end());
        if (std::find(args.begin(), args.end(), "--junit") == args.end())
            all.insert(all.end(), {"--junit", out / "junit"});
        const auto r = run_grader(all, 30);
        CAPTURE(args.front());
        CAPTURE(r.err);
        CHECK(r.exit_code == 2);
        CHECK(test::line_count(r.err) == 1);
        CHECK(contains(r.err, says));
    }
    const auto empty_kernels = run_grader({"--kernels", "", "--csv", out / "e.csv"}, 30);
    CHECK(empty_kernels.exit_code == 2);
    CHECK(contains(empty_kernels.err, "--kernels is empty"));
}

TEST_CASE("a class graded with -j 2 gives the gradebook of -j 1, in order" * doctest::test_suite("e2e")) {
    TempDir dir;
    const fs::path klass = dir.path / "class";
    const std::vector<std::string> fixtures{"correct_for_loop", "constant_answer", "compile_error",
                                            "no_barriers", "correct_interleaved", ""};
    for (std::size_t i = 0; i < 12; ++i) {
        const fs::path to = klass / ("s" + std::to_string(10 + i));
        fs::create_directories(to);
        if (!fixtures[i % fixtures.size()].empty()) copy_fixture(fixtures[i % fixtures.size()], to);
    }
    auto grade_with = [&](const std::string &jobs) {
        const std::string csv = dir / ("g" + jobs + ".csv");
        const auto r = run_grader({"--class", klass.string(), "--labs", "01,02", "--quick",
                                   "--seed", "5", "-j", jobs, "--csv", csv, "--junit",
                                   dir / ("junit" + jobs)}, 300);
        CAPTURE(r.out);
        CHECK(r.exit_code == 1);
        std::vector<std::string> keys;
        for (const auto &row : grade::parse_gradebook(read_file(csv)))
            keys.push_back(row.student + "," + row.lab + "," + grade::name(row.grade) + "," + grade::name(row.kind));
        return keys;
    };
    const auto one = grade_with("1"), two = grade_with("2");
    CHECK(one.size() == 24);
    CHECK(one == two);
    CHECK(std::is_sorted(one.begin(), one.end()));
}

TEST_CASE("a grader killed with SIGKILL leaves no lab running, and --resume completes its gradebook") {
    TempDir dir;
    const fs::path klass = dir.path / "class", tmp = dir.path / "tmp";
    fs::create_directories(tmp);
    copy_fixture("correct_for_loop", klass / "a");
    copy_fixture("infinite_loop", klass / "b_hangs");
    copy_fixture("correct_for_loop", klass / "c");
    const std::string csv = dir / "g.csv", junit = dir / "junit";
    // The grader's private folder is in this test's own TMPDIR, so its children can be found.
    const pid_t pid = spawn_logged({test::lab(kGrader), "--class", klass.string(), "--labs", "01",
                                    "--quick", "-j", "1", "--timeout", "120", "--csv", csv,
                                    "--junit", junit},
                                   dir / "log", {{"TMPDIR", tmp.string()}});
    // a's row written, and b_hangs' lab child running its endless kernel.
    const bool running = test::wait_until([&] { return rows_in(csv) >= 1 && lab_running(tmp.string()); },
                                          120, "b_hangs' lab runs");
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    REQUIRE(running);
    // Its lab ends by itself (its --timeout is 120 s of a core away): the grader's pipe closed.
    test::wait_until([&] { return !running_with(tmp.string() + "/"); }, 60, "no child of the grader left");
    CHECK(rows_in(csv) == 1);
    const auto r = run_grader({"--class", klass.string(), "--labs", "01", "--quick", "--timeout",
                               "3", "--csv", csv, "--junit", junit, "--resume"}, 120,
                              {{"TMPDIR", tmp.string()}});
    CAPTURE(r.out);
    CHECK(r.exit_code == 1);
    const auto rows = rows_by_student(csv);
    CHECK(rows.size() == 3);
    CHECK(rows.at("b_hangs").kind == grade::Kind::Timeout);
    // The folder the killed grader left behind is gone once the next one has run.
    CHECK(fs::is_empty(tmp));
}

TEST_CASE("a lab stops at once when its grader is gone, however it was started") {
    // The grader's children read end-of-file on SYNCLAB_PARENT_FD once it is gone: the parent-death
    // signal alone was lost when the grader died while bubblewrap set up the sandbox.
    TempDir dir;
    copy_fixture("infinite_loop", dir.path / "hangs");
    int alive[2];
    REQUIRE(pipe2(alive, O_CLOEXEC) == 0);
    // On a terminal (script(1), which passes fd 3 on): its progress line says when the endless
    // kernel runs. Its log is what the terminal was sent.
    const std::string lab = "'" + test::lab("lab01_workgroup_reduce") + "' --kernels '" +
                            (dir.path / "hangs").string() + "' --variant sync --timeout 120";
    const pid_t pid = spawn_logged({"/usr/bin/script", "-qec", lab, "/dev/null"}, dir / "log",
                                   {{synclab::protocol::kParentFd, "3"}}, alive[0]);
    close(alive[0]);
    test::wait_until([&] { return contains(read_file(dir / "log"), ", kernel reduceWithSync"); }, 100,
                     "the endless kernel runs");
    int status = 0;
    CHECK(waitpid(pid, &status, WNOHANG) == 0);  // still running while the pipe is open
    close(alive[1]);
    // Ends by itself, with its line: its --timeout (120 s of a core) would be another line.
    CHECK(ends_within(pid, 60, "the lab stops once the pipe is closed", status));
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 2);
    CHECK(contains(read_file(dir / "log"), "the grader that started this run is gone"));
    // Only a pipe counts: a file there (read to its end at once) is not a grader gone.
    const int file = open((dir / "log").c_str(), O_RDONLY | O_CLOEXEC);
    REQUIRE(file >= 0);
    const pid_t plain = spawn_logged({test::lab("lab01_workgroup_reduce"), "--kernels",
                                      test::source("solutions"), "--wg", "64"},
                                     dir / "log2", {{synclab::protocol::kParentFd, "3"}}, file);
    close(file);
    waitpid(plain, &status, 0);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("the sandbox shows a lab only the system and its own folder") {
    const grade::Sandbox box = grade::Sandbox::detect();
    if (!box.available()) {
        // Said once by the grader, and grading goes on with the limits alone.
        WARN_MESSAGE(false, "bubblewrap cannot run here: " << box.why_not());
        const auto r = run_grader({"--kernels", test::source("solutions"), "--labs", "01",
                                   "--quick", "--csv", "/dev/null", "--junit",
                                   fs::temp_directory_path().string() + "/synclab-sbx-junit"}, 60);
        CHECK(contains(r.out, "note: no sandbox"));
        return;
    }
    TempDir dir;
    const fs::path work = dir.path / "work", outside = dir.path / "outside";
    write_text(outside / "secret", "x");
    fs::create_directories(work);
    synclab::ProcessLimits limits;
    limits.timeout_s = 30;
    auto in_box = [&](const std::string &script) {
        return synclab::run_process(box.wrap({"/bin/sh", "-c", script}, work.string(), {}), {},
                                    limits);
    };
    CHECK(in_box("true").exit_code == 0);
    CHECK(in_box("test -e '" + (outside / "secret").string() + "'").exit_code == 1);
    CHECK(in_box("test -e '" + test::source("solutions") + "'").exit_code == 1);
    CHECK(in_box("echo x > '" + (work / "mine").string() + "'").exit_code == 0);
    CHECK(fs::exists(work / "mine"));
    CHECK(in_box("echo x > /usr/synclab-sandbox-probe").exit_code != 0);
    // A fresh /tmp: the machine's own temporary files are not there.
    const fs::path marker = fs::temp_directory_path() / ("synclab-sbx-" + std::to_string(getpid()));
    write_text(marker, "x");
    CHECK(in_box("test -e '" + marker.string() + "'").exit_code == 1);
    fs::remove(marker);
    // No network: the only interface is loopback.
    const auto net = in_box("cat /proc/net/dev");
    CHECK(net.exit_code == 0);
    CHECK(contains(net.out, "lo:"));
    int interfaces = 0;
    for (std::size_t at = 0; (at = net.out.find(':', at)) != std::string::npos; ++at) ++interfaces;
    CHECK(interfaces == 1);
    // Without it (the fallback), the same command sees the outside.
    const grade::Sandbox none = grade::Sandbox::detect(true);
    CHECK(synclab::run_process(none.wrap({"/bin/sh", "-c", "test -e '" + (outside / "secret").string() +
                                                               "'"}, work.string(), {}), {}, limits)
              .exit_code == 0);
}

}  // TEST_SUITE("grade")
