#include "synclab/lab.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <mutex>
#include <new>
#include <thread>
#include <unistd.h>

#include "synclab/verdict.hpp"

namespace synclab {

bool is_power_of_two(std::size_t x) { return x && !(x & (x - 1)); }

Lab::Lab(const Declaration &d, Options o)
    : decl(d), opt(std::move(o)), env(select_device(opt.device)), seed(effective_seed(opt)) {
    rng.seed(seed);
    verdict::seed(seed);
    csv_stream();  // a CSV file that cannot be written is a usage error before any output
}

cl::Program Lab::program(const std::string &options) const {
    return build_program(env.context, env.info.device, decl.kernel_file(), opt.kernels, options);
}

std::vector<std::string> Lab::selected_variants() const {
    std::vector<std::string> all;
    for (const auto &v : decl.variants) all.push_back(v.name);
    if (opt.variant == "all") return all;
    if (decl.find(opt.variant)) return {opt.variant};
    std::string names;
    for (const auto &v : all) names += v + "|";
    throw UsageError("unknown --variant '" + opt.variant + "': use one of " + names + "all");
}

bool Lab::is_demonstration(const std::string &v) const {
    const Variant *found = decl.find(v);
    return found && found->demonstration;
}

const std::string &Lab::kernel_name(const std::string &variant) const {
    const Variant *v = decl.find(variant);
    if (!v || v->kernels.empty()) throw std::logic_error("variant " + variant + " names no kernel");
    return v->kernels.front();
}

void Lab::banner(const std::string &what) const {
    std::printf("%s on %s / %s: %s, seed %llu\n", decl.executable().c_str(),
                env.info.platform.c_str(), env.info.name.c_str(), what.c_str(),
                static_cast<unsigned long long>(seed));
}

void Lab::skipped(const std::string &variant, const std::string &why) const {
    verdict::variant(variant, "skipped", why);
}

int Lab::exit_code(const std::vector<Verdict> &verdicts) const {
    if (verdicts.empty())
        throw Unsupported("nothing was verified: every variant asked for was skipped on this "
                          "device (see above): choose another --variant or --device");
    const bool alone = verdicts.size() == 1;
    int rc = kOk;
    for (const auto &v : verdicts) {
        verdict::variant(v.variant, v.ok ? "verified" : "wrong", v.detail);
        if (!v.ok && (alone || !is_demonstration(v.variant))) rc = kWrong;
    }
    return rc;
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

Csv Lab::csv(const std::vector<std::string> &columns) { return Csv(csv_stream(), columns); }

std::ostream *Lab::csv_stream() {
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
            char message[320];
            std::snprintf(message, sizeof message,
                          "stopped after %g s: a kernel did not finish (an endless loop, or a "
                          "barrier that not every work-item reaches?); raise --timeout if the run "
                          "is just long", seconds);
            std::fprintf(stderr, "%s: %s\n", program.c_str(), message);
            std::fflush(stderr);
            verdict::result(kWrong, "timeout", "", message);
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

int guarded_main(const char *program, const std::function<int()> &body) {
    // Every way out: one line on stderr, the exit code, and the same as a verdict record.
    auto fail = [&](int rc, const char *kind, const std::string &message,
                    const std::string &where = "") {
        std::cerr << program << ": " << message << "\n";
        std::string first = message.substr(0, message.find('\n'));
        verdict::result(rc, kind, where, first);
        return rc;
    };
    try {
        const int rc = body();
        verdict::result(rc, rc == kOk ? "verified" : rc == kWrong ? "wrong" : "usage", "", "");
        return rc;
    } catch (const BuildError &e) {
        std::cerr << program << ": " << e.what() << "\n";
        verdict::result(kUsage, "compile-error", e.where,
                        e.first_error.empty() ? "the kernel file does not build" : e.first_error);
        return kUsage;
    } catch (const Unsupported &e) {
        return fail(kUsage, "unsupported", e.what());
    } catch (const UsageError &e) {
        return fail(kUsage, "usage", e.what());
    } catch (const cl::Error &e) {
        if (kernel_failed(e))
            return fail(kWrong, "crash",
                        std::string(e.what() ? e.what() : "OpenCL call") + " failed: " +
                            cl_error_name(e.err()) +
                            ": a kernel failed on the device, most often by reading or writing "
                            "out of bounds: run it with --device oclgrind to see where");
        return fail(kUsage, "error", describe(e));
    } catch (const cxxopts::exceptions::exception &e) {
        return fail(kUsage, "usage", std::string(e.what()) + " (see --help)");
    } catch (const std::bad_alloc &) {
        return fail(kUsage, "error", "out of host memory: try a smaller -n");
    } catch (const std::exception &e) {
        return fail(kUsage, "error", e.what());
    } catch (...) {
        return fail(kUsage, "error", "unknown error");
    }
}

int run_lab(int argc, char **argv, const Declaration &decl, const std::function<int(Lab &)> &body) {
    const std::string name = decl.executable();
    return guarded_main(name.c_str(), [&]() -> int {
        std::string variants = "variant to run: ";
        for (const auto &v : decl.variants)
            variants += v.name + (v.demonstration ? " (demonstration)" : "") + ", ";
        variants += "or all";
        auto parser = make_parser(name, decl.description, variants, "all");
        if (decl.options) decl.options(parser);
        Options opt;
        if (!parse(parser, argc, argv, opt)) return kOk;
        if (opt.describe) {
            describe(std::cout, decl);
            return kOk;
        }
        if (opt.list_devices) {
            list_devices(std::cout);
            return kOk;
        }
        Watchdog watchdog(name, opt.timeout);
        Lab lab(decl, std::move(opt));
        const int rc = body(lab);
        lab.env.queue.finish();
        lab.env.report_oclgrind(std::cout);
        return rc;
    });
}

}  // namespace synclab
