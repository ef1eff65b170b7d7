// For the lab scaffolding: the options every lab shares, built on cxxopts, plus each lab's own.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <cxxopts.hpp>

#include "synclab/protocol.hpp"

namespace synclab {

struct Options {
    std::string device;       // --device / SYNCLAB_DEVICE; empty: POCL CPU, else first device
    bool list_devices = false;
    std::string kernels;      // --kernels / SYNCLAB_KERNELS; empty: search (see kernels.hpp)
    std::size_t n = 0;        // --size/-n; 0: the lab's default
    std::size_t wg = 0;       // --wg; 0: the lab's default
    std::size_t groups = 0;   // --groups (Lab::groups_or: the lab's own default when not given)
    int trials = 1;           // --trials (Lab::trials_or: the lab's own default when not given)
    std::uint64_t seed = 0;   // --seed; 0: fresh every run
    std::uint64_t schedule = 1;  // --schedule: hbcheck's seed on Oclgrind (SYNCLAB_SCHEDULE); 0: off
    unsigned oclgrind_threads = 0;  // --oclgrind-threads: groups Oclgrind runs at once; 0: as set
    std::vector<std::string> oclgrind_off;  // --oclgrind-off: Oclgrind checks off besides the lab's
    bool exact = false;       // --exact: whole-number inputs, sums compared exactly (reference.hpp)
    std::string variant;      // --variant; the lab lists its own
    std::string csv;          // --csv FILE ("-" for stdout)
    double timeout = 300;     // --timeout S: a run that takes longer is stopped (0: never)
    bool timeout_given = false;  // else the lab's default (kSpinTimeout where groups wait)
    double build_timeout = protocol::kBuildSeconds;  // --build-timeout S: a build's seconds on a core
    bool describe = false;    // --describe: print the lab's declaration (declaration.hpp)
    std::string verdict;      // --verdict FILE: the machine-readable verdict (verdict.hpp)
    unsigned stress = 0;      // --stress N: N seeded delay schedules, one after another (stress.hpp)
    unsigned repeat = 1;      // --repeat K: with --stress, each schedule up to K times until it fails
    bool warm_up = false;     // --warm-up: with --stress, only build its kernels and run them undelayed
    cxxopts::ParseResult extra;  // the lab's own options
};

using protocol::kMaxTimeout;  // --timeout's largest
constexpr double kSpinTimeout = 60;  // --timeout's default where work-groups wait for one another

// A parser with the shared options already added; a lab adds its own to it.
cxxopts::Options make_parser(const std::string &program, const std::string &description,
                             const std::string &variant_help, const std::string &variant_default);

// Parses; --help prints and returns false (exit 0). Bad options throw UsageError.
bool parse(cxxopts::Options &parser, int argc, char **argv, Options &out);

// The seed actually used: --seed, else a fresh one.
std::uint64_t effective_seed(const Options &o);

}  // namespace synclab
