// lab03_multikernel_reduce: ceil(log_wg n) launches and the right result at awkward n on every
// device, the starter and a missing tail guard caught, the comparison with lab 02 printed.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <unistd.h>

#include "support.hpp"
#include "synclab/protocol.hpp"

namespace fs = std::filesystem;
using test::run_lab;

static const std::string kLab03 = "lab03_multikernel_reduce";

// ceil(log_wg n) for n > 1, by whole numbers: the smallest k with wg^k >= n.
static std::size_t launches_expected(std::size_t n, std::size_t wg) {
    std::size_t k = 0;
    for (std::size_t reach = 1; reach < n; reach *= wg) ++k;
    return k;
}

static std::size_t launches_printed(const std::string &out) {
    std::smatch m;
    if (!std::regex_search(out, m, std::regex(R"(over (\d+) launch\(es\))"))) return 0;
    return std::stoul(m[1]);
}

TEST_SUITE("lab") {

TEST_CASE("lab03 makes ceil of log base wg of n launches and is right at awkward n on every device") {
    for (const auto &d : test::dynamic_devices()) {
        for (std::size_t wg : {std::size_t(16), std::size_t(256)}) {
            for (std::size_t n : {std::size_t(1), std::size_t(2), wg - 1, wg, wg + 1,
                                  std::size_t(999983), std::size_t(3000017)}) {
                const auto r = run_lab(kLab03, {"--device", d.spec(), "--kernels",
                                                test::source("solutions"), "--variant", "device",
                                                "-n", std::to_string(n), "--wg",
                                                std::to_string(wg), "--seed", "3"});
                CAPTURE(d.name);
                CAPTURE(n);
                CAPTURE(wg);
                CAPTURE(r.out);
                CAPTURE(r.err);
                CHECK(r.exit_code == 0);
                CHECK(r.out.find("verified") != std::string::npos);
                CHECK(r.out.find("WRONG") == std::string::npos);
                // One launch is always needed, even for n = 1 where log_wg n = 0.
                CHECK(launches_printed(r.out) == (n > 1 ? launches_expected(n, wg) : 1));
            }
        }
    }
}

TEST_CASE("lab03 starter reducePartials fails with exit 1 and the solution passes") {
    const std::vector<std::string> args{"-n", "1000003", "--wg", "64"};
    auto r = run_lab(kLab03, args, {{synclab::protocol::kKernels, ""}});  // the starter, beside the lab
    CAPTURE(r.out);
    CHECK(r.exit_code == 1);
    CHECK(r.out.find("result nan") != std::string::npos);
    auto with_solution = args;
    with_solution.insert(with_solution.end(), {"--kernels", test::source("solutions")});
    r = run_lab(kLab03, with_solution);
    CHECK(r.exit_code == 0);
    CHECK(launches_printed(r.out) == 4);
}

TEST_CASE("lab03 a missing tail guard in reducePartials is caught on every device") {
    for (const auto &d : test::dynamic_devices()) {
        CAPTURE(d.name);
        auto run = [&](const std::string &variant, std::size_t n) {
            return run_lab(kLab03, {"--device", d.spec(), "--kernels",
                                    test::fixture("no_tail_guard_03"), "--variant", variant, "-n",
                                    std::to_string(n), "--wg", "64"});
        };
        // 1000003 leaves a part-empty last group in every pass: NaN padding gets added.
        auto r = run("device", 1000003);
        CAPTURE(r.out);
        CHECK(r.exit_code == 1);
        CHECK(r.out.find("WRONG") != std::string::npos);
        // The same file's dotPartials is right, so lab 02's path passes...
        CHECK(run("host", 1000003).exit_code == 0);
        // ...and with 64^3 elements every pass fills whole groups, so no padding is read.
        CHECK(run("device", 64 * 64 * 64).exit_code == 0);
        r = run_lab(kLab03, {"--device", d.spec(), "--kernels", test::source("solutions"),
                             "--variant", "device", "-n", "1000003", "--wg", "64"});
        CHECK(r.exit_code == 0);
    }
}

TEST_CASE("lab03 --exact catches one dropped product that the float tolerance hides") {
    const std::string dir = test::fixture("dot_drops_last_03");
    for (const std::string seed : {"1", "2", "3"}) {  // one U(0,1) product in about 0.8 of slack
        CAPTURE(seed);
        CHECK(run_lab(kLab03, {"--kernels", dir, "--variant", "device", "-n", "1000003", "--wg",
                               "64", "--seed", seed}).exit_code == 0);
    }
    for (const auto &d : test::dynamic_devices()) {
        CAPTURE(d.name);
        // Every group's sum of every pass is checked: the first wrong one is named.
        auto r = run_lab(kLab03, {"--device", d.spec(), "--kernels", dir, "--variant", "device",
                                  "-n", "1000003", "--wg", "64", "--exact"});
        CAPTURE(r.out);
        CHECK(r.exit_code == 1);
        CHECK(r.out.find("first: pass 1 (dotPartials) group 15625:") != std::string::npos);
        r = run_lab(kLab03, {"--device", d.spec(), "--kernels", test::source("solutions"),
                             "--variant", "device", "-n", "1000003", "--wg", "64", "--exact"});
        CHECK(r.exit_code == 0);
    }
    // A wrong later pass is named as such: no tail guard in reducePartials.
    const auto r = run_lab(kLab03, {"--kernels", test::fixture("no_tail_guard_03"), "--variant",
                                    "device", "-n", "1000003", "--wg", "64", "--exact"});
    CHECK(r.out.find("first: pass 2 (reducePartials) group 244: nan") != std::string::npos);
}

TEST_CASE("lab03 compares itself with the host final sum and sweeps n with --csv") {
    const auto csv = fs::temp_directory_path() / ("synclab-lab03-" + std::to_string(getpid()) + ".csv");
    const auto r = run_lab(kLab03, {"--kernels", test::source("solutions"), "-n", "20000",
                                    "--wg", "32", "--csv", csv.string()});
    CAPTURE(r.out);
    CHECK(r.exit_code == 0);
    for (const char *says : {"pass   elements in", "dotPartials", "reducePartials",
                             "host final sum (lab 02):", "multi-kernel / host final sum:",
                             "after pass 1:"})
        CHECK(r.out.find(says) != std::string::npos);
    std::ifstream in(csv);
    std::string line;
    std::getline(in, line);
    CHECK(line == "n,wg,trials,launches,multikernel_ms,host_final_sum_ms,ratio,verified");
    std::vector<std::size_t> sizes;
    while (std::getline(in, line)) {
        std::stringstream row(line);
        std::string n, wg, trials, launches;
        std::getline(row, n, ',');
        std::getline(row, wg, ',');
        std::getline(row, trials, ',');
        std::getline(row, launches, ',');
        sizes.push_back(std::stoull(n));
        CHECK(std::stoul(launches) == launches_expected(std::stoull(n), 32));
        CHECK(line.substr(line.size() - 2) == ",1");
    }
    CHECK(sizes == std::vector<std::size_t>{1024, 2048, 4096, 8192, 16384, 20000});
    fs::remove(csv);
}

TEST_CASE("lab03 bad input exits 2 with one line naming the cause and the fix") {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{"--wg", "1"}, "power of two of at least 2"},
        {{"--wg", "96"}, "use --wg 64"},
        {{"--wg", "1048576"}, "use --wg"},
        {{"--groups", "2"}, "--groups is not used here"},
        {{"-n", "5000000000"}, "use -n"},
        {{"--variant", "gpu"}, "use one of device|host|all"},
        {{"--kernels", "/no/such/folder"}, "/no/such/folder/03_multikernel_reduce.cl"},
        {{"--exact", "-n", "2000000"}, "use -n 1864135 or less, or leave out --exact"},
    };
    for (const auto &[args, says] : cases) test::check_usage_error(kLab03, args, says);
}

}  // TEST_SUITE
