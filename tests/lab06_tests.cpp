// lab06_sum_triangle: every variant exact at the sizes that matter on every device, Oclgrind's
// word on a missing barrier and on a barrier that fences local memory only, sizes that must not
// be hard-coded, the sweep's CSV and plot, bad input refused.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "support.hpp"

namespace fs = std::filesystem;
using test::run_lab;

static const std::string kLab = "lab06_sum_triangle";
static const std::string kGraded = "triangle,odd,tree,groups";

static int count(const std::string &text, const std::string &word) {
    int n = 0;
    for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
    return n;
}

TEST_SUITE("lab") {

TEST_CASE("lab06 every variant is exact for N = 1, 11, a non-power-of-two and the largest group") {
    for (const auto &d : test::dynamic_devices()) {
        CAPTURE(d.name);
        const std::size_t largest = std::min<std::size_t>(d.max_wg, 4096);  // the lab's exact limit
        for (const std::size_t n : {std::size_t(1), std::size_t(11), std::size_t(300), largest}) {
            CAPTURE(n);
            const auto r = run_lab(kLab, {"--device", d.spec(), "--kernels", test::source("solutions"),
                                          "-n", std::to_string(n), "--wg", n < 64 ? "4" : "64",
                                          "--trials", "2", "--seed", "6", "--variant", kGraded});
            CAPTURE(r.out);
            CAPTURE(r.err);
            CHECK(r.exit_code == 0);
            CHECK(count(r.out, "2/2 trials verified") == 4);
            CHECK(count(r.out, "WRONG") == 0);
        }
    }
}

TEST_CASE("lab06 the starter's four TODO kernels are WRONG and its demonstrations are not" *
          doctest::description("the slides' slips left in the starter make V[N] stay NaN")) {
    const auto r = run_lab(kLab, {"--kernels", test::source("kernels"), "--trials", "1"});
    CAPTURE(r.out);
    CHECK(r.exit_code == 1);
    CHECK(count(r.out, "WRONG") == 4);
    for (const char *k : {"sumTriangle ", "sumTriangleOdd", "sumTriangleTree", "sumTriangleGroups"})
        CHECK(r.out.find(std::string(k)) != std::string::npos);
}

TEST_CASE("lab06 Oclgrind reports no barrier and a local-fence-only barrier, and the solution is clean") {
    if (!test::have_oclgrind()) return;
    const std::vector<std::string> at{"--device", "oclgrind", "-n", "37", "--wg", "16"};
    // The lab's own demonstrations, each asked for alone: a race in its kernel, exit 1.
    for (const std::string v : {"nobarrier", "localfence"}) {
        CAPTURE(v);
        auto a = at;
        a.insert(a.end(), {"--kernels", test::source("solutions"), "--variant", v});
        const auto r = run_lab(kLab, a);
        CAPTURE(r.out);
        CHECK(r.exit_code == 1);
        CHECK(r.out.find("data race in kernel sumTriangle" +
                         std::string(v == "nobarrier" ? "NoBarrier" : "LocalFence")) !=
              std::string::npos);
    }
    // The fixtures: the same kernels as the solution but for the barrier (none, or a local fence).
    for (const std::string f : {"missing_barrier_06", "local_fence_06"}) {
        CAPTURE(f);
        for (const std::string v : {"triangle", "odd", "groups"}) {
            CAPTURE(v);
            auto a = at;
            a.insert(a.end(), {"--kernels", test::fixture(f), "--variant", v});
            const auto bad = run_lab(kLab, a);
            CAPTURE(bad.out);
            CHECK(bad.exit_code == 1);
            CHECK(bad.out.find("data race in kernel sumTriangle") != std::string::npos);
            CHECK(bad.out.find("reads global memory") != std::string::npos);
            a[a.size() - 3] = test::source("solutions");  // the twin: the solution
            const auto good = run_lab(kLab, a);
            CAPTURE(good.out);
            CHECK(good.exit_code == 0);
            CHECK(good.out.find("data race in kernel") == std::string::npos);
            CHECK(good.out.find("Oclgrind: no data race") != std::string::npos);
        }
    }
}

TEST_CASE("lab06 a hard-coded 11 and a last group taken as full are right at 11 and wrong elsewhere") {
    const std::vector<std::pair<std::string, std::string>> cases{
        {"hardcoded_n_06", "triangle"}, {"full_last_group_06", "groups"}};
    for (const auto &[fixture, variant] : cases) {
        CAPTURE(fixture);
        const std::vector<std::string> base{"--kernels", test::fixture(fixture), "--variant",
                                            variant, "--trials", "1"};
        auto lecture = base;
        lecture.insert(lecture.end(), {"-n", "11", "--wg", "11"});
        CHECK(run_lab(kLab, lecture).exit_code == 0);
        auto other = base;
        other.insert(other.end(), {"-n", "200", "--wg", "64"});
        const auto r = run_lab(kLab, other);
        CAPTURE(r.out);
        CHECK(r.exit_code == 1);
        CHECK(r.out.find("WRONG") != std::string::npos);
        other[1] = test::source("solutions");
        CHECK(run_lab(kLab, other).exit_code == 0);
    }
}

TEST_CASE("lab06 --sweep writes one row per N and kernel, and the plot script draws it") {
    const auto dir = fs::temp_directory_path() / ("synclab-lab06-" + std::to_string(getpid()));
    fs::create_directories(dir);
    const auto csv = (dir / "sweep.csv").string(), png = (dir / "sweep.png").string();
    const auto r = run_lab(kLab, {"--kernels", test::source("solutions"), "--sweep", "-n", "64",
                                  "--trials", "3", "--variant", "nobarrier,localfence,triangle",
                                  "--csv", csv});
    CAPTURE(r.out);
    REQUIRE(r.exit_code == 0);
    std::ifstream in(csv);
    std::string line;
    std::getline(in, line);
    CHECK(line == "sweep,variant,n,wg,groups,trials,wrong_trials,wrong_rate,median_ms");
    int table = 0, sweep = 0;
    while (std::getline(in, line)) (line.rfind("1,", 0) == 0 ? sweep : table)++;
    CHECK(table == 3);
    CHECK(sweep == 3 * 11);  // N = 1, 2, 4, 8, 11, 16, 31, 32, 33, 48, 64
    test::check_plot("plot_06_sum_triangle.sh", csv, png);
    fs::remove_all(dir);
}

TEST_CASE("lab06 bad input exits 2 with one line naming the cause and the fix") {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{"-n", "5000"}, "use -n 4096 or less"},
        {{"--groups", "2"}, "give N with -n"},
        {{"-n", "4096", "--variant", "triangle", "--device", "oclgrind"}, "or --variant groups"},
        {{"--variant", "fast"}, "unknown --variant 'fast'"},
        {{"-n", "many"}, "see --help"},
    };
    for (const auto &[args, says] : cases) test::check_usage_error(kLab, args, says);
}

}  // TEST_SUITE
