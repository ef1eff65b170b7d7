#include "labs.hpp"

#include <algorithm>
#include <filesystem>
#include <regex>
#include <unistd.h>

#include "submission_files.hpp"  // sha256_hex
#include "synclab/process.hpp"

namespace fs = std::filesystem;

namespace grade {

Recipe recipe_of(const synclab::Declaration &d) {
    Recipe r;
    r.id = d.id();
    r.executable = d.executable();
    r.kernel_file = d.kernel_file();
    for (const auto &v : d.variants)
        if (v.graded && !v.demonstration) r.variants.push_back(v.name);
    r.declaration = d;
    return r;
}

std::uint64_t draw_hash(const std::string &key, const std::string &lab, const std::string &kernel_text,
                        const std::string &what) {
    // The first 64 bits of SHA-256 over the key, the lab and the text (and what is drawn, for
    // a count), each ended by a NUL (no key and text run together into another's).
    std::string in = key + '\0' + lab + '\0' + kernel_text;
    if (!what.empty()) in += std::string(1, '\0') + what;
    return std::stoull(sha256_hex(in).substr(0, 16), nullptr, 16);
}

namespace {

// Which member of the drawn sets this submission meets.
std::size_t drawn_member(const Recipe &r, const std::string &key, const std::string &kernel_text) {
    return draw_hash(key, r.id, kernel_text) % r.declaration.drawn_checks.size();
}

}  // namespace

std::vector<std::vector<std::string>> race_checks_of(const Recipe &r, const std::string &key,
                                                     const std::string &kernel_text) {
    auto shapes = r.declaration.race_checks;
    const auto &drawn = r.declaration.drawn_checks;
    if (drawn.empty()) return shapes;
    shapes.push_back(drawn[drawn_member(r, key, kernel_text)]);
    return shapes;
}

std::vector<unsigned> drawn_counts(const Recipe &r, const std::string &key, const std::string &kernel_text) {
    std::vector<unsigned> out;
    for (const auto &w : r.declaration.draws) {
        const std::uint64_t span = std::uint64_t(w.high) - w.low + 1;
        out.push_back(w.low + static_cast<unsigned>(draw_hash(key, r.id, kernel_text, w.name) % span));
    }
    return out;
}

Recipe drawn_recipe(const Recipe &r, const std::string &key, const std::string &kernel_text) {
    Recipe out = r;
    out.declaration = synclab::with_draws(r.declaration, drawn_counts(r, key, kernel_text));
    const auto &twins = out.declaration.drawn_grading;
    if (!twins.empty() && twins.size() == out.declaration.drawn_checks.size())
        out.declaration.grading.push_back(twins[drawn_member(out, key, kernel_text)]);
    return out;
}

std::vector<Recipe> discover_labs(const std::string &bin_dir, std::vector<std::string> *problems,
                                  const volatile int *stop) {
    static const std::regex name(R"(lab[0-9][0-9]_[A-Za-z0-9_]+)");
    std::vector<Recipe> labs;
    std::error_code ec;
    std::vector<fs::path> exes;
    for (const auto &e : fs::directory_iterator(bin_dir, ec))
        if (std::regex_match(e.path().filename().string(), name) && e.is_regular_file(ec) &&
            access(e.path().c_str(), X_OK) == 0)
            exes.push_back(e.path());
    std::sort(exes.begin(), exes.end());
    for (const auto &exe : exes) {
        synclab::ProcessLimits limits;
        limits.timeout_s = 30;
        limits.stop = stop;
        const auto p = synclab::run_process({exe.string(), "--describe"}, {}, limits);
        const std::string file = exe.filename().string();
        if (!p.exited || p.exit_code != 0) {
            if (problems) problems->push_back(file + ": --describe " + p.describe());
            continue;
        }
        try {
            synclab::Declaration d = synclab::parse_description(p.out);
            if (d.executable() != file) {
                if (problems)
                    problems->push_back(file + ": describes itself as " + d.executable() +
                                        " (rebuild it)");
                continue;
            }
            labs.push_back(recipe_of(d));
            labs.back().description = p.out;
        } catch (const std::exception &e) {
            if (problems) problems->push_back(file + ": " + e.what());
        }
    }
    return labs;
}

}  // namespace grade
