// One submission, one grade: every check of a graded lab compiles one program text, preprocessed
// by clang under a profile of real implementations' macros (synclab/program_text.hpp). A kernel
// cannot tell the checkers apart, nor include what was not handed in beside it, nor declare more
// __local memory than a GPU has. Each negative case beside a positive twin.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include "grade_support.hpp"
#include "synclab/errors.hpp"
#include "synclab/program_text.hpp"

using namespace gradetest;

namespace {

const std::string kLab01 = "01_workgroup_reduce.cl";
const std::string kBarrier = "barrier(CLK_LOCAL_MEM_FENCE);";


// Lab 01's solution with each barrier line wrapped in `open` ... #endif (with `otherwise` in
// its #else, when given).
std::string barriers_under(const std::string &open, const std::string &otherwise = "") {
    std::string s = read_file(test::source("solutions/" + kLab01)), out;
    std::istringstream in(s);
    int wrapped = 0;
    for (std::string l; std::getline(in, l);) {
        if (l.find(kBarrier) != std::string::npos && l.find("//") > l.find(kBarrier)) {
            out += open + "\n" + l + "\n" + (otherwise.empty() ? "" : "#else\n" + otherwise + "\n") + "#endif\n";
            ++wrapped;
        } else {
            out += l + "\n";
        }
    }
    REQUIRE(wrapped == 2);
    return out;
}

// Lab 01's solution with `text` at the top of the first kernel's body.
std::string declares(const std::string &text) {
    std::string s = read_file(test::source("solutions/" + kLab01));
    const std::size_t at = s.find('{', s.find("__kernel void reduceWithSync"));
    REQUIRE(at != std::string::npos);
    return s.insert(at + 1, "\n    " + text);
}

std::map<std::string, Row> rows_of(const std::string &csv) {
    std::map<std::string, Row> m;
    for (const Row &r : read_gradebook(csv)) m[r.student] = r;
    return m;
}

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("the preprocessor decides what a kernel includes, however the directive is spelt") {
    TempDir dir;
    const synclab::Profile &profile = synclab::profiles().front();
    const fs::path kernel = dir.path / "sub" / kLab01;
    write_text(dir.path / "sub" / "helpers.cl", "#define HELPER 1\n");
    write_text(dir.path / "secret.h", "#define SECRET 1\n");
    auto text_of = [&](const std::string &src) {
        write_text(kernel, src);
        return synclab::program_text(kernel.string(), "", profile);
    };
    // Allowed: the submission's own files, directives that read nothing, text that only looks
    // like an include.
    for (const std::string &src : std::vector<std::string>
         {"#include \"helpers.cl\"\nkernel void k() {}\n", "  #  include   \"helpers.cl\"  \n",
          "#define N 4\n#if N > 2\n#endif\nkernel void k() {\n#pragma unroll\n    for (int i = 0; i < N; ++i) {}\n}\n",
          "// #include \"/etc/passwd\"\n/* #include <secret> */\n",
          "constant char s[] = \"#include \\\"/etc/passwd\\\"\";\n"}) {
        CAPTURE(src);
        CHECK_NOTHROW(text_of(src));
    }
    // Refused: every spelling that reaches a file outside the folder.
    const std::string secret = (dir.path / "secret.h").string();
    for (const std::string &src : std::vector<std::string>
         {"#include \"" + secret + "\"\n", "\n#include \"../secret.h\"\n",
          "#define F \"" + secret + "\"\n#include F\n", "#inc\\\nlude \"" + secret + "\"\n",
          "#inc\\\f\nlude \"" + secret + "\"\n", "/**/#/**/include \"" + secret + "\"\n",
          "%:include \"" + secret + "\"\n", "int x;\r#include \"" + secret + "\"\r",
          "#warning /*\n#include \"" + secret + "\"\n#warning */\n", "\xef\xbb\xbf#include \"" + secret + "\"\n",
          "#import \"" + secret + "\"\n", "#include \"/nonexistent/x.h\"\n"}) {
        CAPTURE(src);
        CHECK_THROWS_AS(text_of(src), synclab::RefusedSource);
    }
    // A header of its own that reaches outside is refused as well.
    write_text(dir.path / "sub" / "helpers.cl", "#include \"../secret.h\"\n");
    CHECK_THROWS_AS(text_of("#include \"helpers.cl\"\n"), synclab::RefusedSource);
}

TEST_CASE("a graded text keeps the student's lines and hides every implementation's macro") {
    TempDir dir;
    const fs::path kernel = dir.path / kLab01;
    // A text that builds: every graded text is compiled to IR and checked (ir_rules).
    write_text(kernel, "#ifdef POCL_DEVICE_ADDRESS_BITS\nconstant int pocl = 1;\n#else\n"
                  "constant int neutral = 1;\n#endif\nconstant int v = __OPENCL_VERSION__;\n"
                  "int d(int POCL_DEVICE_ADDRESS_BITS, int __clang_major__) {\n"
                  "    return POCL_DEVICE_ADDRESS_BITS + __clang_major__;\n}\n");
    const synclab::Profile *p30 = synclab::find_profile("opencl-3.0");
    const synclab::Profile *p12 = synclab::find_profile("opencl-1.2");
    REQUIRE(p30);
    REQUIRE(p12);
    const std::string t30 = synclab::program_text(kernel.string(), "", *p30);
    const std::string t12 = synclab::program_text(kernel.string(), "", *p12);
    CHECK(contains(t30, "int neutral = 1;"));
    CHECK_FALSE(contains(t30, "int pocl = 1;"));
    CHECK(contains(t30, "int v = 300;"));
    CHECK(contains(t12, "int v = 120;"));
    // Names a compiler could still expand are undefined first; the student's lines stay theirs.
    CHECK(contains(t30, "#undef POCL_DEVICE_ADDRESS_BITS\n"));
    CHECK(contains(t30, "#undef __clang_major__\n"));
    CHECK(contains(t30, "int neutral = 1;"));
    const std::size_t at = t30.find("int neutral = 1;");
    const std::size_t line = t30.rfind("#line ", at);
    REQUIRE(line != std::string::npos);
    // clang's marker before it names line 4 of the file, or an earlier one with blank lines.
    CHECK(contains(t30.substr(line, at - line), kernel.filename().string()));
}

TEST_CASE("__local arrays are summed as the compiler lays them out, whatever the declaration's form") {
    TempDir dir;
    const synclab::Profile &profile = synclab::profiles().front();
    const fs::path kernel = dir.path / kLab01;
    auto refused = [&](const std::string &body) {
        write_text(kernel, "kernel void k(global float *x, local float *arg) {\n" + body +
                               "\n    x[0] = 0;\n}\n");
        try {
            synclab::program_text(kernel.string(), "", profile);
            return false;
        } catch (const synclab::BuildError &) {
            return true;
        }
    };
    // Within 48 KiB: plain arrays (read without compiling), and forms only the compiler sizes.
    for (const char *ok : {"local float s[256];", "__local volatile uint4 s[8][2];",
                                  "local unsigned int a[4096], b[4096];", "local float s[0x1000];",
                                  "local float s[12288];", "local float a[6144]; local float b[6144];",
                                  "typedef float row[16]; local row s[16];", "local float s[4 * 1024];",
                             "volatile local float *lanes = arg;", "local int last; local float s[12287];"}) {
        const std::string body = ok;
        CAPTURE(body);
        CHECK_FALSE(refused(body));
    }
    // Over it, by a plain array, by two together, and by every form the plain reading leaves to
    // the compiler: a second declarator, a typedef, an expression, octal, a struct, wrapping.
    for (const char *over : {"local float s[12289];", "local float a[8192]; local float b[8192];",
                                    "local float a[16], b[1 << 28];", "typedef float row[1 << 20]; local row s[1];",
                                    "local float s[3 * 1 << 20];", "local float s[0100000];",
                                    "local struct { float v[1 << 20]; } s;", "local float s[(1UL << 30) + 256];",
                                    "local double3 s[2048];", "local int last; local float s[12288];",
                                    "local float *p = arg, big[20000];"}) {
        const std::string body = over;
        CAPTURE(body);
        CHECK(refused(body));
    }
}

}  // TEST_SUITE

TEST_SUITE("grade") {

TEST_CASE("a graded kernel is one program text: no checker's macros, includes only beside it, __local within a GPU's") {
    TempDir dir;
    const fs::path klass = dir.path / "class";
    const fs::path secret = dir.path / "secret.h";
    const std::string token = "TOKEN_5c1e_NOT_FOR_STUDENTS";
    write_text(secret, "#define SECRET 1\nkernel void " + token + "( {\n");
    const std::string solution = read_file(test::source("solutions/" + kLab01));
    const std::map<std::string, std::pair<std::string, std::string>> students{
        // An implementation's own macro (POCL's) is defined under no check: the barriers it
        // guards are gone on POCL and on Oclgrind alike.
        {"pocl_macro_racy", {barriers_under("#ifdef POCL_DEVICE_ADDRESS_BITS"), "fail"}},
        {"pocl_macro_right", {barriers_under("#ifndef POCL_DEVICE_ADDRESS_BITS"), "pass"}},
        // __OPENCL_VERSION__ differs between real implementations (POCL 300, Oclgrind 120):
        // each text is graded, by every check.
        {"version_racy_on_1.2", {barriers_under("#if __OPENCL_VERSION__ >= 200"), "fail"}},
        {"version_right_on_both",
         {barriers_under("#if __OPENCL_VERSION__ >= 200",
                         "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"), "pass"}},
        // The grader skips the other profile's text only when no file beside the kernel names a
        // macro that differs: a name spliced across lines, pasted from parts, or named in a
        // header is still found.
        {"version_spliced_racy", {barriers_under("#if __OPENCL_\\\nVERSION__ >= 200"), "fail"}},
        {"version_pasted_racy",
         {"#define CAT(a, b) a##b\n" + barriers_under("#if CAT(__OPENCL_, VERSION__) >= 200"), "fail"}},
        {"version_in_header_racy", {"#include \"v.h\"\n" + barriers_under("#if NEW_ENOUGH"), "fail"}},
        // The stress machinery's macro is no more visible than an implementation's.
        {"stress_macro_racy", {barriers_under("#ifdef SYNCLAB_STRESS_CELL"), "fail"}},
        {"stress_macro_right", {barriers_under("#ifndef SYNCLAB_STRESS_CELL"), "pass"}},
        // __local arrays a GPU cannot give, used or not, and whatever the size wraps to.
        {"local_unused_1GiB", {declares("__local float big[1 << 28];"), "compile-error"}},
        {"local_wraps_2^32",
         {declares("__local float big[(1UL << 30) + 256]; big[get_local_id(0)] = 0;"), "compile-error"}},
        {"local_1KiB", {declares("__local float fine[256]; fine[get_local_id(0)] = 0;"), "pass"}},
        // Includes the preprocessor itself decides: three that got past a hand-written scanner,
        // two more forms, and the twin that includes its own helper.
        {"include_in_warning_comment",
         {"#warning /*\n#include \"" + secret.string() + "\"\n#warning */\n" + solution, "refused"}},
        {"include_formfeed_splice",
         {"#inc\\\f\nlude \"" + secret.string() + "\"\n" + solution, "refused"}},
        {"include_macro_name",
         {"#define F \"" + secret.string() + "\"\n#include F\n" + solution, "refused"}},
        {"include_up_a_folder", {"#include \"../../secret.h\"\n" + solution, "refused"}},
        {"include_etc_shadow", {"#include \"/etc/shadow\"\n" + solution, "refused"}},
        {"include_own_helper", {"#include \"helper.h\"\n" + solution, "pass"}},
    };
    for (const auto &[name, s] : students) write_text(klass / name / kLab01, s.first);
    write_text(klass / "include_own_helper" / "helper.h", "#define HELPER 1\n");
    write_text(klass / "version_in_header_racy" / "v.h", "#define NEW_ENOUGH (__OPENCL_VERSION__ >= 200)\n");
    // A header handed in beside the kernel, starting with a UTF-8 byte order mark.
    write_text(klass / "include_from_bom_header" / kLab01, "#include \"helper.h\"\n" + solution);
    write_text(klass / "include_from_bom_header" / "helper.h",
          "\xef\xbb\xbf#include \"" + secret.string() + "\"\n");
    const std::string csv = dir / "g.csv", junit = dir / "junit";
    const auto r = run_grader({"--class", klass.string(), "--labs", "01", "--timeout", "60",
                               "--csv", csv, "--junit", junit}, 590);
    CAPTURE(r.out);
    CAPTURE(r.err);
    REQUIRE(r.exited);
    CHECK(r.exit_code == 1);
    const auto rows = rows_of(csv);
    CHECK(rows.size() == students.size() + 1);
    for (const auto &[name, s] : students) {
        CAPTURE(name);
        REQUIRE(rows.count(name));
        CAPTURE(rows.at(name).reason);
        if (s.second == "fail") {  // wrong on POCL too, or only on Oclgrind: a race either way
            CHECK(rows.at(name).grade == "fail");
            CHECK(contains(rows.at(name).reason, "data race"));
        } else {
            CHECK(rows.at(name).kind == s.second);
        }
    }
    REQUIRE(rows.count("include_from_bom_header"));
    CHECK(rows.at("include_from_bom_header").kind == "refused");
    // The text that differs under OpenCL 1.2 is graded there, and the row says so.
    CHECK(contains(rows.at("version_racy_on_1.2").reason, "OpenCL 1.2"));
    CHECK(contains(rows.at("version_right_on_both").reason, "passed too"));
    for (const char *hidden : {"version_spliced_racy", "version_pasted_racy", "version_in_header_racy"})
        CHECK(contains(rows.at(hidden).reason, "OpenCL 1.2"));
    CHECK_FALSE(contains(rows.at("pocl_macro_right").reason, "differs"));
    CHECK(contains(rows.at("local_unused_1GiB").reason, "big"));
    CHECK(contains(rows.at("local_wraps_2^32").reason, "4294968320 bytes"));
    CHECK(contains(rows.at("include_in_warning_comment").reason, "refused"));
    // Nothing of the secret header, nor of /etc/shadow, in any output.
    const std::string all = everything(r, csv, junit);
    CHECK_FALSE(contains(all, token));
    std::ifstream shadow("/etc/shadow");
    std::string first;
    if (shadow && std::getline(shadow, first) && first.size() > 8) CHECK_FALSE(contains(all, first));
}

TEST_CASE("with the sandbox off, a kernel still includes only files beside it") {
    TempDir dir;
    const fs::path student = dir.path / "student";
    const std::string solution = test::source("solutions/" + kLab01);
    write_text(student / kLab01, "#include \"" + solution + "\"\n");
    const auto refused = run_grader({"--kernels", student.string(), "--labs", "01", "--quick",
                                     "--csv", dir / "a.csv", "--junit", dir / "ja"},
                                    170, {{"SYNCLAB_GRADE_SANDBOX", "off"}});
    CAPTURE(refused.out);
    CHECK(refused.exit_code == 1);
    const auto a = read_gradebook(dir / "a.csv");
    REQUIRE(a.size() == 1);
    CHECK(a[0].kind == "refused");
    // Its twin: the same solution handed in itself passes.
    write_text(student / kLab01, read_file(test::source("solutions/" + kLab01)));
    const auto passed = run_grader({"--kernels", student.string(), "--labs", "01", "--quick",
                                    "--csv", dir / "b.csv", "--junit", dir / "jb"},
                                   170, {{"SYNCLAB_GRADE_SANDBOX", "off"}});
    CAPTURE(passed.out);
    CHECK(passed.exit_code == 0);
    const auto b = read_gradebook(dir / "b.csv");
    REQUIRE(b.size() == 1);
    CHECK(b[0].kind == "pass");
}

}  // TEST_SUITE
