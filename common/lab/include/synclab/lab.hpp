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
#include "synclab/oclgrind.hpp"
#include "synclab/options.hpp"
#include "synclab/reference.hpp"
#include "synclab/runtime.hpp"  // run_lab
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

    // The lab's kernel file, built for its device; behind the stress prelude of the schedule
    // set by stress_schedule() (--stress).
    cl::Program program(const std::string &options = "") const;
    // Throws BuildError where the kernel file does not compile with `options`, running nothing:
    // in a graded run clang's compile of the program text (as program() checks it) decides, and
    // the device builds nothing; in a student's run the device builds it.
    void check_compiles(const std::string &options) const;
    // Makes `seed` the run's seed (inputs) and its stress schedule's: the next run of the body
    // builds and fills as `--stress 1 --seed SEED` would.
    void stress_schedule(std::uint64_t seed);
    // Variants selected by --variant: one name, several separated by commas ("a,b"), or "all"
    // (every variant and demonstration). An unknown name is a UsageError listing the valid ones.
    std::vector<std::string> selected_variants() const;
    bool is_demonstration(const std::string &variant) const;
    // The first kernel the declaration names for a variant.
    const std::string &kernel_name(const std::string &variant) const;
    // "labNN_topic on PLATFORM / DEVICE: <what>, seed N", the first line of every lab.
    void banner(const std::string &what) const;
    // Declared `.graded = false`: reported, never graded, and wrong without failing the run.
    bool is_optional(const std::string &variant) const;
    // A variant's result as its row shows it: `text`, or for an optional variant that is not ok
    // while a starter's part its kernels run still says TODO, "not done (optional: the TODO in
    // FUNCTION is still to write)".
    std::string result_text(const std::string &variant, bool ok, const std::string &text) const;
    // The function whose starter part, among the code the variant's kernels run, still says
    // TODO (synclab/todo.hpp), or "".
    std::string unwritten_todo(const std::string &variant) const;
    // Records every verdict (--verdict) and returns the exit code: 1 when a variant the student
    // must get right is wrong, or a demonstration or optional variant asked for alone is. An
    // optional variant's wrong result is recorded "wrong", its unwritten TODO "skipped". On Oclgrind, the findings
    // its log gained since the last look fail the variants whose kernels they name (every
    // variant here that lists the kernel; every variant here when none does): each is printed,
    // recorded as a `finding`, and makes its variant wrong.
    int exit_code(const std::vector<Verdict> &verdicts);
    // run_lab's last step: on Oclgrind, findings after exit_code() (variant "-") fail the run,
    // and a run with none says so. Returns the exit code.
    int finish(int rc);
    // Records a variant that this device cannot run, with why.
    void skipped(const std::string &variant, const std::string &why) const;
    // On Oclgrind, where the lab's groups wait for one another (oclgrind_groups): a kernel in
    // which fewer than two groups took part had nothing between groups for hbcheck to judge. Says
    // so and records it for the grader (a "not-checked" finding, which never fails).
    void groups_met(const std::string &variant, std::size_t took_part) const;
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
    // Oclgrind's findings and what reading them needs (oclgrind_findings.cpp).
    std::vector<OclgrindFinding> new_oclgrind_findings();
    void attribute_oclgrind_findings(std::vector<Verdict> &verdicts);
    void locate_kernel_file();
    std::string kernel_display_;  // the kernel file as its #line directive names it
    std::string kernel_shown_;    // ... and as findings name it: never an absolute path
    std::string kernel_reported_; // ... and as Oclgrind reports it (the debug info's name)
    std::string kernel_source_;   // its text, for what a finding needs to see of it
    bool kernel_located_ = false;
    int oclgrind_findings_ = 0;   // told so far
    int oclgrind_suppressed_ = 0; // Oclgrind stopped reporting after this many errors
    bool hbcheck_seen_ = false;   // the log said "hbcheck: on"
    std::uint64_t stress_seed_ = 0;  // the stress schedule (0: none)
    std::unique_ptr<LocalPoison> poison_;
    std::unique_ptr<std::ostream> csv_file_;
    std::ostream *csv_stream();
};

bool is_power_of_two(std::size_t x);

}  // namespace synclab
