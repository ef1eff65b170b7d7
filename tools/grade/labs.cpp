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

std::vector<std::vector<std::string>> race_checks_of(const Recipe &r, const std::string &key,
                                                     const std::string &kernel_text) {
    auto shapes = r.declaration.race_checks;
    const auto &drawn = r.declaration.drawn_checks;
    if (drawn.empty()) return shapes;
    // The first 64 bits of SHA-256 over the key, the lab and the text, each ended by a NUL (no
    // key and text run together into another's).
    const std::string digest = sha256_hex(key + '\0' + r.id + '\0' + kernel_text);
    const std::uint64_t h = std::stoull(digest.substr(0, 16), nullptr, 16);
    shapes.push_back(drawn[h % drawn.size()]);
    return shapes;
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
