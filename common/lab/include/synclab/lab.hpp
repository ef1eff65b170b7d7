// For every lab's main(): options, device, queue, the banner, verdicts and the exit code.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "synclab/declaration.hpp"
#include "synclab/device.hpp"
#include "synclab/errors.hpp"
#include "synclab/kernels.hpp"
#include "synclab/measure.hpp"
#include "synclab/options.hpp"
#include "synclab/reference.hpp"
#include "synclab/timing.hpp"

namespace synclab {

// One variant's outcome: verified or not, and one line saying what was wrong.
struct Verdict {
    std::string variant;
    bool ok = false;
    std::string detail;
};

class Lab {
public:
    Lab(const Declaration &decl, Options opt);
    const Declaration &decl;
    Options opt;
    Env env;
    std::mt19937_64 rng;
    std::uint64_t seed;

    cl::Program program(const std::string &options = "") const;
    // Variants selected by --variant ("all" = every variant and demonstration).
    std::vector<std::string> selected_variants() const;
    bool is_demonstration(const std::string &variant) const;
    // The first kernel the declaration names for a variant.
    const std::string &kernel_name(const std::string &variant) const;
    // "labNN_topic on PLATFORM / DEVICE: <what>, seed N", the first line of every lab.
    void banner(const std::string &what) const;
    // Records every verdict (--verdict) and returns the exit code: 1 when a variant the student
    // must get right is wrong, or a demonstration asked for alone is.
    int exit_code(const std::vector<Verdict> &verdicts) const;
    // Records a variant that this device cannot run, with why.
    void skipped(const std::string &variant, const std::string &why) const;
    LocalPoison &poison();  // made on first use
    // --trials when given, else `usual`; 1 on Oclgrind, which interprets every access and
    // shows every race in one launch.
    int trials_or(int usual) const;
    // --groups, with 0 meaning DeviceInfo::fill_groups(); `usual` when --groups was not given.
    std::size_t groups_or(std::size_t usual) const;
    // For labs whose groups follow from -n and --wg: --groups given is a usage error.
    void reject_groups(const std::string &instead) const;
    // The lab's CSV table (--csv; does nothing without it), its columns named once.
    Csv csv(const std::vector<std::string> &columns);
    bool has_csv() const { return !opt.csv.empty(); }

private:
    std::unique_ptr<LocalPoison> poison_;
    std::unique_ptr<std::ostream> csv_file_;
    std::ostream *csv_stream();
};

// Parses the shared options, handles --help, --describe and --list-devices, picks the device,
// runs body, and turns every exception into one line, an exit code and a verdict record.
int run_lab(int argc, char **argv, const Declaration &decl, const std::function<int(Lab &)> &body);

// Runs body and maps every exception to a one-line message on stderr, an exit code and a
// verdict record (--verdict).
int guarded_main(const char *program, const std::function<int()> &body);

bool is_power_of_two(std::size_t x);

}  // namespace synclab
