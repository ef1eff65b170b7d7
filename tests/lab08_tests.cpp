// lab08_reduction_ladder: the bandwidth arithmetic, the copy and read probes and the host peers
// on their own; every rung right for awkward sizes on every device; the starter's unwritten rungs
// reported. Nothing here asserts a speed.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <unistd.h>

#include "08_reduction_ladder/cpu_peers.hpp"
#include "support.hpp"
#include "synclab/bandwidth.hpp"
#include "synclab/measure.hpp"
#include "synclab/reference.hpp"
#include "synclab/protocol.hpp"

namespace fs = std::filesystem;
using namespace synclab;

static const std::string kLab = "lab08_reduction_ladder";
static const char *kRungNames[] = {"v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8"};

// The table row of one rung ("v3   reduce_v3_sequential ... verified"), or "".
static std::string rung_row(const std::string &out, const std::string &rung) {
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);)
        if (line.rfind(rung + " ", 0) == 0) return line;
    return "";
}

static bool ends_with(const std::string &s, const std::string &tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

static double host_sum(const std::vector<float> &x, double *abs_sum) {
    double s = 0, a = 0;
    for (float v : x) s += v, a += std::fabs(v);
    *abs_sum = a;
    return s;
}

TEST_SUITE("unit") {

TEST_CASE("lab08 bandwidth arithmetic counts the bytes read and copied") {
    CHECK(reduce_bytes(1) == 4);
    CHECK(reduce_bytes(1000) == 4000);
    CHECK(copy_bytes(1000) == 8000);
    // 2^30 floats: 4 GiB read, 8 GiB copied, no 32-bit overflow.
    CHECK(reduce_bytes(std::size_t(1) << 30) == (std::uint64_t(1) << 32));
    CHECK(copy_bytes(std::size_t(1) << 30) == (std::uint64_t(1) << 33));
    // 4 * 10^9 bytes in 1000 ms is 4 GB/s; 8000 bytes in 1 microsecond is 8 GB/s.
    CHECK(gb_per_s(4000000000ull, 1000.0) == doctest::Approx(4.0));
    CHECK(gb_per_s(8000, 0.001) == doctest::Approx(8.0));
    CHECK(gb_per_s(8000, 0.0) == 0.0);
    CHECK(gb_per_s(8000, -1.0) == 0.0);
    CHECK(percent_of(45.0, 50.0) == doctest::Approx(90.0));
    CHECK(percent_of(120.0, 100.0) == doctest::Approx(120.0));
    CHECK(percent_of(1.0, 0.0) == 0.0);
    // A reduction reading n floats in the time a copy of n floats takes runs at 50% of it.
    const std::size_t n = 1 << 20;
    CHECK(percent_of(gb_per_s(reduce_bytes(n), 2.0), gb_per_s(copy_bytes(n), 2.0)) ==
          doctest::Approx(50.0));
}

TEST_CASE("lab08 copy probe copies every float and counts two bytes moved per byte read") {
    std::mt19937_64 rng(8);
    for (const auto &d : test::dynamic_devices()) {
        CAPTURE(d.name);
        Env env(d);
        for (std::size_t n : {std::size_t(1), std::size_t(1000003)}) {
            CAPTURE(n);
            const auto x = uniform(n, rng);
            cl::Buffer src(env.context, CL_MEM_READ_ONLY, n * sizeof(float));
            env.queue.enqueueWriteBuffer(src, CL_TRUE, 0, n * sizeof(float), x.data());
            const CopyProbe p = measure_copy(env, x, src, 2);
            CHECK(p.verified);
            CHECK(p.n == n);
            CHECK(p.bytes == 8 * n);
            CHECK(p.trials == 2);
            CHECK(p.ms > 0);
            CHECK(p.gbps == doctest::Approx(gb_per_s(p.bytes, p.ms)));
            // The check is real: a copy compared with different data is not verified.
            auto other = x;
            other[n / 2] += 1.0f;
            CHECK_FALSE(measure_copy(env, other, src, 1).verified);
        }
    }
}

TEST_CASE("lab08 read probe counts the bytes read once and checks its sum") {
    CHECK(read_bytes(1000) == 4000);
    CHECK(read_bytes(std::size_t(1) << 30) == (std::uint64_t(1) << 32));
    // A reduction read at the read probe's speed is 100% of it, and 50% of a copy that took as long.
    CHECK(percent_of(gb_per_s(reduce_bytes(4096), 1.0), gb_per_s(read_bytes(4096), 1.0)) ==
          doctest::Approx(100.0));
    std::mt19937_64 rng(81);
    for (const auto &d : test::dynamic_devices()) {
        CAPTURE(d.name);
        Env env(d);
        // 1 (no whole float4), 7 (a tail of 3), and many float4s past one per work-item.
        for (std::size_t n : {std::size_t(1), std::size_t(7), std::size_t(1000003)}) {
            CAPTURE(n);
            const auto x = uniform(n, rng);
            cl::Buffer src(env.context, CL_MEM_READ_ONLY, n * sizeof(float));
            env.queue.enqueueWriteBuffer(src, CL_TRUE, 0, n * sizeof(float), x.data());
            const Probe r = measure_read(env, x, src, 1);
            CHECK(r.verified);
            CHECK(r.bytes == 4 * n);
            CHECK(r.gbps == doctest::Approx(gb_per_s(r.bytes, r.ms)));
            CHECK(r.shape.groups >= 1);
            // A CPU also tries float16 loads and keeps the faster kernel; a GPU runs float4 alone.
            if (d.is_cpu()) CHECK((r.kernel == "readFloat4" || r.kernel == "readFloat16"));
            else CHECK(r.kernel == "readFloat4");
            // The check is real: a sum compared with other data is not verified.
            auto other = x;
            other[n / 2] += float(n);
            CHECK_FALSE(measure_read(env, other, src, 1).verified);
            const Probe c = measure_copy(env, x, src, 1);
            CHECK(c.verified);
            CHECK(c.bytes == 2 * r.bytes);
        }
    }
}

TEST_CASE("lab08 probe shapes follow the device class and cover every float4 once") {
    DeviceInfo gpu, cpu;
    gpu.compute_units = 132, gpu.max_wg = 1024;
    cpu.compute_units = 2, cpu.max_wg = 4096;
    cpu.type = "CPU";
    gpu.type = "GPU";
    const auto g = probe_shapes(gpu, std::size_t(1) << 26, 256);
    REQUIRE(g.size() == 3);
    CHECK(g[0].groups == 8 * 132);
    CHECK(g[1].groups == 32 * 132);
    CHECK(g[2].groups == (std::size_t(1) << 24) / 256);  // one float4 per work-item
    for (const auto &s : g) CHECK_FALSE(s.blocked);
    const auto c = probe_shapes(cpu, 1 << 20, 256);
    REQUIRE(c.size() == 3);
    CHECK(c[0].groups == 2);
    CHECK(c[1].groups == 8);
    CHECK(c[2].groups == 16);
    for (const auto &s : c) CHECK(s.blocked);
    // Tiny n: never more groups than float4s need, never none.
    for (const auto &s : probe_shapes(gpu, 3, 256)) CHECK(s.groups == 1);
    // Every float4 is touched exactly once, in both layouts, for awkward sizes.
    for (std::size_t units : {std::size_t(1), std::size_t(255), std::size_t(100003)})
        for (bool blocked : {false, true}) {
            const ProbeShape s{16, 7, blocked};
            const Stride st = stride_of(s, units);
            std::vector<int> seen(units, 0);
            for (std::size_t gid = 0; gid < s.groups * s.wg; ++gid) {
                const std::size_t first = gid * st.spread, end = std::min(units, first + st.span);
                for (std::size_t u = first; u < end; u += st.step) ++seen[u];
            }
            CAPTURE(units);
            CAPTURE(blocked);
            CHECK(std::count(seen.begin(), seen.end(), 1) == long(units));
        }
}

TEST_CASE("lab08 a rung above the read probe is told as a bound too low, never a success") {
    const std::string ok = best_line("v7", 90.0, 100.0, 120.0);
    CHECK(ok.rfind("best: v7 at 90.0 GB/s, 90.0% of the read bound", 0) == 0);
    CHECK(ok.find("75.0% of the copy's 120.0 GB/s") != std::string::npos);
    const std::string low = best_line("v7", 2974.0, 2733.0, 2399.0);
    CHECK(low.rfind("bound too low: v7 reads 2974.0 GB/s, 108.8% of the read probe's 2733.0 GB/s", 0) == 0);
    CHECK(low.find("best:") == std::string::npos);
    CHECK(best_line("v7", 100.0, 100.0, 50.0).rfind("best:", 0) == 0);  // equal is not above
}

TEST_CASE("lab08 host peers match the double sum for awkward sizes and thread counts") {
    std::mt19937_64 rng(80);
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(31), std::size_t(129),
                          std::size_t(1000003)}) {
        const auto x = uniform(n, rng);
        double abs_sum = 0;
        const double want = host_sum(x, &abs_sum);
        for (unsigned threads : {1u, 3u, 0u}) {
            CAPTURE(n);
            CAPTURE(threads);
            CHECK(within(host_parallel_sum(x, threads), want,
                        tolerance(n, abs_sum, host_serial(n, threads))));
            if (openmp_built_in())  // in double: the tightest tolerance holds
                CHECK(within(openmp_sum(x, threads), want, tolerance(n, abs_sum, 1)));
        }
        if (n > 100) {
            // A peer that lost one thread's chunk would be caught.
            std::vector<float> half(x.begin(), x.begin() + n / 2);
            CHECK_FALSE(within(host_parallel_sum(half, 2), want,
                              tolerance(n, abs_sum, host_serial(n, 2))));
            if (openmp_built_in())
                CHECK_FALSE(within(openmp_sum(half, 2), want, tolerance(n, abs_sum, 1)));
        }
    }
    // The build that tests run is the lab's: OpenMP is found on the machines the project names.
    CHECK(openmp_built_in());
    const std::vector<float> x(4096, 0.5f);
    for (const HostPeer &p : {time_threads_sum(x, 3, 2), time_openmp_sum(x, 3, 2)}) {
        CAPTURE(p.name);
        CHECK(p.threads == 2);
        CHECK(p.value == 2048.0);
        CHECK(p.fastest_ms > 0);
        CHECK(p.fastest_ms <= p.ms);
        CHECK(p.gbps == doctest::Approx(gb_per_s(reduce_bytes(x.size()), p.ms)));
        CHECK(p.fastest_gbps == doctest::Approx(gb_per_s(reduce_bytes(x.size()), p.fastest_ms)));
        CHECK(p.how.find("2 ") == 0);
    }
}

TEST_CASE("lab08 a host peer whose sum is wrong is reported with both values, a right one verified") {
    std::mt19937_64 rng(82);
    const std::size_t n = 100003;
    const auto x = uniform(n, rng);
    double abs_sum = 0, abs_half = 0;
    const double want = host_sum(x, &abs_sum);
    for (HostPeer p : {time_threads_sum(x, 1, 2), time_openmp_sum(x, 1, 2)}) {
        CAPTURE(p.name);
        check_peer(p, n, want, abs_sum);
        CHECK(p.verified);
        CHECK(p.wrong.empty());
        // The same peer without its second thread's chunk.
        const double right = p.value;
        p.value = host_sum(std::vector<float>(x.begin(), x.begin() + n / 2), &abs_half);
        check_peer(p, n, want, abs_sum);
        CHECK_FALSE(p.verified);
        CHECK(p.wrong.find("want") != std::string::npos);
        CHECK(p.wrong.find("tolerance") != std::string::npos);
        // And right again: a check that only ever fails would pass this test's first half.
        p.value = right;
        check_peer(p, n, want, abs_sum);
        CHECK(p.verified);
    }
}

// A peer's range: its median with the runs' ends, flagged as no stable ratio when the slowest
// run took over 1.5 times the fastest; within that, not flagged.
TEST_CASE("lab08 a peer's spread gives its median and range, and flags a wide one") {
    const std::uint64_t bytes = 4000000;  // 4 MB: 1 ms is 4 GB/s
    const Spread narrow = spread_of({1.0, 1.4, 1.2, 1.1, 1.3});
    CHECK(narrow.median == 1.2);
    CHECK(narrow.low == 1.0);
    CHECK(narrow.high == 1.4);
    CHECK(narrow.runs == 5);
    CHECK_FALSE(narrow.wide());
    CHECK(gbps_spread(bytes, narrow) == "median 3.3 GB/s over 5 runs, 2.9-4.0 GB/s");
    const Spread wide = spread_of({1.0, 40.0, 1.2, 20.0, 1.1});
    CHECK(wide.wide());
    CHECK(gbps_spread(bytes, wide) ==
          "median 3.3 GB/s over 5 runs, 0.1-4.0 GB/s; spread wide: not a stable ratio");
    CHECK(spread_flag(narrow).empty());
    CHECK_FALSE(spread_of({}).wide());
}

}  // TEST_SUITE unit

TEST_SUITE("lab") {

// On a CPU: the bound line names the probe it took, both host peers have a verified row, and no
// peer row is above 100 % of the bound (its median is never above its fastest run, which the
// bound counts). Elsewhere, none of it.
static void check_host_peers(const std::string &out, bool cpu) {
    CHECK((out.find("bound: read = ") != std::string::npos) == cpu);
    for (const char *peer : {"OpenMP", "std::threads"}) {
        CAPTURE(peer);
        const std::string row = rung_row(out, std::string("peer ") + peer);
        CHECK(row.empty() == !cpu);
        CHECK((out.find(std::string("host peer ") + peer + " (") != std::string::npos) == cpu);
        if (row.empty()) continue;
        CAPTURE(row);
        // The median with the range of its runs beside it, flagged when that is wide.
        CHECK(std::regex_search(row, std::regex("  verified \\(median [0-9.]+ GB/s over [0-9]+ runs?, "
                                                "[0-9.]+-[0-9.]+ GB/s(; spread wide: not a stable ratio)?\\)$")));
        std::istringstream cells(row.substr(4 + 1 + 22));  // past "peer" and the kernel column
        std::string passes, groups;
        double ms = 0, gbps = -1, pct_read = 0;
        cells >> passes >> groups >> ms >> gbps >> pct_read;
        CHECK(ms > 0);
        CHECK(gbps >= 0);
        CHECK(pct_read <= 100.0);
    }
}

TEST_CASE("lab08 solution: every rung verified for awkward n on every device") {
    // 1; a non-power-of-two that is not a multiple of the work-group; more than 2^24.
    const std::vector<std::string> sizes{"1", "1000", "1000003", std::to_string((1 << 24) + 13)};
    for (const auto &d : test::dynamic_devices()) {
        for (const auto &n : sizes) {
            std::vector<std::vector<std::string>> runs{{}};
            if (n == "1000003") runs = {{"--layout", "interleaved"}, {"--layout", "blocked", "--wg", "64"}};
            for (const auto &extra : runs) {
                std::vector<std::string> args{"--device", d.spec(), "--kernels",
                                              test::source("solutions"), "-n", n, "--trials", "1",
                                              "--seed", "8"};
                args.insert(args.end(), extra.begin(), extra.end());
                const auto r = test::run_lab(kLab, args);
                CAPTURE(d.name);
                CAPTURE(n);
                CAPTURE(r.out);
                CAPTURE(r.err);
                CHECK(r.exit_code == 0);
                for (const char *rung : kRungNames) {
                    CAPTURE(rung);
                    CHECK(ends_with(rung_row(r.out, rung), "verified"));
                }
                CHECK(r.out.find("bound: read probe") != std::string::npos);
                CHECK(r.out.find("beside it: copy probe") != std::string::npos);
                CHECK(r.out.find("CLBlast: ") != std::string::npos);
                check_host_peers(r.out, d.is_cpu());
            }
        }
    }
}

TEST_CASE("lab08 starter: v1 to v3 verified and the TODO rungs reported not written with exit 1") {
    for (const auto &d : test::dynamic_devices()) {
        const auto r = test::run_lab(kLab, {"--device", d.spec(), "-n", "5000", "--trials", "1"},
                                     {{synclab::protocol::kKernels, ""}});
        CAPTURE(d.name);
        CAPTURE(r.out);
        CHECK(r.exit_code == 1);
        for (const char *rung : {"v1", "v2", "v3"}) CHECK(ends_with(rung_row(r.out, rung), "verified"));
        for (const char *rung : {"v4", "v5", "v6", "v7", "v8"}) {
            CAPTURE(rung);
            CHECK(rung_row(r.out, rung).find("WRONG: no result") != std::string::npos);
            CHECK(rung_row(r.out, rung).find("not written yet") != std::string::npos);
        }
    }
}

TEST_CASE("lab08 a rung that drops elements is WRONG with its value and exit 1") {
    // The solution with v4's second load left out: every group misses half its elements.
    const fs::path dir = fs::temp_directory_path() / ("synclab-lab08-" + std::to_string(getpid()));
    fs::create_directories(dir);
    std::ifstream in(test::source("solutions/08_reduction_ladder.cl"));
    std::stringstream text;
    text << in.rdbuf();
    std::string src = text.str();
    const std::string load = "        p += x[i + wg];";
    REQUIRE(src.find(load) != std::string::npos);
    src.replace(src.find(load), load.size(), "        p += 0.0f;");
    std::ofstream(dir / "08_reduction_ladder.cl") << src;
    const auto r = test::run_lab(kLab, {"--kernels", dir.string(), "-n", "100000", "--trials", "1"});
    CAPTURE(r.out);
    CHECK(r.exit_code == 1);
    CHECK(rung_row(r.out, "v4").find("WRONG: ") != std::string::npos);
    CHECK(rung_row(r.out, "v4").find("want") != std::string::npos);
    CHECK(ends_with(rung_row(r.out, "v3"), "verified"));
    CHECK(ends_with(rung_row(r.out, "v5"), "verified"));
    // Alone, the intact rungs pass.
    CHECK(test::run_lab(kLab, {"--kernels", dir.string(), "-n", "100000", "--trials", "1",
                               "--variant", "v5"}).exit_code == 0);
    fs::remove_all(dir);
}

TEST_CASE("lab08 --exact: a v7 without its tail passes with U(0,1) floats and is WRONG exactly") {
    const std::string dir = test::fixture("v7_no_tail_08");
    for (const std::string seed : {"1", "2", "3"}) {  // three missing floats hide in the tolerance
        CAPTURE(seed);
        CHECK(test::run_lab(kLab, {"--kernels", dir, "--variant", "v7", "-n", "1000003",
                                   "--trials", "1", "--seed", seed}).exit_code == 0);
    }
    for (const std::string n : {"1", "50", "1000003"}) {  // n % 4 != 0: a tail to drop
        const auto r = test::run_lab(kLab, {"--kernels", dir, "--exact", "-n", n, "--wg", "64",
                                            "--trials", "1"});
        CAPTURE(n);
        CAPTURE(r.out);
        CHECK(r.exit_code == 1);
        CHECK(rung_row(r.out, "v7").find("tolerance 0); first wrong: pass 1 group 0:") !=
              std::string::npos);
        for (const char *rung : {"v1", "v2", "v3", "v4", "v5", "v6"}) CHECK(ends_with(rung_row(r.out, rung), "verified"));
    }
    // Every group's sum is checked, not only the total: with 1000 = 250 float4s there is no tail.
    const auto r = test::run_lab(kLab, {"--kernels", dir, "--exact", "-n", "1000", "--trials", "1"});
    CHECK(r.exit_code == 0);
}

TEST_CASE("lab08 --exact checks every group's sum of every pass, on every device") {
    for (const auto &d : test::dynamic_devices())
        for (const std::string layout : {"blocked", "interleaved"}) {
            const auto r = test::run_lab(kLab, {"--device", d.spec(), "--kernels",
                                                test::source("solutions"), "--exact", "-n", "70001",
                                                "--wg", "16", "--groups", "7", "--layout", layout,
                                                "--trials", "2"});
            CAPTURE(d.name);
            CAPTURE(r.out);
            CHECK(r.exit_code == 0);
            for (const char *rung : kRungNames) CHECK(ends_with(rung_row(r.out, rung), "verified"));
        }
}

TEST_CASE("lab08 a syntax error in the sub-group finish alone is a compile error at its line everywhere") {
    const std::string dir = test::fixture("subgroup_syntax_error_08");
    const int line = test::line_of(dir + "/08_reduction_ladder.cl", "wrong: no semicolon");
    REQUIRE(line > 0);
    std::vector<std::string> devices;
    for (const auto &d : test::dynamic_devices()) devices.push_back(d.spec());
    if (test::have_oclgrind()) devices.push_back("oclgrind");
    for (const auto &dev : devices) {
        CAPTURE(dev);
        test::check_usage_error(kLab, {"--device", dev, "--kernels", dir, "--variant", "v1", "-n", "100"},
                                "08_reduction_ladder.cl:" + std::to_string(line) + ":");
    }
    // Where it cannot run, the solution's sub-group finish is said to compile, never verified.
    const auto r = test::run_lab(kLab, {"--kernels", test::source("solutions"), "-n", "1000",
                                        "--trials", "1"});
    CHECK(r.exit_code == 0);
    if (r.out.find("v5-v8 finish: unrolled tree") != std::string::npos)
        CHECK(r.out.find("the sub-group finish is not checked on this device (") != std::string::npos);
}

TEST_CASE("lab08 bad input exits 2 with one line naming the fix") {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{"--wg", "100"}, "not a power of two"},
        {{"--layout", "diagonal"}, "unknown --layout 'diagonal'"},
        {{"-n", "4294967296"}, "or less"},
        {{"--per-cu", "0"}, "--per-cu"},
        {{"--variant", "v9"}, "unknown --variant 'v9'"},
        {{"--exact", "-n", "9000003"}, "use -n 5592405 or less, or leave out --exact"},
    };
    for (const auto &[args, says] : cases) {
        auto a = args;
        a.insert(a.end(), {"--kernels", test::source("solutions")});
        test::check_usage_error(kLab, a, says);
    }
}

TEST_CASE("lab08 --csv writes one row per rung beside the read and copy bandwidths and CLBlast") {
    const auto csv = fs::temp_directory_path() / ("synclab-lab08-" + std::to_string(getpid()) + ".csv");
    const auto r = test::run_lab(kLab, {"--kernels", test::source("solutions"), "-n", "100000",
                                        "--trials", "2", "--csv", csv.string()});
    CHECK(r.exit_code == 0);
    std::ifstream in(csv);
    std::string line;
    std::getline(in, line);
    CHECK(line == "rung,kernel,device,n,wg,passes,groups,layout,trials,median_ms,gbps,read_gbps,"
                  "pct_of_read,copy_gbps,pct_of_copy,clblast_gbps,x_clblast,host_gbps,pct_of_host,"
                  "verified");
    int rows = 0;
    for (; std::getline(in, line); ++rows) {
        CAPTURE(line);
        CHECK(line.rfind(kRungNames[rows], 0) == 0);
        CHECK(ends_with(line, ",yes"));
    }
    CHECK(rows == int(std::size(kRungNames)));
    fs::remove(csv);
}

// A GPU's CSV has no host column and a CPU's has one; CLBlast may be absent: each series is drawn
// only where its column has values, and the script must succeed either way.
TEST_CASE("lab08 the plot script draws a GPU's and a CPU's CSV") {
    const auto dir = fs::temp_directory_path() / ("synclab-lab08-plot-" + std::to_string(getpid()));
    fs::create_directories(dir);
    for (const char *csv : {"handouts/plots/08_reduction_ladder_h100.csv",
                            "handouts/plots/08_reduction_ladder_pocl5.csv"}) {
        test::check_plot("plot_08_reduction_ladder.sh", test::source(csv),
                         (dir / "ladder.png").string());
    }
    fs::remove_all(dir);
}

}  // TEST_SUITE lab
