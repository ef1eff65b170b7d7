// synclab-grade's rows tied to what they graded: the SHA-256 of a submission's files, --resume
// grading again a student whose files changed (fixed or broken) and keeping one whose did not,
// --students, the JUnit reports of the students kept, the files a class hands in below its
// folders or under no lab's name, and each lab's points with each student's total.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "grade/record_csv.hpp"
#include "grade/record_junit.hpp"
#include "grade/submission_files.hpp"
#include "grade_support.hpp"

namespace fs = std::filesystem;
using namespace gradetest;

namespace {

std::string solution(const std::string &file) { return read_file(test::source("solutions/" + file)); }

const std::string kLab01 = "01_workgroup_reduce.cl", kLab02 = "02_host_final_sum.cl";

// A lab 02 that does not compile: the solution with a statement left unfinished.
std::string broken_02() { return "int not_finished =\n" + solution(kLab02); }

// (student, lab) -> its row.
std::map<std::pair<std::string, std::string>, Row> cells(const std::string &csv) {
    std::map<std::pair<std::string, std::string>, Row> out;
    for (const auto &r : read_gradebook(csv)) {
        CHECK_MESSAGE(!out.count({r.student, r.lab}), "two rows for " << r.student << ", lab " << r.lab);
        out[{r.student, r.lab}] = r;
    }
    return out;
}

int count(const std::string &text, const std::string &needle) {
    int n = 0;
    for (std::size_t at = 0; (at = text.find(needle, at)) != std::string::npos; ++at) ++n;
    return n;
}

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("sha256_hex gives FIPS 180-4's test vectors, and a changed byte another hash") {
    CHECK(grade::sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(grade::sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(grade::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    CHECK(grade::sha256_hex(std::string(1000000, 'a')) ==
          "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    // The padding's edges: 55 bytes fit one block, 56 need two.
    CHECK(grade::sha256_hex(std::string(56, 'x')) != grade::sha256_hex(std::string(55, 'x') + "y"));

    // A folder's hash follows every byte of its kernel files, and only them.
    TempDir dir;
    write_text(dir.path / kLab01, "kernel void k() {}\n");
    write_text(dir.path / "notes.txt", "not graded");
    const std::string before = grade::files_sha256(dir.path.string());
    CHECK(grade::files_sha256(dir.path.string()) == before);  // the same files: the same hash
    write_text(dir.path / "notes.txt", "still not graded");
    CHECK(grade::files_sha256(dir.path.string()) == before);
    write_text(dir.path / kLab01, "kernel void k() {}\r\n");  // one byte more
    CHECK(grade::files_sha256(dir.path.string()) != before);
    write_text(dir.path / kLab01, "kernel void k() {}\n");
    write_text(dir.path / "util.h", "#define N 1\n");  // a header a kernel may include
    CHECK(grade::files_sha256(dir.path.string()) != before);
}

TEST_CASE("a class's files are found in folders below it as the platforms' entry point finds them") {
    TempDir dir;
    const fs::path s = dir.path / "frank";
    write_text(s / "my-labs" / kLab01, "deep");
    write_text(s / "my-labs" / "old" / kLab01, "deeper");  // the shallowest of one name wins
    write_text(s / "my-labs" / "lab5.cl", "misnamed");
    write_text(s / "__MACOSX" / "my-labs" / kLab02, "zip litter");
    write_text(s / "my-labs" / ("._" + kLab02), "zip litter");
    fs::create_symlink("/etc/passwd", s / "my-labs" / "link.cl");  // links never followed
    const auto found = grade::find_handed_in(s.string());
    REQUIRE(found.size() == 2);
    CHECK(found[0].name == kLab01);
    CHECK(read_file(found[0].path) == "deep");
    CHECK(found[1].name == "lab5.cl");

    const std::vector<std::string> known{kLab01, kLab02, "05_divergence.cl"};
    CHECK(grade::needs_gathering(found, s.string(), known));
    // Its twin: files beside one another in the folder graded need no gathering.
    write_text(dir.path / "henry" / kLab01, "flat");
    CHECK_FALSE(grade::needs_gathering(grade::find_handed_in((dir.path / "henry").string()),
                                       (dir.path / "henry").string(), known));

    const std::vector<std::pair<std::string, std::string>> labs{
        {"01", kLab01}, {"02", kLab02}, {"05", "05_divergence.cl"}};
    const auto misnamed = grade::misnamed_files(found, labs);
    REQUIRE(misnamed.size() == 1);
    CHECK(misnamed[0].lab == "05");
    CHECK(misnamed[0].note == "lab5.cl is named as no lab: rename it 05_divergence.cl");
    CHECK(grade::misnamed_files(grade::find_handed_in((dir.path / "henry").string()), labs).empty());

    const std::string to = dir / "gathered";
    REQUIRE(grade::gather_handed_in(found, to));
    CHECK(read_file(to + "/" + kLab01) == "deep");
    CHECK(fs::exists(to + "/lab5.cl"));
}

TEST_CASE("a gradebook row holds its points and its files' hash, and an older grader's row none") {
    grade::Result r;
    r.student = "alice";
    r.lab = "02";
    r.grade = grade::Grade::Pass;
    r.kind = grade::Kind::Pass;
    r.points = 3;
    r.files_sha256 = grade::sha256_hex("x");
    const auto rows = grade::parse_gradebook(std::string(grade::kGradebookHeader) + "\n" + grade::csv_row(r) +
                                             grade::csv_total_row("alice", 3, 3, 1.5, 1));
    REQUIRE(rows.size() == 1);  // the total row is no lab's row
    CHECK(rows[0].points == 3);
    CHECK(rows[0].files_sha256 == r.files_sha256);
    CHECK(contains(grade::csv_row(r), ",3,3," + r.files_sha256));
    r.grade = grade::Grade::Fail;
    CHECK(contains(grade::csv_row(r), ",0,3,"));  // a failure earns none of its points
    const auto old = grade::parse_gradebook("student,lab,grade,kind,reason,seconds\nalice,02,pass,pass,,1.00\n");
    REQUIRE(old.size() == 1);
    CHECK(old[0].files_sha256.empty());
}

}  // TEST_SUITE("unit")

TEST_SUITE("grade") {

TEST_CASE("--resume grades again a student whose files changed, fixed or broken, and keeps the others") {
    TempDir dir;
    const fs::path klass = dir.path / "class";
    write_text(klass / "alice" / kLab01, solution(kLab01));
    write_text(klass / "alice" / kLab02, broken_02());
    write_text(klass / "bob" / kLab01, solution(kLab01));
    write_text(klass / "bob" / kLab02, solution(kLab02));
    const std::string csv = dir / "g.csv", junit = dir / "junit";
    const std::vector<std::string> args{"--class", klass.string(), "--labs", "01,02", "--quick",
                                        "--seed", "5", "--csv", csv, "--junit", junit, "-j", "2"};
    auto with = [&](const std::string &more) {
        auto a = args;
        a.push_back(more);
        return a;
    };
    const auto first = run_grader(args, 300);
    CAPTURE(first.out);
    CHECK(first.exit_code == 1);
    auto rows = cells(csv);
    REQUIRE(rows.size() == 4);
    CHECK(rows[{"alice", "02"}].kind == "compile-error");
    CHECK(rows[{"bob", "02"}].kind == "pass");
    CHECK(rows[{"bob", "02"}].sha256 == rows[{"bob", "01"}].sha256);
    CHECK(rows[{"bob", "02"}].sha256.size() == 64);
    const std::string bob_report = read_file(junit + "/bob.xml");
    CHECK(contains(bob_report, "\nrun: "));  // the commands run: the report's details
    const Row bob_02 = rows[{"bob", "02"}];

    // Nothing changed: every row kept, nothing graded again.
    const auto same = run_grader(with("--resume"), 300);
    CAPTURE(same.out);
    CHECK(same.exit_code == 1);
    CHECK(count(same.out, "(kept from the gradebook)") == 4);
    CHECK_FALSE(contains(same.out, "graded again"));

    // alice fixes lab 02: she is graded again, and says so; bob is kept, his report whole.
    write_text(klass / "alice" / kLab02, solution(kLab02));
    const auto fixed = run_grader(with("--resume"), 300);
    CAPTURE(fixed.out);
    CHECK(fixed.exit_code == 0);
    CHECK(contains(fixed.out, "alice: graded again: its files changed since its rows were graded"));
    CHECK_FALSE(contains(fixed.out, "bob: graded again"));
    CHECK(count(fixed.out, "(kept from the gradebook)") == 2);
    rows = cells(csv);
    REQUIRE(rows.size() == 4);
    CHECK(rows[{"alice", "02"}].kind == "pass");
    CHECK(rows[{"bob", "02"}].seconds == bob_02.seconds);  // kept, not graded again
    CHECK(rows[{"bob", "02"}].sha256 == bob_02.sha256);
    CHECK(read_file(junit + "/bob.xml") == bob_report);
    CHECK(contains(read_file(junit + "/alice.xml"), "\nrun: "));

    // bob breaks lab 02 after it passed: graded again, never a kept pass.
    write_text(klass / "bob" / kLab02, broken_02());
    const auto broken = run_grader(with("--resume"), 300);
    CAPTURE(broken.out);
    CHECK(broken.exit_code == 1);
    CHECK(contains(broken.out, "bob: graded again: its files changed"));
    CHECK_FALSE(contains(broken.out, "alice: graded again"));
    rows = cells(csv);
    CHECK(rows[{"bob", "02"}].kind == "compile-error");
    CHECK(rows[{"bob", "02"}].sha256 != bob_02.sha256);
    CHECK(rows[{"alice", "02"}].kind == "pass");

    // A gradebook an older grader wrote (no hash) is graded again whole, under the new header.
    std::string old = "student,lab,grade,kind,reason,seconds\n";
    for (const auto &[key, r] : rows) old += r.student + "," + r.lab + ",pass,pass,,1.00\n";
    { std::ofstream(csv, std::ios::trunc) << old; }
    const auto older = run_grader(with("--resume"), 300);
    CAPTURE(older.out);
    CHECK(older.exit_code == 1);
    CHECK(contains(older.out, "alice: graded again: its rows hold no hash"));
    CHECK(contains(older.out, "bob: graded again: its rows hold no hash"));
    rows = cells(csv);
    REQUIRE(rows.size() == 4);
    CHECK(rows[{"bob", "02"}].kind == "compile-error");
}

TEST_CASE("--resume on one student's folder keeps an unchanged pass and grades a broken kernel again") {
    TempDir dir;
    const fs::path mine = dir.path / "mine";
    write_text(mine / kLab01, solution(kLab01));
    const std::string csv = dir / "g.csv";
    const std::vector<std::string> args{"--kernels", mine.string(), "--labs", "01", "--quick", "--csv",
                                        csv, "--junit", dir / "junit", "--resume"};
    REQUIRE(run_grader(args, 300).exit_code == 0);
    const auto same = run_grader(args, 300);
    CHECK(same.exit_code == 0);
    CHECK(contains(same.out, "(kept from the gradebook)"));
    write_text(mine / kLab01, "kernel void broken( {\n");
    const auto broken = run_grader(args, 300);
    CAPTURE(broken.out);
    CHECK(broken.exit_code == 1);
    CHECK(contains(broken.out, "mine: graded again: its files changed"));
    CHECK(cells(csv).at({"mine", "01"}).kind == "compile-error");
}

TEST_CASE("one student's grading in their checkout writes nothing there unless asked, and grades afresh") {
    TempDir checkout;
    write_text(checkout.path / "kernels" / kLab01, solution(kLab01));
    const auto before = listing(checkout.path.string());
    const std::vector<std::string> args{"--kernels", "kernels", "--labs", "01", "--quick"};
    for (int run = 0; run < 2; ++run) {  // the second finds nothing of the first
        CAPTURE(run);
        const auto r = run_grader(args, 300, {}, checkout.path.string());
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        CHECK(contains(r.out, "1/1 passed\n"));
        CHECK_FALSE(contains(r.out + r.err, "--resume"));
        CHECK_FALSE(contains(r.out, "gradebook"));
        CHECK(listing(checkout.path.string()) == before);
    }
    // Asked, it writes: the check above sees a file the grader adds.
    const auto asked = run_grader({"--kernels", "kernels", "--labs", "01", "--quick", "--csv",
                                   "gradebook.csv"}, 300, {}, checkout.path.string());
    CHECK(asked.exit_code == 0);
    CHECK(listing(checkout.path.string()) != before);
    CHECK(cells((checkout.path / "gradebook.csv").string()).at({"kernels", "01"}).kind == "pass");
    // --resume without a gradebook to resume is refused, naming the fix.
    const auto resume = run_grader({"--kernels", "kernels", "--labs", "01", "--resume"}, 60, {},
                                   checkout.path.string());
    CHECK(resume.exit_code == 2);
    CHECK(contains(resume.err, "give --csv FILE too"));
}

TEST_CASE("--students grades those students again and keeps every other row as it is") {
    TempDir dir;
    const fs::path klass = dir.path / "class";
    for (const char *s : {"alice", "bob"}) write_text(klass / s / kLab01, solution(kLab01));
    const std::string csv = dir / "g.csv", junit = dir / "junit";
    const std::vector<std::string> args{"--class", klass.string(), "--labs", "01", "--quick",
                                        "--seed", "5", "--csv", csv, "--junit", junit, "-j", "1"};
    auto with = [&](std::vector<std::string> more) {
        auto a = args;
        a.insert(a.end(), more.begin(), more.end());
        return a;
    };
    REQUIRE(run_grader(args, 300).exit_code == 0);
    const auto before = cells(csv);
    const std::string bob_report = read_file(junit + "/bob.xml");

    // A name that is no student's folder, or --students without a class: one line, exit 2.
    const auto nobody = run_grader(with({"--students", "alice,nobody"}), 60);
    CHECK(nobody.exit_code == 2);
    CHECK(test::line_count(nobody.err) == 1);
    CHECK(contains(nobody.err, "'nobody' is no student folder"));
    const auto one = run_grader({"--kernels", (klass / "alice").string(), "--labs", "01", "--quick",
                                 "--students", "alice", "--csv", dir / "k.csv", "--junit", dir / "kj"}, 60);
    CHECK(one.exit_code == 2);
    CHECK(contains(one.err, "--students picks students of a class"));

    // alice unchanged is graded again all the same; bob, whose file broke, is kept as he was.
    write_text(klass / "bob" / kLab01, "kernel void broken( {\n");
    const auto again = run_grader(with({"--students", "alice"}), 300);
    CAPTURE(again.out);
    CAPTURE(again.err);
    CHECK(again.exit_code == 0);
    CHECK(contains(again.out, "alice: graded again: named by --students"));
    CHECK(contains(again.out, "1 student(s) --students does not name have rows of files that changed"));
    CHECK(count(again.out, "(kept from the gradebook)") == 1);  // bob's
    const auto after = cells(csv);
    REQUIRE(after.size() == 2);
    CHECK(after.at({"bob", "01"}).seconds == before.at({"bob", "01"}).seconds);
    CHECK(after.at({"bob", "01"}).kind == "pass");
    CHECK(after.at({"alice", "01"}).kind == "pass");
    CHECK(read_file(junit + "/bob.xml") == bob_report);
    // And --resume then grades bob's broken file.
    const auto resumed = run_grader(with({"--resume"}), 300);
    CHECK(resumed.exit_code == 1);
    CHECK(cells(csv).at({"bob", "01"}).kind == "compile-error");
}

TEST_CASE("a student graded in part keeps its kept labs' JUnit test cases whole") {
    TempDir dir;
    const fs::path klass = dir.path / "class";
    for (const char *s : {"alice", "bob"}) {
        write_text(klass / s / kLab01, solution(kLab01));
        write_text(klass / s / kLab02, solution(kLab02));
    }
    const std::string csv = dir / "g.csv", junit = dir / "junit";
    auto args = [&](const std::string &labs) {
        return std::vector<std::string>{"--class", klass.string(), "--labs", labs, "--quick", "--seed", "5",
                                        "--csv", csv, "--junit", junit, "-j", "1", "--resume"};
    };
    REQUIRE(run_grader(args("01"), 300).exit_code == 0);
    const auto first = grade::junit_cases(read_file(junit + "/alice.xml"));
    REQUIRE(first.count("01"));
    CHECK(contains(first.at("01"), "\nrun: "));
    // Lab 02 added to the same gradebook: lab 01's rows kept, lab 02's graded.
    const auto more = run_grader(args("01,02"), 300);
    CAPTURE(more.out);
    CHECK(more.exit_code == 0);
    CHECK(count(more.out, "(kept from the gradebook)") == 2);
    const auto both = grade::junit_cases(read_file(junit + "/alice.xml"));
    REQUIRE(both.count("01"));
    REQUIRE(both.count("02"));
    CHECK(both.at("01") == first.at("01"));  // the kept test case, its details with it
    CHECK(contains(both.at("02"), "\nrun: "));
    CHECK(contains(read_file(junit + "/alice.xml"), "tests=\"2\""));
}

TEST_CASE("a class's files in folders below and misnamed ones are found and noted, with points and totals") {
    TempDir dir;
    const fs::path klass = dir.path / "class";
    write_text(klass / "frank" / "my-labs" / kLab01, solution(kLab01));  // an unpacked archive
    write_text(klass / "frank" / "my-labs" / "lab02" / kLab02, solution(kLab02));
    write_text(klass / "gina" / kLab01, solution(kLab01));
    write_text(klass / "gina" / "lab2.cl", solution(kLab02));  // named as no lab
    write_text(klass / "henry" / kLab01, solution(kLab01));   // the twins: nothing to note
    write_text(klass / "henry" / kLab02, broken_02());
    const std::string csv = dir / "g.csv", junit = dir / "junit";
    const auto r = run_grader({"--class", klass.string(), "--labs", "01,02", "--quick", "--seed", "5",
                               "--points", "02=3", "--csv", csv, "--junit", junit, "-j", "2"}, 300);
    CAPTURE(r.out);
    CAPTURE(r.err);
    CHECK(r.exit_code == 1);
    auto rows = cells(csv);
    REQUIRE(rows.size() == 6);
    CHECK(rows[{"frank", "01"}].kind == "pass");
    CHECK(rows[{"frank", "02"}].kind == "pass");
    CHECK(rows[{"gina", "02"}].kind == "missing");
    const std::string note = "lab2.cl is named as no lab: rename it 02_host_final_sum.cl";
    CHECK(contains(rows[{"gina", "02"}].reason, note));
    CHECK(contains(read_file(junit + "/gina.xml"), note));
    CHECK(contains(r.out, note));
    CHECK_FALSE(contains(rows[{"gina", "01"}].reason, "named as no lab"));
    CHECK_FALSE(contains(read_file(junit + "/henry.xml"), "named as no lab"));
    CHECK(rows[{"henry", "02"}].kind == "compile-error");

    // Points per lab (--points 02=3) and each student's total row after their labs.
    CHECK(rows[{"frank", "02"}].points == "3");
    CHECK(rows[{"frank", "02"}].max_points == "3");
    CHECK(rows[{"henry", "02"}].points == "0");
    CHECK(rows[{"henry", "02"}].max_points == "3");
    CHECK(rows[{"henry", "01"}].points == "1");
    std::map<std::string, Row> totals;
    std::vector<std::string> order;
    for (const auto &row : read_gradebook(csv, true)) {
        order.push_back(row.student + " " + row.lab);
        if (row.lab == "total") totals[row.student] = row;
    }
    CHECK(order == std::vector<std::string>{"frank 01", "frank 02", "frank total", "gina 01", "gina 02",
                                            "gina total", "henry 01", "henry 02", "henry total"});
    CHECK(totals["frank"].points == "4");
    CHECK(totals["frank"].max_points == "4");
    CHECK(totals["gina"].points == "1");
    CHECK(totals["henry"].points == "1");
    CHECK(totals["henry"].max_points == "4");
    CHECK(totals["henry"].grade.empty());
}

}  // TEST_SUITE("grade")
