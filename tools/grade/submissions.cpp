// The submissions stage of synclab-grade: the students' folders and where the outputs may go.
#include "submissions.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <tuple>
#include <unistd.h>

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

// A folder the grader cannot list fails as refused, not as every file "missing".
std::string unreadable(const std::string &dir) {
    if (access(dir.c_str(), R_OK | X_OK) == 0) return "";
    return "the submission folder cannot be read (" + std::string(std::strerror(errno)) +
           "): make it readable by the grader (chmod -R u+rX), then grade it again";
}

// Why a class's entry `name` (of type `type`) is not graded, in one line with what to do; ""
// when it is graded.
std::string refused_entry(const std::string &name, fs::file_type type, const std::string &path) {
    if (type == fs::file_type::symlink)
        return "the submission folder is a symbolic link: hand in a folder holding your own files";
    if (name[0] == '.')
        return "the folder's name starts with '.' (a hidden folder), so it was not graded: rename "
               "it without the leading '.' and grade it again";
    const std::string flaw = name_flaw(name);
    if (!flaw.empty())
        return "the folder's name holds " + flaw + ", so it was not graded: rename it with "
               "letters, digits, '-' and '_' and grade it again";
    return unreadable(path);
}

// A class's files are no students: they are said once, not graded (a gradebook or a notes
// file may sit there; a zip handed in must be unpacked into a folder of its own).
void note_files(const std::vector<std::string> &files) {
    if (files.empty()) return;
    std::string list;
    for (std::size_t i = 0; i < files.size() && i < 5; ++i)
        list += (i ? ", " : "") + shown(files[i]);
    if (files.size() > 5) list += " and " + std::to_string(files.size() - 5) + " more";
    std::cout << "not graded: " << files.size() << " file(s) of the class folder that are not "
              << "folders (" << list << "): put each student's files in a folder of its own\n";
}

}  // namespace

// A student's folder that cannot be graded fails that student, not the class, and every
// sub-folder has its rows: none is left out without a word.
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
        subs.push_back({fs::path(dir).filename().string(), dir, unreadable(dir)});
        return subs;
    }
    const std::string dir = absolute(given);
    if (!fs::is_directory(dir, ec))
        throw UsageError("--class " + given +
                         " is not a folder: give the folder whose sub-folders are submissions");
    const fs::directory_iterator listing(dir, ec);
    if (ec)
        throw UsageError("--class " + given + " cannot be read (" + ec.message() +
                         "): make it readable by the grader");
    std::vector<std::string> files;  // hidden ones (.DS_Store) not even named
    for (const auto &e : listing) {
        const std::string name = e.path().filename().string();
        const auto type = e.symlink_status(ec).type();
        const std::string path = (fs::path(dir) / name).string();
        if (type == fs::file_type::directory || type == fs::file_type::symlink)
            subs.push_back({name, path, refused_entry(name, type, path)});
        else if (name[0] != '.') files.push_back(name);
    }
    std::sort(subs.begin(), subs.end(),
              [](const Submission &a, const Submission &b) { return a.student < b.student; });
    std::sort(files.begin(), files.end());
    if (subs.empty())
        throw UsageError("--class " + given +
                         " has no sub-folders: put each student's files in a folder of its own");
    note_files(files);
    return subs;
}

std::vector<Submission> shard_of(const std::vector<Submission> &subs, unsigned index, unsigned count) {
    std::vector<Submission> out;
    for (std::size_t i = index - 1; i < subs.size(); i += count) out.push_back(subs[i]);
    return out;
}

// Absolute (the grader works in its own folder), never inside a submission; "" is not written.
Outputs check_outputs(const Outputs &given, const std::vector<Submission> &subs) {
    Outputs out;
    for (auto [option, from, to] : {std::tuple{"--csv", &given.csv, &out.csv},
                                    std::tuple{"--junit", &given.junit, &out.junit},
                                    std::tuple{"--gradescope", &given.gradescope, &out.gradescope},
                                    std::tuple{"--prairielearn", &given.prairielearn, &out.prairielearn}}) {
        if (from->empty()) continue;
        *to = absolute(*from);
        const bool folder = to == &out.junit;
        for (const auto &s : subs)
            if (s.refused.empty() && (inside(*to, s.dir) || (folder && inside(s.dir, *to))))
                throw UsageError(std::string(to == &out.csv ? "the gradebook " : option + std::string(" ")) +
                                 *to + " would be inside the submission " + s.dir +
                                 ": give " + option + (folder ? " DIR" : " FILE") + " elsewhere");
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

SubmissionFiles files_of(const Submission &sub, const std::vector<Recipe> &labs, bool gather) {
    SubmissionFiles f;
    if (!sub.refused.empty()) {
        f.sha256 = sha256_hex("refused\n" + sub.refused);
        return f;
    }
    f.folder = kernels_in(sub.dir, labs);
    if (gather) {
        f.found = find_handed_in(sub.dir);
        std::vector<std::string> known;
        std::vector<std::pair<std::string, std::string>> ids;
        for (const auto &r : labs) {
            known.push_back(r.kernel_file);
            ids.push_back({r.id, r.kernel_file});
        }
        f.gathered = needs_gathering(f.found, f.folder, known);
        f.misnamed = misnamed_files(f.found, ids);
    }
    f.sha256 = f.gathered ? files_sha256(f.found) : files_sha256(f.folder);
    return f;
}

void note_misnamed(std::vector<Result> &rows, const std::vector<Misnamed> &misnamed) {
    for (auto &r : rows)
        for (const auto &m : misnamed)
            if (r.grade == Grade::Missing && (m.lab.empty() || m.lab == r.lab)) r.reason += "; " + m.note;
}

std::set<std::string> named_students(const std::string &list, const std::vector<Submission> &subs) {
    std::set<std::string> out;
    std::size_t at = 0;
    for (;;) {
        const std::size_t comma = list.find(',', at);
        const std::string name = list.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        const bool known = std::any_of(subs.begin(), subs.end(),
                                       [&](const Submission &s) { return s.student == name; });
        if (!known)
            throw UsageError("--students " + shown(list) + ": '" + shown(name) + "' is no student "
                             "folder of the class: give the names of its sub-folders, comma-separated");
        out.insert(name);
        if (comma == std::string::npos) return out;
        at = comma + 1;
    }
}

}  // namespace grade
