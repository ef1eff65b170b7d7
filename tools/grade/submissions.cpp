// The submissions stage of synclab-grade: the students' folders and where the outputs may go.
#include "submissions.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <tuple>

#include "synclab/errors.hpp"

namespace fs = std::filesystem;
using synclab::UsageError;

namespace grade {
namespace {

std::string absolute(const std::string &p) {
    std::error_code ec;
    const fs::path a = fs::weakly_canonical(fs::absolute(p), ec);
    return ec ? fs::absolute(p).lexically_normal().string() : a.string();
}

bool inside(const std::string &path, const std::string &dir) {
    const std::string d = dir.back() == '/' ? dir : dir + "/";
    return path == dir || path.rfind(d, 0) == 0;
}

}  // namespace

// A student's folder that is not a plain folder fails that student, not the class.
std::vector<Submission> collect_submissions(bool one, const std::string &given) {
    std::vector<Submission> subs;
    std::error_code ec;
    if (given.empty())
        throw UsageError(std::string("--") + (one ? "kernels" : "class") +
                         " is empty: give the folder's path");
    if (one) {
        const std::string dir = absolute(given);
        if (!fs::is_directory(dir, ec))
            throw UsageError("--kernels " + given +
                             " is not a folder: give the folder holding the .cl files");
        subs.push_back({fs::path(dir).filename().string(), dir, ""});
        return subs;
    }
    const std::string dir = absolute(given);
    if (!fs::is_directory(dir, ec))
        throw UsageError("--class " + given +
                         " is not a folder: give the folder whose sub-folders are submissions");
    for (const auto &e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.empty() || name[0] == '.') continue;
        const auto type = e.symlink_status(ec).type();
        if (type == fs::file_type::directory)
            subs.push_back({name, (fs::path(dir) / name).string(), ""});
        else if (type == fs::file_type::symlink)
            subs.push_back({name, (fs::path(dir) / name).string(),
                            "the submission folder is a symbolic link: hand in a folder "
                            "holding your own files"});
    }
    std::sort(subs.begin(), subs.end(),
              [](const Submission &a, const Submission &b) { return a.student < b.student; });
    if (subs.empty())
        throw UsageError("--class " + given +
                         " has no sub-folders: put each student's files in a folder of its own");
    return subs;
}

// Absolute (the grader works in its own folder), never inside a submission.
Outputs check_outputs(const Outputs &given, const std::vector<Submission> &subs) {
    if (given.csv.empty()) throw UsageError("--csv is empty: give a file name");
    if (given.junit.empty()) throw UsageError("--junit is empty: give a folder name");
    const std::string csv = absolute(given.csv);
    const std::string junit = absolute(given.junit);
    Outputs out{csv, junit, "", ""};
    for (auto [option, from, to] : {std::tuple{"--gradescope", &given.gradescope, &out.gradescope},
                                    std::tuple{"--prairielearn", &given.prairielearn, &out.prairielearn}}) {
        if (from->empty()) continue;
        *to = absolute(*from);
        for (const auto &s : subs)
            if (s.refused.empty() && inside(*to, s.dir))
                throw UsageError(std::string(option) + " " + *to + " would be inside the submission " +
                                 s.dir + ": give " + option + " FILE elsewhere");
    }
    for (const auto &s : subs) {
        if (!s.refused.empty()) continue;
        if (inside(csv, s.dir))
            throw UsageError("the gradebook " + csv + " would be inside the submission " + s.dir +
                             ": run from another folder or give --csv FILE elsewhere");
        if (inside(junit, s.dir) || inside(s.dir, junit))
            throw UsageError("the JUnit folder " + junit + " would be inside the submission " +
                             s.dir + ": give --junit DIR elsewhere");
    }
    return out;
}

// Links are not followed: a linked kernels/ is handed to staging, which refuses it.
std::string kernels_in(const std::string &dir, const std::vector<Recipe> &labs) {
    std::error_code ec;
    bool direct = false;
    for (const auto &r : labs)
        direct |= fs::symlink_status(fs::path(dir) / r.kernel_file, ec).type() != fs::file_type::not_found;
    const fs::path k = fs::path(dir) / "kernels";
    if (!direct && fs::symlink_status(k, ec).type() != fs::file_type::not_found) return k.string();
    return dir;
}

std::string shown(const std::string &name) {
    std::string out;
    for (unsigned char c : name) {
        if (c == '\n') out += "\\n";
        else if (c == '\r') out += "\\r";
        else if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else out += static_cast<char>(c);
    }
    return out;
}

}  // namespace grade
