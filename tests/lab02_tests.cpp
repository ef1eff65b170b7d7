// lab02_host_final_sum: every partial and the total checked at awkward n on every device, the
// starter and two broken kernels caught, the time split printed, bad input refused.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <unistd.h>

#include "support.hpp"
#include "synclab/kernels.hpp"
#include "synclab/partials.hpp"
#include "synclab/protocol.hpp"

namespace fs = std::filesystem;
using test::run_lab;

static const std::string kLab02 = "lab02_host_final_sum";

static std::vector<std::string> lab02_args(const std::string &device, const std::string &kernels,
                                           std::size_t n) {
    return {"--device", device, "--kernels", kernels, "-n", std::to_string(n), "--seed", "2"};
}

TEST_SUITE("lab") {

TEST_CASE("lab02 solution verifies every partial and the total at awkward n on every device") {
    for (const auto &d : test::dynamic_devices()) {
        // 1, less than a group, a group less one, not a multiple, past 2^20, tens of millions.
        for (std::size_t n : {std::size_t(1), std::size_t(100), std::size_t(255),
                              std::size_t(1000), std::size_t(1048583), std::size_t(10000019)}) {
            const auto r = run_lab(kLab02, lab02_args(d.spec(), test::source("solutions"), n));
            CAPTURE(d.name);
            CAPTURE(n);
            CAPTURE(r.out);
            CAPTURE(r.err);
            CHECK(r.exit_code == 0);
            const std::size_t groups = (n + 255) / 256;
            CHECK(r.out.find("in " + std::to_string(groups) + " group(s) of 256") !=
                  std::string::npos);
            CHECK(r.out.find("all " + std::to_string(groups) + " partial sums verified") !=
                  std::string::npos);
            CHECK(r.out.find("host reference") != std::string::npos);
            CHECK(r.out.find("WRONG") == std::string::npos);
        }
    }
}

TEST_CASE("lab02 starter dotPartials fails with exit 1 and the solution passes") {
    // The starter is found beside the executable, as a student runs it.
    auto r = run_lab(kLab02, {"-n", "1000"}, {{synclab::protocol::kKernels, ""}});
    CAPTURE(r.out);
    CHECK(r.exit_code == 1);
    CHECK(r.out.find("4/4 partial sums WRONG") != std::string::npos);
    r = run_lab(kLab02, {"-n", "1000", "--kernels", test::source("solutions")});
    CHECK(r.exit_code == 0);
}

TEST_CASE("lab02 a missing tail guard is caught where n leaves the last group part-empty") {
    for (const auto &d : test::dynamic_devices()) {
        CAPTURE(d.name);
        // 1000 = 3 whole groups and 232 elements: only group 3 reads the NaN padding.
        auto r = run_lab(kLab02, lab02_args(d.spec(), test::fixture("no_tail_guard_02"), 1000));
        CAPTURE(r.out);
        CHECK(r.exit_code == 1);
        CHECK(r.out.find("1/4 partial sums WRONG") != std::string::npos);
        CHECK(r.out.find("first: group 3 (elements 768..999)") != std::string::npos);
        // With whole groups the same kernel is right: the guard matters only for the tail.
        r = run_lab(kLab02, lab02_args(d.spec(), test::fixture("no_tail_guard_02"), 1024));
        CHECK(r.exit_code == 0);
        r = run_lab(kLab02, lab02_args(d.spec(), test::source("solutions"), 1000));
        CHECK(r.exit_code == 0);
    }
}

TEST_CASE("lab02 a tree shortened to n elements drops some when n is below the group size") {
    const std::string dir = test::fixture("short_vector_02");
    for (const auto &d : test::dynamic_devices()) {
        CAPTURE(d.name);
        // Every n at or above the group size is right, as every grading size used to be.
        for (const char *n : {"1000", "1000003", "64"})
            CHECK(run_lab(kLab02, {"--device", d.spec(), "--kernels", dir, "-n", n, "--wg", "64",
                                   "--exact"}).exit_code == 0);
        auto r = run_lab(kLab02, {"--device", d.spec(), "--kernels", dir, "-n", "50", "--wg", "64",
                                  "--exact"});
        CAPTURE(r.out);
        CHECK(r.exit_code == 1);
        CHECK(r.out.find("1/1 partial sums WRONG") != std::string::npos);
        r = run_lab(kLab02, {"--device", d.spec(), "--kernels", test::source("solutions"), "-n",
                             "50", "--wg", "64", "--exact"});
        CHECK(r.exit_code == 0);
    }
}

TEST_CASE("lab02 --exact compares whole-number sums exactly: the total is a whole number") {
    const auto r = run_lab(kLab02, {"--kernels", test::source("solutions"), "-n", "1000003",
                                    "--exact", "--seed", "5"});
    CAPTURE(r.out);
    CHECK(r.exit_code == 0);
    std::smatch m;
    REQUIRE(std::regex_search(r.out, m, std::regex(R"(host reference (\d+)\.0000  verified)")));
    // 1000003 products of whole numbers 1..3: between 1000003 and 9 times that.
    CHECK(std::stod(m[1]) >= 1000003);
    CHECK(std::stod(m[1]) <= 9000027);
}

TEST_CASE("lab02 a missing barrier in the tree loop is caught and the solution is clean") {
    for (const auto &d : test::dynamic_devices()) {
        CAPTURE(d.name);
        const std::size_t n = std::size_t(1) << 20;  // 4096 groups: enough to fill a GPU
        auto r = run_lab(kLab02, lab02_args(d.spec(), test::fixture("missing_loop_barrier"), n));
        CAPTURE(r.out);
        CHECK(r.exit_code == 1);
        CHECK(r.out.find("partial sums WRONG") != std::string::npos);
        r = run_lab(kLab02, lab02_args(d.spec(), test::source("solutions"), n));
        CHECK(r.exit_code == 0);
    }
}

TEST_CASE("lab02 prints kernel and transfer and host-sum time with shares that add up") {
    const auto r = run_lab(kLab02, {"--kernels", test::source("solutions"), "-n", "300000",
                                    "--trials", "2"});
    CAPTURE(r.out);
    REQUIRE(r.exit_code == 0);
    double shares = 0, parts = 0, total = -1;
    for (const char *what : {"transfer", "kernel", "host sum"}) {
        std::smatch m;
        const std::regex line(std::string("\n") + what + R"( +([0-9.]+) +([0-9.]+)%)");
        REQUIRE(std::regex_search(r.out, m, line));
        parts += std::stod(m[1]);
        shares += std::stod(m[2]);
    }
    std::smatch m;
    REQUIRE(std::regex_search(r.out, m, std::regex(R"(\ntotal +([0-9.]+))")));
    total = std::stod(m[1]);
    CHECK(total > 0);
    CHECK(parts == doctest::Approx(total).epsilon(0.001));
    CHECK(shares == doctest::Approx(100).epsilon(0.005));
    CHECK(r.out.find("read 1172 partial(s)") != std::string::npos);
}

TEST_CASE("lab02 --csv sweeps n in powers of two up to -n with every row verified") {
    const auto csv = fs::temp_directory_path() / ("synclab-lab02-" + std::to_string(getpid()) + ".csv");
    const auto r = run_lab(kLab02, {"--kernels", test::source("solutions"), "-n", "100000",
                                    "--csv", csv.string()});
    CAPTURE(r.out);
    CHECK(r.exit_code == 0);
    std::ifstream in(csv);
    std::string line;
    std::getline(in, line);
    CHECK(line.rfind("n,groups,wg,trials,transfer_ms,kernel_ms,host_sum_ms,total_ms", 0) == 0);
    std::vector<std::size_t> sizes;
    while (std::getline(in, line)) {
        sizes.push_back(std::stoull(line));
        CHECK(line.substr(line.size() - 2) == ",1");  // verified
    }
    CHECK(sizes == std::vector<std::size_t>{1024, 2048, 4096, 8192, 16384, 32768, 65536, 100000});
    fs::remove(csv);
}

TEST_CASE("labs 02 and 03 with no -n take 2^24 terms, and 2^12 on Oclgrind, where 2^24 takes minutes") {
    for (const auto &d : test::dynamic_devices()) CHECK(synclab::dot_size(d, 0) == std::size_t(1) << 24);
    if (!test::have_oclgrind()) return;
    const auto og = synclab::select_device("oclgrind");
    CHECK(synclab::dot_size(og, 0) == std::size_t(1) << 12);
    CHECK(synclab::dot_size(og, 1000) == 1000);  // -n as given
    for (const std::string &lab : {kLab02, std::string("lab03_multikernel_reduce")}) {
        const auto r = run_lab(lab, {"--device", "oclgrind", "--kernels", test::source("solutions"), "--seed", "2"});
        CAPTURE(r.out);
        CHECK(r.exit_code == 0);
        CHECK(r.out.find("n = 4096") != std::string::npos);
    }
}

TEST_CASE("lab02 bad input exits 2 with one line naming the cause and the fix") {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{"--wg", "100"}, "not a power of two"},
        {{"--wg", "1048576"}, "use --wg"},
        {{"--groups", "4"}, "--groups is not used here"},
        {{"-n", "5000000000"}, "use -n"},
        {{"--variant", "fast"}, "unknown --variant 'fast'"},
        {{"-n", "many"}, "see --help"},
        {{"--csv", "/no/such/folder/x.csv"}, "--csv"},
        {{"--kernels", "/no/such/folder"}, "/no/such/folder/02_host_final_sum.cl"},
    };
    for (const auto &[args, says] : cases) test::check_usage_error(kLab02, args, says);
}

}  // TEST_SUITE

TEST_SUITE("unit") {

TEST_CASE("host_final_sum names the one wrong partial among many and passes the right kernel") {
    const auto devices = test::dynamic_devices();
    REQUIRE_FALSE(devices.empty());
    synclab::Env env(devices.front());
    // The solution, but group 2 adds 1 to its partial: a small error in one slot of 40.
    std::ifstream in(test::source("solutions/02_host_final_sum.cl"));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string right = "partial[get_group_id(0)] = scratch[0];";
    const std::size_t at = text.find(right);
    REQUIRE(at != std::string::npos);
    std::string off = text;
    off.replace(at, right.size(),
                "partial[get_group_id(0)] = scratch[0] + (get_group_id(0) == 2 ? 1.0f : 0.0f);");
    synclab::LocalPoison poison(env.context, env.info.device);
    std::mt19937_64 rng(11);
    synclab::DotProblem p = synclab::make_dot_problem(env, 40 * 64 - 5, 64, rng);

    cl::Kernel good(synclab::build_source(env.context, env.info.device, text, "right.cl"),
                    "dotPartials");
    const auto ok = synclab::host_final_sum(env, good, poison, p, 2);
    CHECK(ok.ok());
    CHECK(ok.trials == 2);
    CHECK(ok.value == doctest::Approx(p.total.value));

    cl::Kernel bad(synclab::build_source(env.context, env.info.device, off, "off.cl"),
                   "dotPartials");
    const auto r = synclab::host_final_sum(env, bad, poison, p, 2);
    CHECK_FALSE(r.ok());
    CHECK(r.wrong_trials == 2);
    CHECK(r.wrong_partials == 2);
    CHECK(r.first_wrong == 2);
    CHECK(r.first_wrong_got == doctest::Approx(p.slice[2].value + 1));
    CHECK_FALSE(r.total_ok);
}

TEST_CASE("groups_for and sweep_sizes cover n exactly") {
    CHECK(synclab::groups_for(1, 256) == 1);
    CHECK(synclab::groups_for(256, 256) == 1);
    CHECK(synclab::groups_for(257, 256) == 2);
    CHECK(synclab::sweep_sizes(100) == std::vector<std::size_t>{100});
    CHECK(synclab::sweep_sizes(4096) == std::vector<std::size_t>{1024, 2048, 4096});
    CHECK(synclab::sweep_sizes(5000) == std::vector<std::size_t>{1024, 2048, 4096, 5000});
}

}  // TEST_SUITE
