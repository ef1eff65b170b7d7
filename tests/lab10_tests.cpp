// lab10_laplace: every variant bit for bit equal to the host's sweeps on POCL at grids that are
// and are not multiples of the block, 3x3 and one block; the harmonic problem converges to
// x^2 - y^2; Oclgrind reports the tiled kernel without its barrier while the solution is clean;
// a hard-coded block is caught; bad input refused; the plot script draws both pictures.
// Timings are never asserted.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>
#include <unistd.h>

#include "support.hpp"
#include "10_laplace/jacobi.hpp"
#include "synclab/bandwidth.hpp"

namespace fs = std::filesystem;
using test::run_lab;

static const std::string kLab = "lab10_laplace";
static const std::string kGraded = "naive,tiled,rows,rows4,persistent";

static int count(const std::string &text, const std::string &word) {
    int n = 0;
    for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
    return n;
}

TEST_SUITE("lab") {

TEST_CASE("lab10 every variant equals the host bit for bit on grids that are and are not multiples of the block") {
    const std::vector<std::vector<std::string>> grids{
        {"--grid", "67x45", "--sweeps", "20"},                     // neither a multiple of 16x4
        {"--grid", "67x45", "--wg", "32", "--sweeps", "20"},       // 32x1, the lecture's 32:1
        {"--grid", "3x3", "--sweeps", "5"},                        // one interior point
        {"--grid", "16x4", "--sweeps", "9"},                       // one block exactly
        {"--grid", "37x29", "--block", "4x2", "--sweeps", "12", "--rows", "3"}};
    for (const auto &g : grids) {
        std::vector<std::string> a{"--kernels", test::source("solutions"), "--variant", kGraded};
        a.insert(a.end(), g.begin(), g.end());
        const auto r = run_lab(kLab, a);
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        CHECK(count(r.out, "verified") == 5);
        CHECK(r.out.find("blocks of " + std::string(g[2] == "--wg" ? "32x1" : g[2] == "--block" ? "4x2" : "16x4")) != std::string::npos);
    }
    // The starter's stencil is a TODO: every variant WRONG, naming the first point.
    const auto starter = run_lab(kLab, {"--kernels", test::source("kernels"), "--variant", kGraded,
                                        "--grid", "3x3", "--sweeps", "2"});
    CAPTURE(starter.out);
    CHECK(starter.exit_code == 1);
    CHECK(count(starter.out, "WRONG: 1 points, first (1, 1)") == 5);
}

// jacobiBands: a band of whole rows a thread, as a CPU streams it; measured, not graded (its
// discovery and barrier are persistent's), and right on every grid all the same.
TEST_CASE("lab10 bands: each resident group sweeps a band of rows, bit for bit on every grid, and Oclgrind finds its race without the barrier and none with it") {
    const std::vector<std::vector<std::string>> grids{
        {"--grid", "67x45", "--sweeps", "20"}, {"--grid", "3x3", "--sweeps", "5"},
        {"--grid", "16x4", "--sweeps", "9"}, {"--grid", "37x29", "--sweeps", "12"}};
    for (const auto &g : grids) {
        std::vector<std::string> a{"--kernels", test::source("solutions"), "--variant", "bands"};
        a.insert(a.end(), g.begin(), g.end());
        const auto r = run_lab(kLab, a);
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        CHECK(std::regex_search(r.out, std::regex(R"(\njacobiBands \(bands\) +1x1 .* verified\n)")));
        CHECK(r.out.find("groups resident, a band of about") != std::string::npos);
    }
    const auto starter = run_lab(kLab, {"--kernels", test::source("kernels"), "--variant", "bands",
                                        "--grid", "3x3", "--sweeps", "2"});
    CAPTURE(starter.out);
    CHECK(starter.exit_code == 1);
    CHECK(count(starter.out, "WRONG: 1 points, first (1, 1)") == 1);
    if (!test::have_oclgrind()) return;
    // On Oclgrind four groups meet (the lab's oclgrind_groups), so the bands' edges are judged.
    const std::vector<std::string> og{"--device", "oclgrind", "--variant", "bands", "--grid", "9x13", "--sweeps", "3"};
    std::vector<std::string> right{"--kernels", test::source("solutions")};
    right.insert(right.end(), og.begin(), og.end());
    const auto clean = run_lab(kLab, right);
    CAPTURE(clean.out);
    CHECK(clean.exit_code == 0);
    CHECK(clean.out.find("bands: 4 of") != std::string::npos);
    CHECK(clean.out.find("Oclgrind: no data race") != std::string::npos);
    // The same kernel with no barrier between sweeps: a group reads its neighbours' rows while
    // they write them.
    const std::string racy = test::mutated("10_laplace.cl", "ok = grid_barrier(flags, ctl, me, parts, s + 1, budget, &go);", "ok = 1;");
    std::vector<std::string> wrong{"--kernels", racy};
    wrong.insert(wrong.end(), og.begin(), og.end());
    const auto race = run_lab(kLab, wrong);
    CAPTURE(race.out);
    CHECK(race.exit_code == 1);
    CHECK(race.out.find("memory-model race in kernel jacobiBands") != std::string::npos);
    fs::remove_all(racy);
}

// jacobiTemporal: fuse sweeps a pass, each one's expression the single sweep's, so every pass
// count, remainder pass, band and block gives the host's floats; its race twin on Oclgrind.
TEST_CASE("lab10 temporal: fuse sweeps a pass equal the host bit for bit, and Oclgrind finds its race without the barrier and none with it") {
    const std::vector<std::vector<std::string>> grids{
        {"--grid", "67x45", "--block", "4x2", "--sweeps", "20"},         // fuse 3, a pass of 2 last
        {"--grid", "67x45", "--wg", "32", "--sweeps", "20", "--band", "5"},
        {"--grid", "3x3", "--sweeps", "5"},
        {"--grid", "16x4", "--sweeps", "9"},
        {"--grid", "37x29", "--block", "8x4", "--sweeps", "31", "--fuse", "15", "--band", "7"},
        {"--grid", "37x29", "--block", "4x2", "--sweeps", "12", "--fuse", "1", "--band", "1"}};
    for (const auto &g : grids) {
        std::vector<std::string> a{"--kernels", test::source("solutions"), "--variant", "rows,temporal"};
        a.insert(a.end(), g.begin(), g.end());
        const auto r = run_lab(kLab, a);
        CAPTURE(r.out);
        CAPTURE(r.err);
        CHECK(r.exit_code == 0);
        CHECK(std::regex_search(r.out, std::regex(R"(\njacobiTemporal \(temporal\) .* verified\n)")));
        CHECK(std::regex_search(r.out, std::regex(R"(\ntemporal: [0-9]+ sweeps a pass \(--fuse\))")));
        CHECK(std::regex_search(r.out, std::regex(R"(jacobiRows \(rows\) [0-9]+ sweeps/s: [0-9.]+x\n)")));
    }
    const auto starter = run_lab(kLab, {"--kernels", test::source("kernels"), "--variant", "temporal",
                                        "--grid", "3x3", "--sweeps", "2"});
    CAPTURE(starter.out);
    CHECK(starter.exit_code == 1);
    CHECK(starter.out.find("jacobiTemporal (temporal)") != std::string::npos);
    CHECK(count(starter.out, "WRONG") == 1);
    if (!test::have_oclgrind()) return;
    const std::vector<std::string> og{"--device", "oclgrind", "--variant", "temporal", "--grid", "16x12", "--block", "8x4"};
    std::vector<std::string> right{"--kernels", test::source("solutions")};
    right.insert(right.end(), og.begin(), og.end());
    const auto clean = run_lab(kLab, right);
    CAPTURE(clean.out);
    CHECK(clean.exit_code == 0);
    CHECK(clean.out.find("Oclgrind: no data race") != std::string::npos);
    // Without the barrier a work-item reads its neighbours' lines while they write them.
    const std::string racy = test::mutated(
        "10_laplace.cl", "barrier(CLK_LOCAL_MEM_FENCE);  // every line of this step written", "// ");
    std::vector<std::string> wrong{"--kernels", racy};
    wrong.insert(wrong.end(), og.begin(), og.end());
    const auto race = run_lab(kLab, wrong);
    CAPTURE(race.out);
    CHECK(race.exit_code == 1);
    CHECK(race.out.find("data race in kernel jacobiTemporal") != std::string::npos);
    fs::remove_all(racy);
}

TEST_CASE("lab10 the harmonic problem converges: the residual shrinks to 0 and the error to the tolerance") {
    const auto r = run_lab(kLab, {"--kernels", test::source("solutions"), "--variant", "naive,rows",
                                  "--grid", "17x13", "--sweeps", "1500", "--every", "100",
                                  "--tolerance", "1e-5"});
    CAPTURE(r.out);
    CHECK(r.exit_code == 0);
    CHECK(count(r.out, "verified, |u - exact| <= ") == 2);
    // The convergence table: residuals never grow, and the last is exactly 0 (a float fixed point).
    std::vector<double> residual;
    const std::regex row("^([0-9]+) +([-0-9.e+]+) +([-0-9.e+]+)$");
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (std::regex_match(line, m, row)) residual.push_back(std::stod(m[2]));
    }
    REQUIRE(residual.size() == 15);
    for (std::size_t k = 1; k < residual.size(); ++k) CHECK(residual[k] <= residual[k - 1]);
    CHECK(residual.back() == 0.0);
    // Too few sweeps to converge: the same tolerance fails.
    const auto early = run_lab(kLab, {"--kernels", test::source("solutions"), "--variant", "naive",
                                      "--grid", "17x13", "--sweeps", "50", "--tolerance", "1e-5"});
    CAPTURE(early.out);
    CHECK(early.exit_code == 1);
    CHECK(early.out.find("WRONG: not converged") != std::string::npos);
}

TEST_CASE("lab10 a block hard-coded as 16x4 is right at 16x4 and WRONG at 4x2") {
    const std::vector<std::string> base{"--kernels", test::fixture("hardcoded_block_10"),
                                        "--variant", "tiled", "--grid", "37x29", "--sweeps", "4"};
    CHECK(run_lab(kLab, base).exit_code == 0);
    auto small = base;
    small.insert(small.end(), {"--block", "4x2"});
    const auto r = run_lab(kLab, small);
    CAPTURE(r.out);
    CHECK(r.exit_code == 1);
    CHECK(r.out.find("WRONG") != std::string::npos);
    small[1] = test::source("solutions");
    CHECK(run_lab(kLab, small).exit_code == 0);
}

TEST_CASE("lab10 bad input exits 2 with one line naming the cause and the fix") {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{"--grid", "2x5"}, "use 3 to 32768"},
        {{"--grid", "1000000x3"}, "--grid 1000000x3 is out of range: use 3 to 32768"},
        {{"--grid", "64"}, "write it as WIDTHxHEIGHT"},
        {{"--block", "0x4"}, "e.g. --block 32x4"},
        {{"--block", "128x64"}, "more than this device's largest work-group"},
        {{"--wg", "8", "--block", "4x2"}, "use --block BXxBY alone"},
        {{"-n", "100"}, "use --grid 256x256"},
        {{"--rows", "0"}, "use 1 to 4096"},
        {{"--sweeps", "0"}, "use 1 to 1000000"},
        {{"--shapes", "8x8,wide"}, "--shapes 'wide' is not two sizes"},
        {{"--tolerance", "-1"}, "--tolerance must be 0 or more"},
        {{"--exact"}, "leave out --exact"},
        {{"--fuse", "0"}, "use 1 to 16 sweeps a pass"},
        {{"--fuse", "5", "--block", "4x2"}, "needs a block of more than 10 work-items"},
        {{"--band", "0"}, "use 1 to 32768 rows"},
    };
    for (const auto &[args, says] : cases) test::check_usage_error(kLab, args, says);
}

TEST_CASE("lab10 a shape too large for the device is said to be skipped, and the others run") {
    const auto r = run_lab(kLab, {"--kernels", test::source("solutions"), "--variant", "shapes",
                                  "--shapes", "100000x1,8x8", "--grid", "40x30", "--sweeps", "4"});
    CAPTURE(r.out);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("shape 100000x1 skipped: more work-items than this device's largest") !=
          std::string::npos);
    CHECK(std::regex_search(r.out, std::regex("jacobiNaive \\(shapes\\) +8x8 ")));
}

// The OpenMP peer runs where the copy probe does (the measured variant, shapes) on a CPU device,
// equals the host's sweeps bit for bit, and gives the best sweep's ratio to it; the graded
// variants alone run without it, as grading does.
TEST_CASE("lab10 on a CPU the OpenMP sweep is verified beside the measured shapes, and absent from graded runs") {
    for (const auto &d : test::dynamic_devices()) {
        CAPTURE(d.name);
        for (const bool shapes : {true, false}) {
            CAPTURE(shapes);
            // 37x29: rows and columns that are not multiples of a vector or a block.
            const auto r = run_lab(kLab, {"--device", d.spec(), "--kernels", test::source("solutions"),
                                          "--variant", shapes ? "shapes,naive" : kGraded, "--grid",
                                          "37x29", "--sweeps", "7", "--trials", "2"});
            CAPTURE(r.out);
            CHECK(r.exit_code == 0);
            const bool peer = shapes && d.is_cpu();
            // Its median beside the range of its runs, and the ratio only with them.
            const std::string runs = "median [0-9.]+ GB/s over 2 runs, [0-9.]+-[0-9.]+ GB/s"
                                     "(; spread wide: not a stable ratio)?";
            CHECK(std::regex_search(r.out, std::regex("\nOpenMP sweep +- +[0-9.]+ +[0-9.]+ +[0-9.]+ +- +"
                                                      "verified \\([0-9]+ threads, OMP_WAIT_POLICY=passive; " +
                                                      runs + "\\)\n")) == peer);
            CHECK(std::regex_search(r.out, std::regex("\nOpenMP sweep: " + runs + "; best sweep "
                                                      "[0-9.]+x its median\n")) == peer);
            CHECK((r.out.find("WRONG") == std::string::npos));
        }
    }
}

// median_run: runs made one after another, as once() returns them.
TEST_CASE("lab10 median_run checks every run, keeps the median time and the fewest groups, and returns the first wrong run") {
    using synclab::Run;
    auto runs = [](std::vector<Run> list) {
        return [list, k = std::size_t(0)]() mutable { return list.at(k++); };
    };
    auto run = [](double ms, std::size_t parts, std::size_t wrong = 0, std::string note = "") {
        Run r;
        r.ms = ms;
        r.parts = parts;
        r.wrong = wrong;
        r.stalled_before = std::move(note);
        return r;
    };
    // Right runs: the median of 9, 1, 5 is 5; 2 groups took part in the second; its note kept.
    Run r = synclab::median_run(3, runs({run(9, 4), run(1, 2, 0, "gave up"), run(5, 4)}));
    CHECK(r.ok());
    CHECK(r.ms == 5);
    CHECK(r.parts == 2);
    CHECK(r.stalled_before == "gave up");
    // A wrong third run is the outcome, though the first two were right; nothing runs after it.
    r = synclab::median_run(4, runs({run(9, 4), run(1, 4), run(5, 4, 7)}));
    CHECK_FALSE(r.ok());
    CHECK(r.wrong == 7);
    CHECK(r.ms == 5);
    // One trial: the run as it came.
    r = synclab::median_run(1, runs({run(3, 4)}));
    CHECK(r.ms == 3);
}

// In a lab run timed against the peers (the median of --trials runs), a wrong kernel is still wrong.
TEST_CASE("lab10 timed against the peers, a wrong sweep is wrong and a right one verified") {
    const std::string wrong =
        test::mutated("10_laplace.cl", "u2[id] = u1[id];  // Dirichlet: the boundary is copied",
                      "u2[id] = 0.0f;");
    for (const std::string &dir : {wrong, test::source("solutions")}) {
        CAPTURE(dir);
        const auto r = run_lab(kLab, {"--kernels", dir, "--variant", "shapes,naive", "--grid",
                                      "37x29", "--sweeps", "7", "--trials", "3"});
        CAPTURE(r.out);
        const bool right = dir != wrong;
        CHECK(r.exit_code == (right ? 0 : 1));
        CHECK(std::regex_search(r.out, std::regex("jacobiNaive \\(naive\\) .* verified")) == right);
        CHECK(std::regex_search(r.out, std::regex("jacobiNaive \\(naive\\) .* WRONG")) == !right);
    }
    fs::remove_all(wrong);
}

TEST_CASE("lab10 the plot script draws the block shapes' CSV and the heat map, or says how to install gnuplot") {
    const auto dir = fs::temp_directory_path() / ("synclab-lab10-plot-" + std::to_string(getpid()));
    fs::create_directories(dir);
    const auto csv = (dir / "shapes.csv").string(), heat = (dir / "heat.csv").string();
    REQUIRE(run_lab(kLab, {"--kernels", test::source("solutions"), "--variant", "shapes",
                           "--grid", "40x30", "--sweeps", "4", "--csv", csv, "--dump", heat})
                .exit_code == 0);
    for (const auto &in : {csv, heat}) test::check_plot("plot_10_laplace.sh", in, in + ".png");
    fs::remove_all(dir);
}

// On a CPU a persistent launch whose discovery let in fewer groups than the device has compute
// units says so and why. Discovery made to close its poll at the first registration (one group,
// every run): both persistent kernels say it and still verify; the solution says it exactly when
// its bands line counts fewer groups than compute units.
TEST_CASE("lab10 on a CPU fewer resident groups than compute units are explained, never silent") {
    for (const auto &d : test::dynamic_devices()) {
        if (!d.is_cpu() || d.compute_units < 2) continue;
        CAPTURE(d.name);
        const std::string cu = std::to_string(d.compute_units);
        const std::string one = test::mutated("10_laplace.cl",
                                              "const uint old = atomic_cmpxchg(&ctl[POLL], s, s + 1);",
                                              "const uint old = atomic_cmpxchg(&ctl[POLL], s, (s + 1) | CLOSED);");
        const std::vector<std::string> args{"--device", d.spec(), "--variant", "bands,persistent",
                                            "--grid", "64x48", "--sweeps", "4", "--trials", "1"};
        std::vector<std::string> first{"--kernels", one};
        first.insert(first.end(), args.begin(), args.end());
        const auto r = run_lab(kLab, first);
        fs::remove_all(one);
        CAPTURE(r.out);
        CHECK(r.exit_code == 0);
        for (const char *v : {"bands", "persistent"})
            CHECK(r.out.find(std::string(v) + ": 1 of ") != std::string::npos);
        CHECK(count(r.out, "groups took part, fewer than this device's " + cu + " compute units") == 2);
        std::vector<std::string> right{"--kernels", test::source("solutions")};
        right.insert(right.end(), args.begin(), args.end());
        const auto s = run_lab(kLab, right);
        CAPTURE(s.out);
        CHECK(s.exit_code == 0);
        std::smatch m;
        REQUIRE(std::regex_search(s.out, m, std::regex("\nbands: ([0-9]+) of [0-9]+ groups resident")));
        const bool fewer = std::stoul(m[1]) < d.compute_units;
        CHECK(std::regex_search(s.out, std::regex("\nbands: " + std::string(m[1]) +
                                                  " of [0-9]+ groups took part, fewer")) == fewer);
    }
}

}  // TEST_SUITE

TEST_SUITE("race") {

TEST_CASE("lab10 Oclgrind reports the tiled kernel without its barrier, and the solution is clean") {
    if (!test::have_oclgrind()) return;
    const std::vector<std::string> at{"--grid", "18x11", "--block", "8x4", "--sweeps", "2",
                                      "--variant", "tiled", "--kernels"};
    auto a = at;
    a.push_back(test::fixture("missing_tile_barrier_10"));
    const auto bad = test::run_on_oclgrind(kLab, a);
    CAPTURE(bad.process.out);
    CHECK(bad.process.exit_code == 1);
    CHECK(bad.process.out.find("data race in kernel jacobiTiled") != std::string::npos);
    CHECK(bad.process.out.find("reads local memory") != std::string::npos);
    a.back() = test::source("solutions");  // the twin: the solution
    const auto good = test::run_on_oclgrind(kLab, a);
    CAPTURE(good.process.out);
    CHECK(good.process.exit_code == 0);
    CHECK(good.process.out.find("data race in kernel") == std::string::npos);
    CHECK(good.process.out.find("Oclgrind: no data race") != std::string::npos);
}

TEST_CASE("lab10 Oclgrind reports a halo read past the grid, and the solution is clean") {
    if (!test::have_oclgrind()) return;
    // Whole blocks: the blocks' east and north edges lie on the grid's last column and row.
    std::vector<std::string> a{"--grid", "16x12", "--block", "8x4", "--sweeps", "2",
                               "--variant", "tiled", "--kernels", test::fixture("halo_past_grid_10")};
    const auto bad = test::run_on_oclgrind(kLab, a);
    CAPTURE(bad.process.out);
    CHECK(bad.process.exit_code == 1);
    CHECK(bad.process.out.find("out-of-bounds access in kernel jacobiTiled") != std::string::npos);
    a.back() = test::source("solutions");  // the twin: the solution
    const auto good = test::run_on_oclgrind(kLab, a);
    CAPTURE(good.process.out);
    CHECK(good.process.exit_code == 0);
    CHECK(good.process.out.find("out-of-bounds access in kernel") == std::string::npos);
}

}  // TEST_SUITE


TEST_SUITE("lab") {

// Every row's columns line up with the header's, whatever the kernel and variant are called.
TEST_CASE("lab09 and lab10 tables align their columns with the header") {
    auto aligned = [](const std::string &out, const std::string &header, const std::string &column) {
        std::istringstream in(out);
        std::string line;
        std::size_t end = std::string::npos;  // where the header's column ends
        int rows = 0;
        while (std::getline(in, line)) {
            if (line.rfind(header, 0) == 0) {
                end = line.find(column) + column.size();
                continue;
            }
            // A row: "kernel (variant)" first, then its numbers.
            if (end == std::string::npos || line.size() <= end || line.find(" (") >= end ||
                line.find(") ") >= end || line.find("not run") != std::string::npos)
                continue;
            CAPTURE(line);
            CHECK(std::isdigit(static_cast<unsigned char>(line[end - 1])));
            CHECK(line[end] == ' ');
            ++rows;
        }
        return rows;
    };
    const auto l10 = run_lab(kLab, {"--kernels", test::source("solutions"), "--grid", "40x24",
                                    "--sweeps", "2", "--variant", "naive,persistent"});
    CAPTURE(l10.out);
    CHECK(aligned(l10.out, "kernel (variant)", "ms") >= 2);
    const auto l09 = run_lab("lab09_interworkgroup_barrier",
                             {"--kernels", test::source("solutions"), "-n", "256", "--steps", "2",
                              "--variant", "relaunch,decentralized"});
    CAPTURE(l09.out);
    CHECK(aligned(l09.out, "kernel (method)", "groups") >= 3);
}

TEST_CASE("lab10 a sweep above the copy probe is told as the probe being no bound, never a share") {
    using synclab::copy_line;
    CHECK(copy_line(90.0, 120.0, "--grid") == "device copy: 120.00 GB/s; best sweep 90.00 GB/s = 75.0% of it");
    const std::string low = copy_line(7.25, 6.73, "--grid");
    CHECK(low.rfind("device copy: 6.73 GB/s, below the best sweep's 7.25 GB/s (107.7%)", 0) == 0);
    CHECK(low.find("no bound (a launch costs more than copying this little, or the sweeps find the grid in caches that one copy streams through); try a larger --grid") != std::string::npos);
    CHECK(copy_line(50.0, 50.0, "--grid").find("= 100.0% of it") != std::string::npos);  // equal is not above
}

}  // TEST_SUITE
