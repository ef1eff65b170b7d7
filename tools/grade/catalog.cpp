// The labs stage of synclab-grade: which labs there are, which can be graded, which are asked.
#include "catalog.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <ostream>
#include <regex>
#include <sstream>

#include "synclab/errors.hpp"

namespace fs = std::filesystem;
using synclab::UsageError;

namespace grade {
namespace {

std::string self_dir() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) throw UsageError("cannot find the grader's own folder (/proc/self/exe): run it on Linux");
    return exe.parent_path().string();
}

// The project's kernels/: SYNCLAB_SOURCE_DIR, then beside or above the grader, then the source
// tree it was built from.
std::string project_kernels(const std::string &bin, const std::vector<Recipe> &labs) {
    std::vector<fs::path> tries;
    if (const char *env = std::getenv("SYNCLAB_SOURCE_DIR"); env && *env)
        tries.push_back(fs::path(env) / "kernels");
    fs::path p = bin;
    for (int up = 0; up < 4 && !p.empty(); ++up, p = p.parent_path()) {
        tries.push_back(p / "kernels");
        if (p == p.root_path()) break;
    }
    tries.push_back(fs::path(SYNCLAB_SOURCE_DIR) / "kernels");
    std::error_code ec;
    for (const auto &t : tries)
        for (const auto &r : labs)
            if (fs::is_regular_file(t / r.kernel_file, ec)) return t.string();
    return "";
}

std::string normalize_lab(std::string id) {
    if (id.rfind("lab", 0) == 0) id = id.substr(3);
    if (id.size() == 1 && std::isdigit(static_cast<unsigned char>(id[0]))) id = "0" + id;
    return id;
}

}  // namespace

Catalog find_labs(const volatile int *stop) {
    Catalog c;
    c.bin = self_dir();
    // The labs are whatever lab executables stand beside the grader and describe themselves.
    c.all = discover_labs(c.bin, &c.problems, stop);
    const std::string project = project_kernels(c.bin, c.all);
    std::error_code ec;
    for (const auto &p : c.problems) c.not_gradable += " " + p + ";";
    for (const auto &r : c.all) {
        if (!project.empty() && fs::is_regular_file(fs::path(project) / r.kernel_file, ec))
            c.gradable.push_back(&r);
        else
            c.not_gradable += " lab " + r.id + " (no kernels/" + r.kernel_file + ")";
    }
    return c;
}

void list_labs(const Catalog &c, const std::vector<const Recipe *> &labs,
               const std::map<std::string, unsigned> &points, std::ostream &out, std::ostream &err) {
    for (const auto *r : labs) {
        const unsigned n = points.at(r->id);
        out << r->id << "  " << r->executable << "  " << r->kernel_file << "  " << n
            << (n == 1 ? " point" : " points") << "\n";
    }
    for (const auto &p : c.problems) err << "synclab-grade: not a lab: " << p << "\n";
}

std::vector<const Recipe *> select_labs(const Catalog &c, bool has_list, const std::string &list) {
    std::vector<const Recipe *> labs;
    if (!has_list) {
        labs = c.gradable;
    } else {
        std::stringstream ss(list);
        for (std::string id; std::getline(ss, id, ',');) {
            if (id.empty()) continue;
            id = normalize_lab(id);
            const auto it = std::find_if(c.gradable.begin(), c.gradable.end(),
                                         [&](const Recipe *r) { return r->id == id; });
            if (it == c.gradable.end()) {
                std::string known;
                for (const auto *r : c.gradable) known += (known.empty() ? "" : ",") + r->id;
                throw UsageError("lab '" + id + "' cannot be graded here: gradable labs are " +
                                 (known.empty() ? "none" : known) +
                                 (c.not_gradable.empty() ? "" : "; not gradable:" + c.not_gradable));
            }
            if (std::find(labs.begin(), labs.end(), *it) == labs.end()) labs.push_back(*it);
        }
        if (labs.empty())
            throw UsageError("--labs '" + list + "' names no lab: give ids such as 01,02, or "
                             "leave --labs out to grade every lab");
    }
    if (labs.empty())
        throw UsageError("no lab can be graded: build the labs first (cmake --build build)" +
                         (c.not_gradable.empty() ? std::string() : ";" + c.not_gradable));
    return labs;
}

std::map<std::string, unsigned> lab_points(const std::vector<const Recipe *> &labs,
                                           const std::string &list) {
    std::map<std::string, unsigned> points;
    for (const auto *r : labs) points[r->id] = r->declaration.points;
    static const std::regex item(R"(([A-Za-z0-9]+)=([0-9]{1,4}))");
    std::stringstream ss(list);
    for (std::string text; std::getline(ss, text, ',');) {
        if (text.empty()) continue;
        std::smatch m;
        if (!std::regex_match(text, m, item))
            throw UsageError("--points: '" + text + "' is not LAB=POINTS: write it like 09=3,10=2 "
                             "(whole points, at most 9999)");
        const std::string id = normalize_lab(m[1]);
        if (!points.count(id))
            throw UsageError("--points names lab " + id + ", which this run does not grade: give "
                             "points only to the labs graded (see --labs and --list-labs)");
        points[id] = static_cast<unsigned>(std::stoul(m[2]));
    }
    return points;
}

}  // namespace grade
