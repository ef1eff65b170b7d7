// lab05_divergence: every kernel's output checked on every device, a wrong branch caught, bad
// input refused. Timings are printed by the lab, never asserted here.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "support.hpp"

namespace fs = std::filesystem;
using test::run_lab;

static const std::string kLab = "lab05_divergence";

// Small and quick: 2048 items, 16 turns, one timed launch.
static std::vector<std::string> small(std::vector<std::string> args) {
    for (const char *a : {"-n", "2048", "--iters", "16", "--trials", "1", "--seed", "5"})
        args.push_back(a);
    return args;
}

static int count(const std::string &text, const std::string &word) {
    int n = 0;
    for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
    return n;
}

TEST_SUITE("lab") {

TEST_CASE("lab05 the solution verifies all six kernels and the k sweep on every device") {
    const auto csv = fs::temp_directory_path() / ("synclab-lab05-" + std::to_string(getpid()) + ".csv");
    for (const auto &d : test::dynamic_devices()) {
        CAPTURE(d.name);
        const auto r = run_lab(kLab, small({"--device", d.spec(), "--kernels",
                                            test::source("solutions"), "--csv", csv.string()}));
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        CHECK(count(r.out, "WRONG") == 0);
        CHECK(count(r.out, "verified") == 7 + 32);  // the table, then k = 1..32
        // Every theory names the model its ratio tests: oneExpensive against its twin lies
        // between its longest warp and the turns issued; against evenOddUniform it is the 32x.
        CHECK(r.out.find("evenOddUniform          ") != std::string::npos);
        CHECK(r.out.find("      2x  paths per warp ") != std::string::npos);
        CHECK(r.out.find("oneExpensiveUniform ") != std::string::npos);
        CHECK(r.out.find("   1-30x  longest warp .. turns issued ") != std::string::npos);
        CHECK(r.out.find("     32x  same turns, all lanes busy ") != std::string::npos);
        for (const char *k : {"evenOdd ", "evenOddUniform", "kWay ", "kWayUniform", "oneExpensive ",
                              "oneExpensiveUniform"})
            CHECK(r.out.find(k) != std::string::npos);

        std::ifstream in(csv);
        std::string line;
        std::getline(in, line);
        CHECK(line == "variant,k,n,wg,iters,simd,uniform_ms,divergent_ms,slowdown,theory,theory_low,"
                      "model,baseline,verified");
        int rows = 0, sweep = 0;
        while (std::getline(in, line)) {
            ++rows;
            sweep += line.rfind("kway_sweep,", 0) == 0;
            CHECK(line.substr(line.size() - 2) == ",1");  // verified
        }
        CHECK(rows == 4 + 32);  // the three pairs, oneExpensive against evenOddUniform, the sweep
        CHECK(sweep == 32);
    }
    fs::remove(csv);
}

TEST_CASE("lab05 other k and simd widths verify too") {
    for (const auto &args : std::vector<std::vector<std::string>>{
             {"-k", "32", "--simd", "16", "--wg", "32"},
             {"-k", "3", "--simd", "64", "--wg", "64", "--variant", "kway"},
             {"-k", "1", "--simd", "1", "--wg", "8"}}) {
        auto a = small(args);
        a.insert(a.end(), {"--kernels", test::source("solutions")});
        const auto r = run_lab(kLab, a);
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        CHECK(count(r.out, "WRONG") == 0);
    }
}

TEST_CASE("lab05 the starter's unfinished uniform kernels are WRONG with exit 1") {
    const auto r = run_lab(kLab, small({"--kernels", test::source("kernels")}));
    CAPTURE(r.out);
    CHECK(r.exit_code == 1);
    CHECK(count(r.out, "WRONG") == 3);  // the three *Uniform twins
    CHECK(count(r.out, "verified") == 3);  // the lecture's divergent kernels are given complete
}

TEST_CASE("lab05 a wrong branch is caught with exit 1 while the solution passes") {
    // evenOdd doing operation 0 on both sides has no divergence left: it must not win on time.
    for (const std::string variant : {"evenodd", "kway"}) {
        CAPTURE(variant);
        const auto bad = run_lab(kLab, small({"--kernels", test::fixture("divergence_wrong_branch"),
                                              "--variant", variant, "-k", "8"}));
        CAPTURE(bad.out);
        CHECK(bad.exit_code == 1);
        CHECK(count(bad.out, "WRONG") == (variant == "kway" ? 2 : 1));  // kWay and its twin share the switch
        const auto good = run_lab(kLab, small({"--kernels", test::source("solutions"), "--variant",
                                               variant, "-k", "8"}));
        CHECK(good.exit_code == 0);
        CHECK(count(good.out, "WRONG") == 0);
    }
    // k = 5 never reaches case 5: the checker blames only what ran.
    const auto r = run_lab(kLab, small({"--kernels", test::fixture("divergence_wrong_branch"),
                                        "--variant", "kway", "-k", "5"}));
    CHECK(r.exit_code == 0);
    const auto e = run_lab(kLab, small({"--kernels", test::fixture("divergence_wrong_branch"),
                                        "--variant", "expensive"}));
    CHECK(e.exit_code == 0);
}

TEST_CASE("lab05 a hard-coded 32, 64 or local id is right at the defaults and wrong elsewhere") {
    // fixture -> a --simd/--wg pair where it is wrong (every one is right at the defaults).
    const std::vector<std::pair<std::string, std::vector<std::string>>> cases{
        {"hardcoded_simd_05", {"--simd", "8", "--wg", "64"}},
        {"local_id_05", {"--simd", "32", "--wg", "32"}},
        {"hardcoded_wg_05", {"--simd", "64", "--wg", "128"}},
    };
    for (const auto &d : test::dynamic_devices())
        for (const auto &[fixture, where] : cases) {
            CAPTURE(d.name);
            CAPTURE(fixture);
            const std::vector<std::string> at{"--device", d.spec(), "--kernels", test::fixture(fixture)};
            CHECK(run_lab(kLab, small(at)).exit_code == 0);
            auto args = at;
            args.insert(args.end(), where.begin(), where.end());
            const auto r = run_lab(kLab, small(args));
            CAPTURE(r.out);
            CHECK(r.exit_code == 1);
            CHECK(r.out.find("WRONG") != std::string::npos);
            args[3] = test::source("solutions");
            CHECK(run_lab(kLab, small(args)).exit_code == 0);
        }
}

TEST_CASE("lab05 bad input exits 2 with one line naming the cause and the fix") {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{"-k", "0"}, "use -k 1 to 32"},
        {{"-k", "33"}, "use -k 1 to 32"},
        {{"--iters", "0"}, "--iters 0 is out of range"},
        {{"--simd", "0"}, "--simd 0 is out of range"},
        {{"--wg", "48"}, "not a multiple of --simd 32"},
        {{"-n", "1000"}, "must be a multiple of the work-group size 64"},
        {{"--variant", "fast"}, "unknown --variant 'fast'"},
        {{"--groups", "4"}, "give the number of work-items with -n"},
        {{"-k", "many"}, "see --help"},
        {{"--exact"}, "leave out --exact"},
    };
    for (const auto &[args, says] : cases) test::check_usage_error(kLab, args, says);
}

TEST_CASE("lab05 the plot script draws the CSV or says how to install gnuplot") {
    const auto dir = fs::temp_directory_path() / ("synclab-lab05-plot-" + std::to_string(getpid()));
    fs::create_directories(dir);
    const auto csv = (dir / "sweep.csv").string(), png = (dir / "sweep.png").string();
    REQUIRE(run_lab(kLab, small({"--kernels", test::source("solutions"), "--variant", "kway",
                                 "--csv", csv})).exit_code == 0);
    test::check_plot("plot_05_divergence.sh", csv, png);
    fs::remove_all(dir);
}

}  // TEST_SUITE
