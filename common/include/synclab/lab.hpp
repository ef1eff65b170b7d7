// What every lab's main() does before and after its own work: options, device, queue, exit code.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "synclab/device.hpp"
#include "synclab/dot.hpp"
#include "synclab/errors.hpp"
#include "synclab/kernels.hpp"
#include "synclab/options.hpp"
#include "synclab/reference.hpp"
#include "synclab/timing.hpp"

namespace synclab {

struct LabSpec {
    std::string name;         // "lab01_workgroup_reduce"
    std::string description;  // one sentence for --help
    std::string kernel_file;  // "01_workgroup_reduce.cl"
    // Variants: the student's (a wrong one fails the run) and demonstrations (meant to go
    // wrong: reported, but they decide the exit code only when asked for alone).
    std::vector<std::string> variants, demonstrations;
    std::function<void(cxxopts::Options &)> add_options;  // the lab's own options, if any
};

class Lab {
public:
    Lab(const LabSpec &spec, Options opt);
    const LabSpec &spec;
    Options opt;
    Env env;
    std::mt19937_64 rng;
    std::uint64_t seed;

    cl::Program program(const std::string &options = "") const;
    // Variants selected by --variant ("both"/"all" = every variant and demonstration).
    std::vector<std::string> selected_variants() const;
    bool is_demonstration(const std::string &variant) const;
    // Exit code from per-variant verdicts (true = verified).
    int exit_code(const std::vector<std::pair<std::string, bool>> &verdicts) const;
    LocalPoison &poison();  // made on first use
    // --trials when given, else `usual`; 1 on Oclgrind, which interprets every access and
    // shows every race in one launch.
    int trials_or(int usual) const;
    // --groups, with 0 meaning DeviceInfo::fill_groups(); `usual` when --groups was not given.
    std::size_t groups_or(std::size_t usual) const;
    // For labs whose groups follow from -n and --wg: --groups given is a usage error.
    void reject_groups(const std::string &instead) const;
    // Opened --csv stream (stdout for "-"); nullptr when not asked for.
    std::ostream *csv();

private:
    std::unique_ptr<LocalPoison> poison_;
    std::unique_ptr<std::ostream> csv_file_;
};

// Parses the shared options, handles --help and --list-devices, picks the device, runs body,
// and turns every exception into one line and exit code 2.
int run_lab(int argc, char **argv, const LabSpec &spec, const std::function<int(Lab &)> &body);

bool is_power_of_two(std::size_t x);

}  // namespace synclab
