// synclab-grade and the names and bytes a submission controls: every sub-folder of a class gets
// its rows (a hidden one, or one whose name holds a control byte or is not UTF-8, refused with
// what to do), and no control byte nor byte that is not UTF-8 goes raw into the gradebook, the
// JUnit reports or a platform's results, while UTF-8 text stays as it was.
#include <doctest/doctest.h>

#include <cctype>
#include <filesystem>
#include <optional>
#include <set>
#include <unistd.h>

#include "grade/record_csv.hpp"
#include "grade/record_junit.hpp"
#include "grade/submission_files.hpp"  // sha256_hex
#include "grade/text_escape.hpp"
#include "grade_support.hpp"

using namespace gradetest;

namespace {

const std::string kLab01 = "01_workgroup_reduce.cl";

// Valid UTF-8 holding no control character but tab and line feed: what XML 1.0, JSON, a
// spreadsheet and a terminal all take as it is.
bool clean(const std::string &text) {
    for (std::size_t i = 0, n = 0; i < text.size(); i += n) {
        n = grade::utf8_length(text, i);
        if (n == 0) return false;
        const auto c = static_cast<unsigned char>(text[i]);
        if (n == 1 && ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)) return false;
    }
    return true;
}

// tests/check_results.py on a file: `schema` a platform's schema, or "--junit" (a strict XML
// parse). None when it cannot run here (python3 or python3-jsonschema missing).
std::optional<bool> well_formed(const std::string &schema, const std::string &file) {
    synclab::ProcessLimits limits;
    limits.timeout_s = 60;
    const auto p = synclab::run_process({test::source("tests/check_results.py"), schema, file}, {},
                                        limits);
    if (!p.exited || p.exit_code == 2 || p.exit_code == 127) {
        MESSAGE("not checked by tests/check_results.py: " << p.err);
        return std::nullopt;
    }
    CAPTURE(p.err);
    return p.exit_code == 0;
}


int count(const std::string &text, const std::string &needle) {
    int n = 0;
    for (std::size_t at = 0; (at = text.find(needle, at)) != std::string::npos; at += needle.size()) ++n;
    return n;
}

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("a folder's name is shown as it is when plain, and otherwise escaped on one line, one to one") {
    for (const std::string plain : {"alice", "bob-2_x.y", "Zoë ✓ 学生", "a b,\"c\""}) {
        CAPTURE(plain);
        CHECK(grade::shown(plain) == plain);
        CHECK(grade::name_flaw(plain).empty());
    }
    const std::vector<std::pair<std::string, std::string>> escaped{
        {"esc\x1b[31mred", "esc\\x1b[31mred"},
        {"new\nline\r", "new\\nline\\r"},
        {"tab\there", "tab\\x09here"},
        {"bad\xff", "bad\\xff"},
        {"over\xc0\xaflong", "over\\xc0\\xaflong"},
        {"cut\xe2\x9c", "cut\\xe2\\x9c"},
        {"c1\xc2\x9b", "c1\\xc2\\x9b"},  // a C1 control character, CSI on some terminals
        {"back\\slash", "back\\\\slash"},
    };
    for (const auto &[name, want] : escaped) {
        CAPTURE(name);
        CHECK(grade::shown(name) == want);
        CHECK(clean(grade::shown(name)));
    }
    CHECK(grade::name_flaw("esc\x1b[31m") == "a control character (\\x1b)");
    CHECK(grade::name_flaw("bad\xff") == "a byte that is not UTF-8 (\\xff)");
    CHECK(grade::name_flaw("back\\slash").empty());  // graded; only shown with its \ doubled
    // No two folders read the same: --resume finds each one's rows by its shown name.
    const std::vector<std::string> alike{"a\x1b", "a\\x1b", "a\\\x1b", "a\\\\x1b", "a\\n", "a\n"};
    std::set<std::string> seen;
    for (const auto &name : alike) seen.insert(grade::shown(name));
    CHECK(seen.size() == alike.size());
}

TEST_CASE("a record's text keeps UTF-8, tabs and line breaks, and escapes control bytes and bytes that are not UTF-8") {
    const std::string utf8 = "Zoë says ✓\tok\nnext C:\\path \xf0\x9f\x98\x80";
    CHECK(grade::shown_text(utf8) == utf8);
    CHECK(grade::shown_text(utf8, true) == utf8);
    const std::string raw = std::string("raw \xff\xfe esc \x1b[31m bell \x07 del \x7f cr \r nul ") +
                            '\0' + " cut \xe2\x9c";
    const std::string want =
        "raw \\xff\\xfe esc \\x1b[31m bell \\x07 del \\x7f cr \\x0d nul \\x00 cut \\xe2\\x9c";
    CHECK(grade::shown_text(raw) == want);
    CHECK(clean(grade::shown_text(raw)));
    // U+FFFF is UTF-8 but no XML character.
    CHECK(grade::shown_text("\xef\xbf\xbf") == "\xef\xbf\xbf");
    CHECK(grade::shown_text("\xef\xbf\xbf", true) == "\\xef\\xbf\\xbf");
}

TEST_CASE("a JUnit file's name is its folder's alone: plain lower case as it is, any other readable with a hash of the exact name") {
    CHECK(grade::file_name("alice") == "alice");
    CHECK(grade::file_name("bob-2_x.y") == "bob-2_x.y");
    // UTF-8 letters stay (no more "Zo__"); a name not plain lower-case ASCII gets '+' and 10 hex
    // digits of its own SHA-256, so names a file system folds together (case, Unicode forms) do not.
    const std::string zoe = grade::file_name("Zoë");
    CHECK(zoe == "Zoë+" + grade::sha256_hex("Zoë").substr(0, 10));
    CHECK(grade::file_name("学生") .rfind("学生+", 0) == 0);
    const std::string nfd = "Zoe\xcc\x88";  // the same name in another Unicode form
    CHECK(grade::file_name(nfd) != zoe);
    // Unsafe characters become '_', and the hash keeps apart names the '_' would make one.
    CHECK(grade::file_name("a b").rfind("a_b+", 0) == 0);
    CHECK(grade::file_name("a/b").rfind("a_b+", 0) == 0);
    CHECK(grade::file_name("a b") != grade::file_name("a/b"));
    CHECK(grade::file_name("a b") != grade::file_name("a_b"));
    CHECK(grade::file_name("esc\x1b[31m").rfind("esc__31m+", 0) == 0);
    CHECK(grade::file_name(".hidden").rfind("_.hidden+", 0) == 0);
    // Two names that differ only in case never share a file where case is ignored.
    std::string ann = grade::file_name("Ann"), lower = grade::file_name("ann");
    for (auto &c : ann) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    CHECK(lower == "ann");
    CHECK(ann != lower);
    // A name of 255 bytes still gives a file name a file system takes.
    CHECK(grade::file_name(std::string(255, 'x')).size() + 4 <= 255);
    CHECK(grade::file_name(std::string(254, 'x')) != grade::file_name(std::string(255, 'x')));
}

}  // TEST_SUITE("unit")

TEST_SUITE("grade") {

TEST_CASE("every folder of a class gets its rows: a hidden or badly named one is refused with what to do, beside ones graded as usual") {
    TempDir dir;
    const fs::path klass = dir.path / "class";
    copy_fixture("correct_for_loop", klass / "good");
    copy_fixture("correct_for_loop", klass / "Zoë");  // UTF-8: graded, and written as it is
    copy_fixture("correct_for_loop", klass / ".hidden");
    copy_fixture("correct_for_loop", klass / "esc\x1b[31m");
    copy_fixture("correct_for_loop", klass / "bad\xff");
    std::ofstream(klass / "notes.txt") << "not a submission\n";
    const bool as_root = geteuid() == 0;  // root reads any folder: no unreadable one to make
    if (!as_root) {
        copy_fixture("correct_for_loop", klass / "locked");
        fs::permissions(klass / "locked", fs::perms::none);
    }
    const std::string csv = dir / "g.csv", junit = dir / "junit";
    const std::vector<std::string> args{"--class", klass.string(), "--labs", "01", "--quick",
                                        "--csv", csv, "--junit", junit};
    const auto r = run_grader(args, 300);
    if (!as_root) fs::permissions(klass / "locked", fs::perms::owner_all);
    CAPTURE(r.out);
    CAPTURE(r.err);
    CHECK(r.exit_code == 1);

    // Every folder has its row, the refused ones saying why and what to do in one line.
    const std::string book = read_file(csv);
    CAPTURE(book);
    auto rows = rows_by_student(csv);
    std::map<std::string, std::pair<std::string, std::string>> want{
        {"good", {"pass", ""}},
        {"Zoë", {"pass", ""}},
        {".hidden", {"refused", "starts with '.'"}},
        {"esc\\x1b[31m", {"refused", "a control character (\\x1b)"}},
        {"bad\\xff", {"refused", "not UTF-8 (\\xff)"}}};
    if (!as_root) want["locked"] = {"refused", "cannot be read"};
    CHECK(rows.size() == want.size());
    for (const auto &[name, kind_and_words] : want) {
        CAPTURE(name);
        REQUIRE(rows.count(name));
        const grade::Result &row = rows.at(name);
        CHECK(grade::name(row.kind) == kind_and_words.first);
        CHECK(contains(row.reason, kind_and_words.second));
        CHECK(test::line_count(row.reason) <= 1);
        if (row.kind == grade::Kind::Refused)
            CHECK((contains(row.reason, "rename") || contains(row.reason, "readable")));
    }
    // The plain file is no student, and is said to be none.
    CHECK(contains(r.out, "not graded: 1 file(s)"));
    CHECK(contains(r.out, "notes.txt"));

    // Nothing raw in the gradebook, the console or a JUnit report; each report is XML.
    CHECK(clean(book));
    CHECK(book.find('\x1b') == std::string::npos);
    CHECK(contains(book, "\nZoë,01,pass"));
    CHECK(r.out.find('\x1b') == std::string::npos);
    int reports = 0;
    for (const auto &e : fs::directory_iterator(junit)) {
        CAPTURE(e.path());
        const std::string xml = read_file(e.path().string());
        CHECK(clean(xml));
        if (const auto ok = well_formed("--junit", e.path().string())) CHECK(*ok);
        ++reports;
    }
    CHECK(reports == static_cast<int>(want.size()));
    CHECK(contains(read_file(junit + "/" + grade::file_name("esc\x1b[31m") + ".xml"),
                   "<testsuite name=\"esc\\x1b[31m\""));
    CHECK(fs::exists(junit + "/" + grade::file_name("Zoë") + ".xml"));

    // --resume finds every row again, escaped names too: nothing graded twice or added.
    std::vector<std::string> again_args = args;
    again_args.push_back("--resume");
    const auto again = run_grader(again_args, 120);
    CAPTURE(again.out);
    CHECK(again.exit_code == 1);
    CHECK(rows_by_student(csv).size() == want.size());
    CHECK(count(again.out, "(kept from the gradebook)\n") == static_cast<int>(want.size()));
}

TEST_CASE("a class whose only folder is hidden fails with its row, and passes once renamed as the row says") {
    TempDir dir;
    const fs::path klass = dir.path / "class";
    copy_fixture("correct_for_loop", klass / ".alice");
    auto grade_it = [&](const std::string &csv) {
        return run_grader({"--class", klass.string(), "--labs", "01", "--quick", "--csv", dir / csv,
                           "--junit", dir / "junit"});
    };
    const auto hidden = grade_it("hidden.csv");
    CAPTURE(hidden.out);
    CAPTURE(hidden.err);
    CHECK(hidden.exit_code == 1);  // never 0 with no row
    auto rows = rows_by_student(dir / "hidden.csv");
    REQUIRE(rows.size() == 1);
    CHECK(rows.at(".alice").kind == grade::Kind::Refused);
    CHECK(contains(rows.at(".alice").reason, "rename it without the leading '.'"));
    CHECK(contains(hidden.out, ".alice, lab 01: FAIL refused"));

    fs::rename(klass / ".alice", klass / "alice");
    const auto renamed = grade_it("renamed.csv");
    CAPTURE(renamed.out);
    CHECK(renamed.exit_code == 0);
    rows = rows_by_student(dir / "renamed.csv");
    REQUIRE(rows.size() == 1);
    CHECK(rows.at("alice").kind == grade::Kind::Pass);
}

TEST_CASE("a kernel that prints bytes that are not UTF-8 and control bytes leaves well-formed JUnit XML and valid platform JSON, and its UTF-8 as it was") {
    TempDir dir;
    const fs::path klass = dir.path / "class";
    const std::string wrong = test::fixture("constant_answer") + "/" + kLab01;  // a wrong answer
    with_code_at_end(wrong,
                     "    if (get_global_id(0) == 0) printf(\"raw \\xff\\xfe esc \\x1b[31m bell "
                     "\\x07 del \\x7f end\\n\");\n",
                     klass / "bytes");
    with_code_at_end(wrong, "    if (get_global_id(0) == 0) printf(\"Zoë says ✓\\n\");\n",
                     klass / "utf8");
    const std::string junit = dir / "junit";
    const auto r = run_grader({"--class", klass.string(), "--labs", "01", "--quick", "--csv",
                               dir / "g.csv", "--junit", junit});
    CAPTURE(r.out);
    CAPTURE(r.err);
    CHECK(r.exit_code == 1);
    const std::string bytes_xml = read_file(junit + "/bytes.xml");
    const std::string utf8_xml = read_file(junit + "/utf8.xml");
    CAPTURE(bytes_xml);
    // The printed line is in the report, escaped where XML cannot hold it.
    CHECK(contains(bytes_xml, "raw \\xff\\xfe esc \\x1b[31m bell \\x07 del \\x7f end"));
    CHECK(clean(bytes_xml));
    CHECK(contains(utf8_xml, "Zoë says ✓"));
    for (const char *file : {"/bytes.xml", "/utf8.xml"})
        if (const auto ok = well_formed("--junit", junit + file)) CHECK(*ok);

    // The same kernel for a platform: its results are valid JSON (UTF-8) under its schema.
    const std::string both = read_file(klass / "bytes" / kLab01);
    std::ofstream(klass / "bytes" / kLab01)
        << both.substr(0, both.rfind('}'))
        << "    if (get_global_id(0) == 0) printf(\"Zoë says ✓\\n\");\n}\n";
    const std::string gradescope = dir / "gradescope.json", prairielearn = dir / "pl.json";
    const auto one = run_grader({"--kernels", (klass / "bytes").string(), "--labs", "01", "--quick",
                                 "--csv", dir / "one.csv", "--junit", dir / "junit-one",
                                 "--gradescope", gradescope, "--prairielearn", prairielearn});
    CAPTURE(one.out);
    CHECK(one.exit_code == 1);
    for (const auto &[schema, file] :
         {std::pair{"classroom/gradescope/results.schema.json", gradescope},
          std::pair{"classroom/prairielearn/results.schema.json", prairielearn}}) {
        CAPTURE(file);
        const std::string json = read_file(file);
        CAPTURE(json);
        CHECK(clean(json));
        CHECK(contains(json, "Zoë says ✓"));
        if (const auto ok = well_formed(test::source(schema), file)) CHECK(*ok);
    }
}

// "a b" and "a_b" once shared a name's file by who else was in the class: with a_b gone, "a b"
// took a_b.xml and wrote over the leaver's report.
TEST_CASE("JUnit file names stay when a student is added or leaves, and a leaver's report is never written over") {
    TempDir dir;
    const fs::path klass = dir.path / "class";
    for (const char *s : {"a b", "a_b", "Zoë"}) copy_fixture("correct_for_loop", klass / s);
    const std::string junit = dir / "junit";
    auto grade_class = [&](const std::string &csv) {
        const auto r = run_grader({"--class", klass.string(), "--labs", "01", "--quick", "--csv",
                                   dir / csv, "--junit", junit, "-j", "2"});
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
    };
    auto files = [&] {
        std::set<std::string> out;
        for (const auto &e : fs::directory_iterator(junit)) out.insert(e.path().filename().string());
        return out;
    };
    grade_class("first.csv");
    const std::set<std::string> first = files();
    CHECK(first == std::set<std::string>{grade::file_name("a b") + ".xml", "a_b.xml",
                                         grade::file_name("Zoë") + ".xml"});
    const std::string leaver = read_file(junit + "/a_b.xml");
    CHECK(contains(leaver, "<testsuite name=\"a_b\""));

    // a_b leaves and bob joins: the others keep their files, and a_b's report stays as it was.
    fs::remove_all(klass / "a_b");
    copy_fixture("correct_for_loop", klass / "bob");
    grade_class("second.csv");
    std::set<std::string> want = first;
    want.insert("bob.xml");
    CHECK(files() == want);
    CHECK(read_file(junit + "/a_b.xml") == leaver);
    CHECK(contains(read_file(junit + "/" + grade::file_name("a b") + ".xml"), "<testsuite name=\"a b\""));
}

}  // TEST_SUITE("grade")
