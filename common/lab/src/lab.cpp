#include "synclab/lab.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "synclab/program_text.hpp"
#include "synclab/stress.hpp"
#include "synclab/todo.hpp"
#include "synclab/verdict.hpp"

namespace fs = std::filesystem;

namespace synclab {

bool is_power_of_two(std::size_t x) { return x && !(x & (x - 1)); }

// The lab's own (a check that cannot run its kernels) and the command's (--oclgrind-off).
static std::vector<std::string> oclgrind_checks_off(const Declaration &d, const Options &o) {
    std::vector<std::string> off = d.oclgrind_off;
    off.insert(off.end(), o.oclgrind_off.begin(), o.oclgrind_off.end());
    return off;
}

Lab::Lab(const Declaration &d, Options o)
    : decl(d), opt(std::move(o)), env(select_device(opt.device), oclgrind_checks_off(decl, opt), decl.oclgrind_groups > 0),
      seed(effective_seed(opt)) {
    // Oclgrind counts its reports per process and stops reporting at its cap: a later Oclgrind
    // run in one process (--batch) gets a cap past the earlier runs' count (Env), or, where
    // Oclgrind does not show its count, could miss its own races.
    static bool oclgrind_ran = false;
    if (env.info.is_oclgrind()) {
        if (oclgrind_ran && env.oclgrind_errors_before < 0)
            throw UsageError("one Oclgrind run per process with this Oclgrind: it counts its reports "
                             "per process and does not show the count, so give each Oclgrind run "
                             "its own (not two --batch lines)");
        oclgrind_ran = true;
    }
    rng.seed(seed);
    verdict::seed(seed);
    csv_stream();  // a CSV file that cannot be written is a usage error before any output
}

cl::Program Lab::program(const std::string &options) const {
    // A stress run's time is its delays, not its code: unoptimised, the build takes less time.
    const std::string built = stress_seed_ ? options + " -cl-opt-disable" : options;
    const std::string prelude = stress_seed_ ? stress_prelude() : "";
    const Profile *profile = active_profile();
    if (!profile)  // a student's own run: the file as it is
        return build_program(env.context, env.info.device, decl.kernel_file(), opt.kernels, built, prelude);
    // A graded run: the one program text every check builds, its instrumentation added after.
    const std::string path = find_kernel_file(decl.kernel_file(), opt.kernels);
    const std::string text = program_text(path, options, *profile, decl.local_limit);
    note_other_profiles(path, options, text);
    return build_program_text(env.context, env.info.device, path, text, built, prelude);
}

void Lab::check_compiles(const std::string &options) const {
    const Profile *profile = active_profile();
    if (!profile) {
        program(options);
        return;
    }
    program_text(find_kernel_file(decl.kernel_file(), opt.kernels), options, *profile, decl.local_limit);
}

void Lab::stress_schedule(std::uint64_t s) {
    seed = s;
    rng.seed(s);
    stress_seed_ = s;
    set_stress_schedule(s);
}

std::vector<std::string> Lab::selected_variants() const {
    std::vector<std::string> all;
    for (const auto &v : decl.variants) all.push_back(v.name);
    if (opt.variant == "all") return all;
    std::vector<std::string> out;
    std::string name;
    std::istringstream names(opt.variant);
    bool any = false;
    while (std::getline(names, name, ',') || !any) {
        any = true;
        if (!decl.find(name)) {
            std::string valid;
            for (const auto &v : all) valid += v + "|";
            throw UsageError("unknown --variant '" + name + "': use one of " + valid +
                             "all, or several separated by commas (" + all.front() + "," +
                             all.back() + ")");
        }
        if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    }
    if (!opt.variant.empty() && opt.variant.back() == ',')
        throw UsageError("--variant '" + opt.variant + "' ends with a comma: name a variant after it");
    return out;
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
    verdict::variant(variant, VariantState::Skipped, why);
}

void Lab::groups_met(const std::string &variant, std::size_t took_part) const {
    if (!env.info.is_oclgrind() || !decl.oclgrind_groups || took_part >= 2) return;
    const std::string why = "fences between work-groups not checked in " + variant + ": " +
                            std::to_string(took_part) + " group took part on Oclgrind (the others "
                            "were not running yet): run the race check again";
    verdict::finding(variant, FindingKind::NotChecked, "", why);
    std::printf("Oclgrind: %s\n", why.c_str());
}

int Lab::exit_code(const std::vector<Verdict> &given) {
    if (given.empty())
        throw Unsupported("nothing was verified: every variant asked for was skipped on this "
                          "device (see above): choose another --variant or --device");
    std::vector<Verdict> verdicts = given;
    if (env.info.is_oclgrind()) attribute_oclgrind_findings(verdicts);
    const bool alone = verdicts.size() == 1;
    int rc = kOk;
    for (const auto &v : verdicts) {
        if (!v.ok && is_optional(v.variant)) {  // ungraded: the run's code is the graded ones'
            const bool done = unwritten_todo(v.variant).empty();
            verdict::variant(v.variant, done ? VariantState::Wrong : VariantState::Skipped,
                             done ? v.detail : result_text(v.variant, false, v.detail));
            if (alone) rc = kWrong;
            continue;
        }
        verdict::variant(v.variant, v.ok ? VariantState::Verified : VariantState::Wrong, v.detail);
        if (!v.ok && (alone || !is_demonstration(v.variant))) rc = kWrong;
    }
    return rc;
}

bool Lab::is_optional(const std::string &variant) const {
    const Variant *v = decl.find(variant);
    return v && !v->graded && !v->demonstration;
}

std::string Lab::unwritten_todo(const std::string &variant) const {
    const Variant *v = decl.find(variant);
    if (!v) return "";
    std::ifstream in(find_kernel_file(decl.kernel_file(), opt.kernels));
    std::ostringstream file;
    file << in.rdbuf();
    return unwritten_part(file.str(), v->kernels);
}

std::string Lab::result_text(const std::string &variant, bool ok, const std::string &text) const {
    if (ok || !is_optional(variant)) return text;
    const std::string part = unwritten_todo(variant);
    return part.empty() ? text : "not done (optional: the TODO in " + part + " is still to write)";
}

int Lab::finish(int rc) {
    if (!env.info.is_oclgrind()) return rc;
    // Findings no exit_code() told: kernels run after it, or a lab that never called it.
    const auto found = new_oclgrind_findings();
    for (const auto &f : found) {
        const std::string message = f.message();
        verdict::finding("-", finding_kind(f.kind), f.where(), message);
        std::printf("Oclgrind: WRONG: %s\n", message.c_str());
    }
    if (!found.empty()) {
        ++oclgrind_findings_;
        if (rc == kOk) rc = kWrong;
    }
    std::error_code ec;
    const bool readable = !env.oclgrind_log.empty() && fs::is_regular_file(env.oclgrind_log, ec);
    // Loaded is not enough: the plugin says "hbcheck: on" in the log once it runs.
    std::string unchecked = env.hbcheck_missing;
    if (unchecked.empty() && !env.hbcheck.empty() && readable && !hbcheck_seen_)
        unchecked = "hbcheck (" + env.hbcheck + ") did not run: Oclgrind could not load it (its "
                    "message is on standard error)";
    const bool judged = !env.hbcheck.empty() && unchecked.empty();
    if (!readable)
        std::printf("Oclgrind: its reports went to %s, not a regular file the lab can read back: "
                    "they were not checked (leave OCLGRIND_LOG unset, or name a file)\n",
                    env.oclgrind_log.empty() ? "standard error" : env.oclgrind_log.c_str());
    else if (!oclgrind_findings_)
        std::printf("Oclgrind: no data race%s, barrier divergence, out-of-bounds or uninitialised "
                    "access reported\n",
                    judged ? ", unordered access between work-groups (hbcheck)" : "");
    if (!unchecked.empty()) {
        const std::string why = "fences between work-groups not checked: " + unchecked;
        verdict::finding("-", FindingKind::NotChecked, "", why);  // not a failing kind: the grader says it
        std::printf("Oclgrind: %s\n", why.c_str());
    }
    if (readable && oclgrind_findings_ && !std::getenv("OCLGRIND_LOG"))
        std::printf("(set OCLGRIND_LOG=FILE to keep Oclgrind's full reports)\n");
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

}  // namespace synclab
