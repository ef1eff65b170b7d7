#include "synclab/lab.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace synclab {

bool is_power_of_two(std::size_t x) { return x && !(x & (x - 1)); }

Lab::Lab(const LabSpec &s, Options o)
    : spec(s), opt(std::move(o)), env(select_device(opt.device)), seed(effective_seed(opt)) {
    rng.seed(seed);
    csv();  // a CSV file that cannot be written is a usage error before any output
}

cl::Program Lab::program(const std::string &options) const {
    return build_program(env.context, env.info.device, spec.kernel_file, opt.kernels, options);
}

std::vector<std::string> Lab::selected_variants() const {
    std::vector<std::string> all = spec.demonstrations;
    all.insert(all.end(), spec.variants.begin(), spec.variants.end());
    if (opt.variant == "both" || opt.variant == "all") return all;
    if (std::find(all.begin(), all.end(), opt.variant) != all.end()) return {opt.variant};
    std::string names;
    for (const auto &v : all) names += v + "|";
    throw UsageError("unknown --variant '" + opt.variant + "': use one of " + names + "all");
}

bool Lab::is_demonstration(const std::string &v) const {
    return std::find(spec.demonstrations.begin(), spec.demonstrations.end(), v) !=
           spec.demonstrations.end();
}

int Lab::exit_code(const std::vector<std::pair<std::string, bool>> &verdicts) const {
    if (verdicts.empty())
        throw UsageError("nothing was verified: every variant asked for was skipped on this "
                         "device (see above): choose another --variant or --device");
    const bool alone = verdicts.size() == 1;
    for (const auto &[v, ok] : verdicts)
        if (!ok && (alone || !is_demonstration(v))) return kWrong;
    return kOk;
}

LocalPoison &Lab::poison() {
    if (!poison_) poison_ = std::make_unique<LocalPoison>(env.context, env.info.device);
    return *poison_;
}

int Lab::trials_or(int usual) const {
    if (opt.extra.count("trials")) return opt.trials;
    return env.info.is_oclgrind() ? 1 : usual;
}

std::size_t Lab::groups_or(std::size_t usual) const {
    const std::size_t g = opt.extra.count("groups") ? opt.groups : usual;
    return g ? g : env.info.fill_groups();
}

void Lab::reject_groups(const std::string &instead) const {
    if (opt.extra.count("groups")) throw UsageError("--groups is not used here: " + instead);
}

std::ostream *Lab::csv() {
    if (opt.csv.empty()) return nullptr;
    if (opt.csv == "-") return &std::cout;
    if (!csv_file_) {
        auto f = std::make_unique<std::ofstream>(opt.csv);
        if (!*f) throw UsageError("cannot write --csv file " + opt.csv + ": check the folder exists");
        csv_file_ = std::move(f);
    }
    return csv_file_.get();
}

namespace {

// OpenCL cannot cancel a running kernel, so a kernel that never ends (an endless loop, a barrier
// only some work-items reach) would hang the lab in clFinish. The watchdog ends the process.
class Watchdog {
public:
    Watchdog(const std::string &program, double seconds) {
        if (seconds <= 0) return;
        thread_ = std::thread([this, program, seconds] {
            std::unique_lock<std::mutex> lock(m_);
            if (cv_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return done_; }))
                return;
            std::fflush(stdout);
            std::fprintf(stderr,
                         "%s: stopped after %g s: a kernel did not finish (an endless loop, or a "
                         "barrier that not every work-item reaches?); raise --timeout if the run "
                         "is just long\n",
                         program.c_str(), seconds);
            std::fflush(stderr);
            _exit(kWrong);
        });
    }
    ~Watchdog() {
        if (!thread_.joinable()) return;
        {
            std::lock_guard<std::mutex> lock(m_);
            done_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }

private:
    std::mutex m_;
    std::condition_variable cv_;
    bool done_ = false;
    std::thread thread_;
};

}  // namespace

int run_lab(int argc, char **argv, const LabSpec &spec, const std::function<int(Lab &)> &body) {
    return guarded_main(spec.name.c_str(), [&]() -> int {
        std::string variants = "variant to run: ";
        for (const auto &v : spec.demonstrations) variants += v + " (demonstration), ";
        for (const auto &v : spec.variants) variants += v + ", ";
        variants += "or all";
        auto parser = make_parser(spec.name, spec.description, variants,
                                  spec.variants.size() + spec.demonstrations.size() == 2 ? "both"
                                                                                        : "all");
        if (spec.add_options) spec.add_options(parser);
        Options opt;
        if (!parse(parser, argc, argv, opt)) return kOk;
        if (opt.list_devices) {
            list_devices(std::cout);
            return kOk;
        }
        Watchdog watchdog(spec.name, opt.timeout);
        Lab lab(spec, std::move(opt));
        const int rc = body(lab);
        lab.env.queue.finish();
        lab.env.report_oclgrind(std::cout);
        return rc;
    });
}

}  // namespace synclab
