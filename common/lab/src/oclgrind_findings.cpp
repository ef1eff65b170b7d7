// Oclgrind's findings, told to the variants whose kernels they name (Lab::exit_code) or to the
// run as a whole (Lab::finish): the log read since the last look, its file names matched to the
// lab's kernel file, each finding printed and recorded.
#include "synclab/lab.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "synclab/verdict.hpp"

namespace fs = std::filesystem;

namespace synclab {

// Clang's debug info names an absolute file by what follows the leading folders it shares with
// the working folder (unless they are "/" alone), and Oclgrind reports that name: from /a/b,
// /a/k/x.cl is "k/x.cl".
static std::string debug_info_name(const std::string &display) {
    const fs::path file(display);
    std::error_code ec;
    const fs::path cwd = fs::current_path(ec);
    if (!file.is_absolute() || ec) return display;
    auto f = file.begin();
    int shared = 0;
    for (auto c = cwd.begin(); c != cwd.end() && f != file.end() && *c == *f; ++c, ++f) ++shared;
    if (shared <= 1) return display;
    fs::path rest;
    for (; f != file.end(); ++f) rest /= *f;
    return rest.string();
}

void Lab::locate_kernel_file() {
    if (kernel_located_) return;
    kernel_located_ = true;
    std::string path;
    try {
        path = find_kernel_file(decl.kernel_file(), opt.kernels);
    } catch (const UsageError &) {
        return;
    }
    kernel_display_ = display_path(path);
    kernel_reported_ = debug_info_name(kernel_display_);
    std::ifstream in(path, std::ios::binary);
    kernel_source_.resize(1u << 20);  // far above any kernel file a lab builds
    in.read(kernel_source_.data(), static_cast<std::streamsize>(kernel_source_.size()));
    // Still good after the read: a file larger than that, which is left unread.
    kernel_source_.resize(in ? 0 : static_cast<std::size_t>(in.gcount()));
    // Beside the working folder a path is the student's own; elsewhere (a grader's folders) the
    // file's name alone says it.
    kernel_shown_ = fs::path(kernel_display_).is_absolute() ? decl.kernel_file() : kernel_display_;
}

std::vector<OclgrindFinding> Lab::new_oclgrind_findings() {
    const std::string log = env.new_oclgrind_log();
    if (log.empty()) return {};
    if (hbcheck_ran(log)) hbcheck_seen_ = true;
    if (const int n = oclgrind_suppressed_after(log); n && !oclgrind_suppressed_) {
        oclgrind_suppressed_ = n;
        std::printf("Oclgrind stopped reporting after %d errors (OCLGRIND_MAX_ERRORS): what came "
                    "after them was not checked\n", n);
    }
    locate_kernel_file();
    std::vector<OclgrindFinding> out;
    for (auto &f : distinct(parse_oclgrind_log(log))) {
        // Groups that wait for one another order their accesses by fences and atomics, which
        // Oclgrind's own check does not know: hbcheck judges those (or says it could not).
        if (decl.oclgrind_groups && f.between_groups()) continue;
        if (!kernel_display_.empty() &&
            (f.file == kernel_display_ || f.file == kernel_reported_)) {
            f.see_source(kernel_source_);
            f.file = kernel_shown_;
        }
        if (f.fails()) out.push_back(f);
        else std::printf("Oclgrind also said: %s\n", f.message().c_str());
    }
    // The cause first, in the student's code where it can be: the grader keeps this order.
    order_findings(out, kernel_source_, kernel_shown_);
    return out;
}

// The verdict file keeps this many findings per variant; the rest are counted in its detail.
constexpr std::size_t kFindingsRecorded = 20;

void Lab::attribute_oclgrind_findings(std::vector<Verdict> &verdicts) {
    const auto found = new_oclgrind_findings();
    std::vector<std::vector<const OclgrindFinding *>> per(verdicts.size());
    for (const auto &f : found) {
        bool named = false;
        for (std::size_t i = 0; i < verdicts.size(); ++i) {
            const Variant *v = decl.find(verdicts[i].variant);
            if (v && std::find(v->kernels.begin(), v->kernels.end(), f.kernel) != v->kernels.end()) {
                per[i].push_back(&f);
                named = true;
            }
        }
        // A kernel that no variant run here names: the run as a whole is wrong.
        if (!named)
            for (auto &p : per) p.push_back(&f);
    }
    for (std::size_t i = 0; i < verdicts.size(); ++i) {
        Verdict &v = verdicts[i];
        const auto &mine = per[i];
        if (mine.empty()) {
            if (!oclgrind_suppressed_) continue;
            // Its kernels may have run after Oclgrind stopped reporting: it was not checked.
            v.ok = false;
            v.detail = "not race-checked: Oclgrind stopped reporting after " +
                       std::to_string(oclgrind_suppressed_) + " errors of other variants: run "
                       "--variant " + v.variant + " alone";
            std::printf("Oclgrind: %s WRONG: %s\n", v.variant.c_str(), v.detail.c_str());
            continue;
        }
        for (std::size_t k = 0; k < mine.size(); ++k) {
            const std::string message = mine[k]->message();
            if (k < kFindingsRecorded)
                verdict::finding(v.variant, finding_kind(mine[k]->kind), mine[k]->where(), message);
            std::printf("Oclgrind: %s %s: %s\n", v.variant.c_str(), k ? "also" : "WRONG",
                        message.c_str());
        }
        ++oclgrind_findings_;
        v.ok = false;
        v.detail = mine.front()->message();
        if (mine.size() > 1)
            v.detail += " (and " + std::to_string(mine.size() - 1) + " more Oclgrind finding" +
                        (mine.size() > 2 ? "s" : "") + ")";
    }
}

}  // namespace synclab
