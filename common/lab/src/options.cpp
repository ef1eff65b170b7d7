#include "synclab/options.hpp"

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <random>
#include <sstream>

#include "synclab/environment.hpp"
#include "synclab/errors.hpp"
#include "synclab/verdict.hpp"

namespace synclab {

cxxopts::Options make_parser(const std::string &program, const std::string &description,
                             const std::string &variant_help, const std::string &variant_default) {
    cxxopts::Options p(program, description);
    p.add_options()
        ("device", "device: P:D indices or a name substring (pocl, nvidia, oclgrind); "
                   "env " + std::string(env::kDevice), cxxopts::value<std::string>()->default_value(""))
        ("list-devices", "list every OpenCL platform and device, then exit")
        ("kernels", "folder holding the .cl files; env " + std::string(env::kKernels) +
                    " (default: the project's kernels/)", cxxopts::value<std::string>()->default_value(""))
        ("n,size", "problem size (0: the lab's default)",
         cxxopts::value<std::size_t>()->default_value("0"))
        ("wg", "work-group size (0: the lab's default)",
         cxxopts::value<std::size_t>()->default_value("0"))
        ("groups", "number of work-groups (0: enough to fill the device, as the lab counts it: two "
                   "per compute unit unless the lab says otherwise, e.g. --per-cu; default: the "
                   "lab's own, see above)", cxxopts::value<std::size_t>())
        ("trials", "run each variant this many times, checking every run (default: the lab's "
                   "own, see above; 1 on Oclgrind)", cxxopts::value<int>())
        ("seed", "random seed (0: a fresh seed each run)",
         cxxopts::value<std::uint64_t>()->default_value("0"))
        ("schedule", "on Oclgrind, where work-groups wait for one another: run one group at a time, "
                     "switched where groups interact, in the interleaving this seed gives (each "
                     "launch, each trial, its own from it; the same on every machine); 0: as "
                     "Oclgrind's threads take them", cxxopts::value<std::uint64_t>()->default_value("1"))
        ("oclgrind-threads", "on Oclgrind: how many work-groups run at once, a worker thread each "
                             "(OCLGRIND_NUM_THREADS; default: as the environment says, else the "
                             "lab's own: 4 where work-groups wait for one another)",
         cxxopts::value<unsigned>()->default_value("0"))
        ("oclgrind-off", "on Oclgrind: turn off these of its checks (uninitialized, data-races; "
                         "comma-separated) besides those the lab turns off itself",
         cxxopts::value<std::string>()->default_value(""))
        ("exact", "grading inputs: whole numbers 1 to 3 (products 1 to 9), so every partial sum is "
                  "exact in float in any order; each work-group's sum and the total must then match "
                  "the host's exactly, and a dropped element always shows (labs that add numbers)")
        ("variant", variant_help, cxxopts::value<std::string>()->default_value(variant_default))
        ("csv", "also write results as CSV to FILE ('-' for standard output)",
         cxxopts::value<std::string>()->default_value(""))
        ("timeout", "stop with exit 1 after this many seconds with no kernel launched, not counting "
                    "time spent waiting for a core "
                    "(a kernel that never finishes: an endless loop, a barrier not every work-item "
                    "reaches); 0: no limit (default: 60 in the labs whose work-groups wait for one "
                    "another, 300 in the others and with --stress)", cxxopts::value<double>())
        ("build-timeout", "stop with exit 2, as a compile error, once a kernel file's build has "
                          "run this many seconds on a core, or --timeout's when those are more "
                          "(default: 60; --timeout 0 turns off both limits)",
         cxxopts::value<double>())
        ("stress", "shake the protocols between work-groups: run N schedules, each with delays "
                   "injected at the atomics and fences it picks (schedule k uses --seed S+k; the "
                   "first that fails is named, with the command that repeats it)",
         cxxopts::value<unsigned>()->default_value("0"))
        ("repeat", "with --stress: run each schedule up to K times (1 to 100), until it fails (a "
                   "seed puts the same delays at the same times; the operating system interleaves "
                   "the threads its own way)", cxxopts::value<unsigned>()->default_value("1"))
        ("warm-up", "with --stress: only build the schedules' kernels and run them once with no "
                    "delays, then stop (POCL's cache then serves the --stress run that follows; "
                    "synclab-grade runs it beside other work first)")
        ("describe", "print this lab's declaration in machine-readable form, then exit")
        ("verdict", "also write the verdict in machine-readable form to FILE (for synclab-grade)",
         cxxopts::value<std::string>()->default_value(""))
        ("h,help", "show this help");
    return p;
}

bool parse(cxxopts::Options &parser, int argc, char **argv, Options &o) {
    cxxopts::ParseResult r;
    try {
        r = parser.parse(argc, argv);
    } catch (const cxxopts::exceptions::exception &e) {
        throw UsageError(std::string(e.what()) + " (see --help)");
    }
    if (!r.unmatched().empty())
        throw UsageError("unexpected argument '" + r.unmatched().front() + "' (see --help)");
    if (r.count("help")) {
        std::cout << parser.help() << "\nExit codes: 0 verified, 1 a verification failed, "
                                      "2 usage or set-up error.\n";
        return false;
    }
    o.device = r["device"].as<std::string>();
    o.list_devices = r.count("list-devices") > 0;
    o.kernels = r["kernels"].as<std::string>();
    o.n = r["n"].as<std::size_t>();
    o.wg = r["wg"].as<std::size_t>();
    if (r.count("groups")) o.groups = r["groups"].as<std::size_t>();
    if (r.count("trials")) o.trials = r["trials"].as<int>();
    o.seed = r["seed"].as<std::uint64_t>();
    o.schedule = r["schedule"].as<std::uint64_t>();
    o.oclgrind_threads = r["oclgrind-threads"].as<unsigned>();
    if (o.oclgrind_threads > 64)
        throw UsageError("--oclgrind-threads " + std::to_string(o.oclgrind_threads) +
                         " is too many: use 1 to 64 (0: as the environment says)");
    std::istringstream off(r["oclgrind-off"].as<std::string>());
    for (std::string check; std::getline(off, check, ',');) {
        if (check != "uninitialized" && check != "data-races")
            throw UsageError("--oclgrind-off '" + check + "' is none of Oclgrind's checks: give "
                             "uninitialized or data-races, comma-separated");
        o.oclgrind_off.push_back(check);
    }
    o.exact = r.count("exact") > 0;
    o.variant = r["variant"].as<std::string>();
    o.csv = r["csv"].as<std::string>();
    o.timeout_given = r.count("timeout") > 0;
    if (o.timeout_given) o.timeout = r["timeout"].as<double>();
    if (r.count("build-timeout")) o.build_timeout = r["build-timeout"].as<double>();
    o.describe = r.count("describe") > 0;
    o.stress = r["stress"].as<unsigned>();
    if (o.stress > 10000) throw UsageError("--stress " + std::to_string(o.stress) +
                                           " is too many schedules: use 1 to 10000");
    o.repeat = r["repeat"].as<unsigned>();
    if (o.repeat < 1 || o.repeat > 100)
        throw UsageError("--repeat " + std::to_string(o.repeat) + " is out of range: use 1 to 100 tries");
    if (r.count("repeat") && !o.stress)
        throw UsageError("--repeat runs stress schedules again: give it with --stress N, N of 1 or more");
    o.warm_up = r.count("warm-up") > 0;
    if (o.warm_up && !o.stress)
        throw UsageError("--warm-up builds the kernels of stress schedules: give it with --stress N, N of 1 or more");
    if (o.warm_up && r.count("repeat"))
        throw UsageError("--warm-up runs no schedule to repeat: leave out --repeat, or --warm-up");
    o.verdict = r["verdict"].as<std::string>();
    if (!o.verdict.empty() && !verdict::open(o.verdict))
        throw UsageError("cannot write --verdict file " + o.verdict + ": check the folder exists");
    if (!(o.timeout >= 0 && o.timeout <= kMaxTimeout))
        throw UsageError("--timeout is out of range: use 0 (no limit) or up to 1000000 seconds");
    if (!(o.build_timeout > 0 && o.build_timeout <= kMaxTimeout))
        throw UsageError("--build-timeout is out of range: use more than 0, up to 1000000 seconds");
    if (o.trials < 1) throw UsageError("--trials must be at least 1");
    o.extra = r;
    return true;
}

std::uint64_t effective_seed(const Options &o) {
    if (o.seed) return o.seed;
    return std::random_device{}() ^
           static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
}


}  // namespace synclab
