// What a graded kernel may observe of the check that runs it: nothing it computes may differ
// between POCL, Oclgrind and a GPU for the same inputs. A pointer's bits, arithmetic each
// implementation rounds its own way, compiler built-ins and the moment of the build are refused
// or fixed in the one program text (synclab/program_text.hpp, common/lab/src/ir_rules.cpp).
// Each refused kernel beside a twin that computes the same thing the defined way.
#include <doctest/doctest.h>

#include <algorithm>

#include "grade_support.hpp"
#include "synclab/errors.hpp"
#include "synclab/program_text.hpp"

using namespace gradetest;

namespace {

const std::string kLab01 = "01_workgroup_reduce.cl";
const std::string kBarrier = "barrier(CLK_LOCAL_MEM_FENCE);";

// Lab 01's solution with the first barrier of reduceWithSync written as `code` (which holds
// kBarrier where it still synchronises), and `head` before the first line.
std::string first_barrier(const std::string &code, const std::string &head = "") {
    std::string s = read_file(test::source("solutions/" + kLab01));
    const std::size_t at = s.find(kBarrier, s.find("scratch[id] = a[i] * b[i];"));
    REQUIRE(at != std::string::npos);
    return head + s.replace(at, kBarrier.size(), code);
}

// "01_workgroup_reduce.cl:N", N the line of that barrier: where a refusal names it.
std::string first_barrier_at() {
    const std::string s = first_barrier("@");
    return kLab01 + ":" + std::to_string(std::count(s.begin(), s.begin() + s.find('@'), '\n') + 1);
}

// The refusal program_text gives `source` (as lab 01's file), or "" when it takes it.
std::string refusal(const std::string &source) {
    TempDir dir;
    const fs::path kernel = dir.path / kLab01;
    write_text(kernel, source);
    try {
        synclab::program_text(kernel.string(), "", synclab::profiles().front());
    } catch (const synclab::RefusedSource &e) {
        return e.what();
    }
    return "";
}

const std::string B = kBarrier;

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("a kernel that reads a pointer's bits is refused, one that indexes is not") {
    // Oclgrind keeps a buffer's number in a pointer's top 16 bits, POCL a heap address.
    const std::vector<std::pair<std::string, std::string>> refused{
        {"cast", "if ((ulong)a >> 48) " + B},
        {"as_type", "if (as_ulong(a) >> 48) " + B},
        {"address read as a number", "__global const float *q = a; if (*(ulong *)&q >> 48) " + B},
        {"union", "union { __global const float *p; ulong u; } w; w.p = a; if (w.u >> 48) " + B},
        {"ordered", "if (a < b) " + B},
        {"difference", "if (b - a > 0) " + B},
        {"made from a number", "if (((__global float *)(ulong)7) != dot) " + B},
    };
    for (const auto &[what, code] : refused) {
        CAPTURE(what);
        const std::string why = refusal(first_barrier(code));
        CHECK(contains(why, first_barrier_at() + ": error:"));
        CHECK((contains(why, "pointer") || contains(why, "number")));
    }
    for (const std::string &twin :
         {"if (a != b) " + B, "{ __global const float *q = a + 1; if (q[-1] == a[0]) " + B + " }",
          "{ __global const uint *u = (__global const uint *)a; if (u[0] != 1u || 1) " + B + " }"}) {
        CAPTURE(twin);
        CHECK(refusal(first_barrier(twin)) == "");
    }
}

TEST_CASE("arithmetic an implementation rounds its own way is refused, and +, -, *, /, sqrt, fma are not") {
    const std::string third = "float t = 1.0f / get_local_size(0) * 3.0f;";
    const std::vector<std::pair<std::string, std::string>> refused{
        {"mad", first_barrier("if (mad(3.0f, 1.0f / 3.0f, -1.0f) != 0.0f) " + B)},
        {"mad24", first_barrier("if (mad24(id, 2, 1) > 0) " + B)},
        {"native_", first_barrier("if (native_recip(3.0f) != 1.0f / 3.0f) " + B)},
        {"half_", first_barrier("if (half_sqrt(2.0f) > 1.0f) " + B)},
        {"sin", first_barrier("if (sin(100.5f) < 0.0f) " + B)},
        {"pragma", first_barrier("{ " + third + " if (3.0f * t - 1.0f != 0.0f) " + B + " }",
                                 "#pragma OPENCL FP_CONTRACT ON\n")},
        {"clang pragma", first_barrier("{ " + third + " if (3.0f * t - 1.0f != 0.0f) " + B + " }",
                                       "#pragma clang fp contract(fast)\n")},
    };
    for (const auto &[what, source] : refused) {
        CAPTURE(what);
        const std::string why = refusal(source);
        CHECK(contains(why, kLab01 + ":"));
        CHECK(contains(why, "error:"));
    }
    CHECK(contains(refusal(refused[0].second), "fma(a, b, c)"));
    CHECK(contains(refusal(refused[5].second), "contraction"));
    for (const std::string &twin :
         {"if (fma(3.0f, 1.0f / 3.0f, -1.0f) != 0.0f || 1) " + B,
          "{ " + third + " if (3.0f * t - 1.0f != 0.5f) " + B + " }",
          "if (sqrt(2.0f) > 1.0f && 7.0f / 3.0f > 2.0f) " + B}) {
        CAPTURE(twin);
        CHECK(refusal(first_barrier(twin)) == "");
    }
}

TEST_CASE("compiler built-ins and inline assembly are refused") {
    CHECK(contains(refusal(first_barrier("if (__builtin_readcyclecounter() & 1) " + B)),
                   "readcyclecounter"));
    CHECK(contains(refusal(first_barrier("{ ulong t = 0; __asm__ volatile(\"rdtsc\" : \"=r\"(t)); "
                                         "if (t & 1) " + B + " }")),
                   "inline assembly"));
    CHECK(refusal(first_barrier("if (__builtin_expect(id, 0) >= 0) " + B)) == "");
}

TEST_CASE("the moment and place of a build are one value in every check's text") {
    TempDir a, b;
    const std::string source = "constant char when[] = __DATE__ \" \" __TIME__ \" \" __TIMESTAMP__;\n"
                               "constant char where[] = __FILE__;\n"
                               "kernel void k(global char *o) { o[0] = when[0] + where[0]; }\n";
    write_text(a.path / "x" / kLab01, source);
    write_text(b.path / "y" / "z" / kLab01, source);
    const std::string ta = synclab::program_text((a.path / "x" / kLab01).string(), "",
                                                 synclab::profiles().front());
    const std::string tb = synclab::program_text((b.path / "y" / "z" / kLab01).string(), "",
                                                 synclab::profiles().front());
    auto code = [](const std::string &t) {  // the text less its #line directives
        std::string out;
        std::istringstream in(t);
        for (std::string l; std::getline(in, l);)
            if (l.rfind("#line", 0) != 0) out += l + "\n";
        return out;
    };
    CHECK(code(ta) == code(tb));
    CHECK(contains(ta, "\"Jan  1 2000\" \" \" \"00:00:00\""));
    CHECK(contains(ta, "\"" + kLab01 + "\";"));
    // Contraction is off in every text, so a * b + c rounds twice on every device.
    CHECK(ta.rfind("#pragma OPENCL FP_CONTRACT OFF\n", 0) == 0);
}

}  // TEST_SUITE

TEST_SUITE("grade") {

TEST_CASE("kernels that would tell the checks apart are refused in a grading, and their twins pass") {
    TempDir dir;
    const fs::path klass = dir.path / "class";
    // Each skips its barriers only where a check looks away; each twin computes the same test
    // the defined way. `contracted` would be wrong on any device that fused 3 * t - 1: the text
    // turns contraction off on POCL and Oclgrind alike, so it passes both.
    const std::string third = "float t = 1.0f / 3.0f;";
    const std::map<std::string, std::pair<std::string, std::string>> students{
        {"pointer_bits", {first_barrier("if ((ulong)a >> 48) " + B), "refused"}},
        {"mad_test", {first_barrier("if (mad(3.0f, 1.0f / 3.0f, -1.0f) != 0.0f) " + B), "refused"}},
        {"contract_on",
         {first_barrier("{ " + third + " if (3.0f * t - 1.0f != 0.0f) " + B + " }",
                        "#pragma OPENCL FP_CONTRACT ON\n"),
          "refused"}},
        {"pointer_equal", {first_barrier("if (a != b) " + B), "pass"}},
        {"contracted",
         {first_barrier(B + " { " + third + " if (3.0f * t - 1.0f != 0.0f) scratch[id] = -1.0f; }"),
          "pass"}},
    };
    for (const auto &[name, s] : students) write_text(klass / name / kLab01, s.first);
    const std::string csv = dir / "g.csv";
    const auto r = run_grader({"--class", klass.string(), "--labs", "01", "--csv", csv}, 590);
    CAPTURE(r.out);
    CAPTURE(r.err);
    REQUIRE(r.exited);
    CHECK(r.exit_code == 1);
    const auto rows = by_student(read_gradebook(csv));
    for (const auto &[name, s] : students) {
        CAPTURE(name);
        REQUIRE(rows.count(name));
        CAPTURE(rows.at(name).reason);
        CHECK(rows.at(name).kind == s.second);
    }
    CHECK(contains(rows.at("pointer_bits").reason, first_barrier_at()));
}

}  // TEST_SUITE
