// The grader's sandbox: a lab's child sees of the machine only what a lab needs, read-only, and
// runs as nobody when the grader is root, so a file only root may read stays unread; a class is
// never graded outside it unless --no-sandbox says so. Each refusal beside what must still work.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include "grade/sandbox.hpp"
#include "grade_support.hpp"
#include "synclab/protocol.hpp"

using namespace gradetest;

namespace {

const std::string kLab01 = "01_workgroup_reduce.cl";

void write(const fs::path &p, const std::string &text, fs::perms perms = fs::perms::unknown) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    if (perms != fs::perms::unknown) fs::permissions(p, perms);
}

// A marker no file of the machine holds but the one a test writes.
std::string marker(const std::string &what) {
    return "synclab_" + what + "_" + std::to_string(getpid()) + "_" + std::to_string(time(nullptr));
}

// The first line of /etc/shadow, when this process can read it ("" otherwise).
std::string shadow_first_line() {
    const std::string text = read_file("/etc/shadow");
    return text.substr(0, text.find('\n'));
}

// The sandbox, or a MESSAGE saying why these tests check nothing here.
bool sandbox_here(grade::Sandbox &box) {
    box = grade::Sandbox::detect();
    if (!box.available()) MESSAGE("skipped: bubblewrap cannot start here: " << box.why_not());
    return box.available();
}

uid_t owner(const fs::path &p) {
    struct stat st {};
    REQUIRE(lstat(p.c_str(), &st) == 0);
    return st.st_uid;
}

}  // namespace

TEST_SUITE("grade") {

TEST_CASE("a sandboxed lab reads its own files and what OpenCL needs but never /etc/shadow nor a file only root may read") {
    grade::Sandbox box;
    if (!sandbox_here(box)) return;
    TempDir dir;
    const fs::path work = dir.path / "work", ro = dir.path / "ro";
    const std::string secret = marker("secret"), open = marker("public");
    // As staging writes them: the grader's own, 0600.
    write(work / kLab01, "kernel void k() {} // " + open, fs::perms::owner_read | fs::perms::owner_write);
    write(ro / "public.txt", open, fs::perms::owner_read | fs::perms::owner_write |
                                       fs::perms::group_read | fs::perms::others_read);
    write(ro / "secret.txt", secret, fs::perms::owner_read | fs::perms::owner_write);
    synclab::ProcessLimits limits;
    limits.timeout_s = 30;
    auto in_box = [&](const std::string &script) {
        return synclab::run_process(box.wrap({"/bin/sh", "-c", script}, work.string(), {ro.string()}),
                                    {}, limits);
    };
    // Its own staged kernel file, and what an OpenCL program reads of /etc.
    const auto own = in_box("cat " + kLab01);
    CHECK(own.exit_code == 0);
    CHECK(contains(own.out, open));
    CHECK(in_box("test -r /etc/ld.so.cache").exit_code == 0);
    if (fs::is_directory("/etc/OpenCL/vendors")) {
        const auto icd = in_box("cat /etc/OpenCL/vendors/*.icd");
        CHECK(icd.exit_code == 0);
        CHECK(!icd.out.empty());
    }
    // Not /etc/shadow, nor the rest of /etc.
    const auto shadow = in_box("cat /etc/shadow");
    CHECK(shadow.exit_code != 0);
    CHECK(in_box("test -e /etc/shadow").exit_code == 1);
    const std::string first = shadow_first_line();
    if (!first.empty()) CHECK(!contains(shadow.out + shadow.err, first));
    for (const char *gone : {"/etc/passwd", "/etc/hostname", "/etc/ssh", "/etc/ssl/private"})
        CHECK_MESSAGE(in_box(std::string("test -e ") + gone).exit_code == 1, gone << " is in the sandbox");
    // A bound folder: what others may read is read, what only its owner may is not.
    const auto pub = in_box("cat '" + (ro / "public.txt").string() + "'");
    CHECK(pub.exit_code == 0);
    CHECK(contains(pub.out, open));
    const auto made = in_box("id -u; : > made");
    REQUIRE(made.exit_code == 0);
    if (!box.drops_privilege()) {
        MESSAGE("the grader is not root: its children run as its own user, who may read its own "
                "files; nothing to drop");
        CHECK(owner(work / "made") == geteuid());
        return;
    }
    // No group of the grader's goes with it (root's least of all), but a GPU node's.
    const std::vector<std::string> argv = box.wrap({"/bin/true"}, work.string(), {});
    REQUIRE(argv.size() > 4);
    CHECK(contains(argv[0], "setpriv"));
    CHECK((argv[3] == "--clear-groups" || argv[3].rfind("--groups=", 0) == 0));
    CHECK(!contains("," + argv[3].substr(argv[3].find('=') + 1) + ",", ",0,"));
    const auto hidden = in_box("cat '" + (ro / "secret.txt").string() + "'");
    CHECK(hidden.exit_code != 0);
    CHECK(!contains(hidden.out + hidden.err, secret));
    // Unprivileged outside its namespace too: what it writes is nobody's, not root's.
    CHECK(owner(work / "made") == grade::kChildUid);
    CHECK(contains(made.out, std::to_string(grade::kChildUid)));
    CHECK(owner(work / kLab01) == grade::kChildUid);  // handed over, so it could read it
}

TEST_CASE("a lab built in the sandbox cannot include a file only root may read but includes one others may") {
    // The lab itself, run in the sandbox as the grader runs it but on a kernel no staging
    // screened: only the sandbox stands between its compiler and the files it names.
    grade::Sandbox box;
    if (!sandbox_here(box)) return;
    TempDir dir;
    const fs::path work = dir.path / "work", ro = dir.path / "ro";
    const std::string secret = marker("secret");
    write(ro / "secret.h", secret + " is the secret;\n", fs::perms::owner_read | fs::perms::owner_write);
    write(ro / "public.h", "#define SYNC_GROUP() barrier(CLK_LOCAL_MEM_FENCE)\n",
          fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
    std::string helped = read_file(test::source("solutions/" + kLab01));
    for (std::size_t at; (at = helped.find("barrier(CLK_LOCAL_MEM_FENCE)")) != std::string::npos;)
        helped.replace(at, std::string("barrier(CLK_LOCAL_MEM_FENCE)").size(), "SYNC_GROUP()");
    const fs::path bin = fs::path(test::lab("lab01_workgroup_reduce")).parent_path();
    std::vector<std::string> readable{bin.string(), ro.string()};
    if (fs::is_directory(bin.parent_path() / "lib")) readable.push_back((bin.parent_path() / "lib").string());
    auto build = [&](const std::string &include) {
        fs::remove_all(work);
        fs::create_directories(work / "tmp");
        write(work / "kernels" / kLab01, "#include \"" + include + "\"\n" + helped);
        synclab::ProcessLimits limits;
        limits.timeout_s = 120;
        return synclab::run_process(
            box.wrap({test::lab("lab01_workgroup_reduce"), "--kernels", (work / "kernels").string(),
                      "--variant", "sync", "--device", "pocl"},
                     work.string(), readable),
            {{"TMPDIR", (work / "tmp").string()}, {"HOME", (work / "tmp").string()},
             {"POCL_CACHE_DIR", (work / "tmp").string()}, {synclab::protocol::kKernels, ""},
             {"OCL_ICD_VENDORS", ""}},
            limits);
    };
    const auto helper = build((ro / "public.h").string());
    CAPTURE(helper.out);
    CAPTURE(helper.err);
    CHECK(helper.exit_code == 0);
    const auto shadow = build("/etc/shadow");
    CHECK(shadow.exit_code != 0);
    const std::string first = shadow_first_line();
    if (!first.empty()) CHECK(!contains(shadow.out + shadow.err, first));
    const auto hidden = build((ro / "secret.h").string());
    CAPTURE(hidden.err);
    if (!box.drops_privilege()) {
        MESSAGE("the grader is not root: the fake secret is its own user's, which its labs may read");
        return;
    }
    CHECK(hidden.exit_code != 0);
    CHECK(!contains(hidden.out + hidden.err, secret));
    CHECK(contains(hidden.out + hidden.err, "secret.h"));  // a build error naming the include
}

TEST_CASE("handing a lab its folder never follows a link nor gives away a file linked from elsewhere") {
    grade::Sandbox box;
    if (!sandbox_here(box)) return;
    if (!box.drops_privilege()) {
        MESSAGE("skipped: the grader is not root, so nothing is handed to another user");
        return;
    }
    TempDir dir;
    const fs::path work = dir.path / "work", outside = dir.path / "outside";
    const std::string secret = marker("linked");
    write(outside / "secret", secret, fs::perms::owner_read | fs::perms::owner_write);
    write(work / kLab01, "kernel void k() {}\n", fs::perms::owner_read | fs::perms::owner_write);
    fs::create_directories(work / "sub");
    fs::create_symlink(outside / "secret", work / "link");
    fs::create_symlink(outside, work / "sub" / "folder");
    fs::create_hard_link(outside / "secret", work / "hard");
    synclab::ProcessLimits limits;
    limits.timeout_s = 30;
    const auto r = synclab::run_process(
        box.wrap({"/bin/sh", "-c", "cat hard; cat link; cat sub/folder/secret; cat " + kLab01},
                 work.string(), {}),
        {}, limits);
    CHECK(!contains(r.out + r.err, secret));
    // The file linked twice, its folder and the links stay root's; the grader's own file is the lab's.
    CHECK(owner(outside / "secret") == 0);
    CHECK(owner(outside) == 0);
    CHECK(owner(work / "hard") == 0);
    CHECK(owner(work / "link") == 0);
    CHECK((fs::status(outside / "secret").permissions() & fs::perms::others_read) == fs::perms::none);
    CHECK(owner(work / kLab01) == grade::kChildUid);
    CHECK(owner(work / "sub") == grade::kChildUid);
    CHECK(owner(work) == grade::kChildUid);
}

TEST_CASE("a sandbox whose children cannot reach a folder they need is no sandbox and says which and the fix") {
    grade::Sandbox box;
    if (!sandbox_here(box)) return;
    if (!box.drops_privilege()) {
        MESSAGE("skipped: the grader is not root: its children read what it reads");
        return;
    }
    TempDir dir;
    const fs::path open = dir.path / "open", closed = dir.path / "closed";
    fs::create_directories(open);
    fs::create_directories(closed / "inner");
    fs::permissions(closed, fs::perms::owner_all);
    grade::Sandbox fine = box;
    fine.needs({open.string()}, {dir.path.string()});
    CHECK(fine.available());
    grade::Sandbox unread = box;
    unread.needs({(closed / "inner").string()}, {});
    CHECK(!unread.available());
    CHECK(contains(unread.why_not(), (closed / "inner").string()));
    CHECK(contains(unread.why_not(), "chmod o+rx"));
    grade::Sandbox unpassed = box;
    unpassed.needs({open.string()}, {closed.string()});
    CHECK(!unpassed.available());
    CHECK(contains(unpassed.why_not(), "pass through " + closed.string()));
    CHECK(test::line_count(unpassed.why_not()) == 1);
}

TEST_CASE("a kernel that includes a secret fails with no line of it in any report and one including its own helper passes") {
    grade::Sandbox box;
    if (!sandbox_here(box)) return;
    TempDir dir;
    // A secret only root may read, in a folder every lab's sandbox binds: the user's own OpenCL
    // vendor folder (OCL_ICD_VENDORS), which still lists POCL, and Oclgrind where it is.
    const fs::path vendors = dir.path / "vendors", klass = dir.path / "class";
    fs::create_directories(vendors);
    std::error_code ec;
    for (const auto &e : fs::directory_iterator("/etc/OpenCL/vendors", ec))
        fs::copy_file(e.path(), vendors / e.path().filename());
    for (const char *oclgrind : {"/usr/lib/oclgrind/liboclgrind-rt-icd.so",
                                 "/usr/lib/x86_64-linux-gnu/liboclgrind-rt-icd.so"})
        if (fs::exists(oclgrind)) write(vendors / "zz-oclgrind.icd", std::string(oclgrind) + "\n");
    const std::string secret = marker("secret");
    write(vendors / "secret.h", secret + " is the secret;\n", fs::perms::owner_read | fs::perms::owner_write);
    const std::string solution = read_file(test::source("solutions/" + kLab01));
    write(klass / "a_secret" / kLab01, "#include \"" + (vendors / "secret.h").string() + "\"\n" + solution);
    write(klass / "b_shadow" / kLab01, "#include \"/etc/shadow\"\n" + solution);
    // Its own helper, beside it: a macro the kernel's barriers use.
    std::string helped = solution;
    for (std::size_t at; (at = helped.find("barrier(CLK_LOCAL_MEM_FENCE)")) != std::string::npos;)
        helped.replace(at, std::string("barrier(CLK_LOCAL_MEM_FENCE)").size(), "SYNC_GROUP()");
    write(klass / "c_helper" / "sync.h", "#define SYNC_GROUP() barrier(CLK_LOCAL_MEM_FENCE)\n");
    write(klass / "c_helper" / kLab01, "#include \"sync.h\"\n" + helped);
    const std::string csv = dir / "g.csv", junit = dir / "junit";
    const auto r = run_grader({"--class", klass.string(), "--labs", "01", "--csv", csv, "--junit",
                               junit, "-j", "2"},
                              300, {{"OCL_ICD_VENDORS", vendors.string()}});
    CAPTURE(r.out);
    CAPTURE(r.err);
    CHECK(r.exit_code == 1);
    CHECK(!contains(r.out, "note: no sandbox"));
    if (test::have_oclgrind()) CHECK(!contains(r.out, "Oclgrind is not installed"));
    const auto rows = by_student(read_gradebook(csv));
    REQUIRE(rows.size() == 3);
    CHECK(rows.at("a_secret").grade == "fail");
    CHECK(rows.at("b_shadow").grade == "fail");
    CHECK(rows.at("c_helper").grade == "pass");
    if (test::have_oclgrind()) CHECK(contains(rows.at("c_helper").reason, "Oclgrind: no findings"));
    const std::string all = everything(r, csv, junit);
    const std::string first = shadow_first_line();
    if (!first.empty()) CHECK(!contains(all, first));
    if (box.drops_privilege())
        CHECK(!contains(all, secret));
    else
        MESSAGE("the grader is not root: the fake secret is its own user's, which its labs may read");
}

TEST_CASE("grading a class without a sandbox is refused in one line with exit 2 and runs with --no-sandbox") {
    TempDir dir;
    write(dir.path / "class" / "s1" / kLab01, read_file(test::source("solutions/" + kLab01)));
    const std::string klass = dir / "class", csv = dir / "g.csv", junit = dir / "junit";
    const std::map<std::string, std::string> off{{"SYNCLAB_GRADE_SANDBOX", "off"}};
    auto grade_class = [&](std::vector<std::string> more, const std::map<std::string, std::string> &env) {
        std::vector<std::string> args{"--class", klass, "--labs", "01", "--quick", "--csv", csv,
                                      "--junit", junit, "--restart"};
        args.insert(args.end(), more.begin(), more.end());
        return run_grader(args, 120, env);
    };
    const auto refused = grade_class({}, off);
    CAPTURE(refused.out);
    CAPTURE(refused.err);
    CHECK(refused.exit_code == 2);
    CHECK(test::line_count(refused.err) == 1);
    CHECK(contains(refused.err, "not graded without a sandbox (turned off by SYNCLAB_GRADE_SANDBOX=off)"));
    CHECK(contains(refused.err, "grader's own privileges"));
    CHECK(contains(refused.err, "--no-sandbox"));
    CHECK(!fs::exists(csv));  // refused before the gradebook is touched
    const auto allowed = grade_class({"--no-sandbox"}, off);
    CAPTURE(allowed.out);
    CHECK(allowed.exit_code == 0);
    CHECK(contains(allowed.out, "note: no sandbox: turned off by --no-sandbox"));
    CHECK(read_gradebook(csv).size() == 1);
    // The variable alone still turns it off for one student's own grading.
    const auto one = run_grader({"--kernels", (dir.path / "class" / "s1").string(), "--labs", "01",
                                 "--quick", "--csv", dir / "one.csv", "--junit", junit},
                                120, off);
    CHECK(one.exit_code == 0);
    CHECK(contains(one.out, "note: no sandbox: turned off by SYNCLAB_GRADE_SANDBOX=off"));
    // A sandbox the labs' user cannot reach (the grader's folder in one only root may enter) is
    // no sandbox: a class is refused, naming it.
    if (geteuid() == 0 && grade::Sandbox::detect().available()) {
        const fs::path closed = dir.path / "closed";
        fs::create_directories(closed);
        fs::permissions(closed, fs::perms::owner_all);
        const auto unreachable = grade_class({}, {{"TMPDIR", closed.string()}});
        CAPTURE(unreachable.err);
        CHECK(unreachable.exit_code == 2);
        CHECK(test::line_count(unreachable.err) == 1);
        CHECK(contains(unreachable.err, "pass through " + closed.string()));
        const auto sandboxed = grade_class({}, {});
        CAPTURE(sandboxed.out);
        CHECK(sandboxed.exit_code == 0);
        CHECK(!contains(sandboxed.out, "note: no sandbox"));
    }
}

}  // TEST_SUITE("grade")
