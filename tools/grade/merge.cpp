// --merge: the shards' gradebooks joined, their rows kept word for word (totals included).
#include "merge.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

#include "judged_by.hpp"
#include "synclab/errors.hpp"

namespace fs = std::filesystem;
using synclab::UsageError;

namespace grade {
namespace {

// A student's rows in one gradebook.
struct Block {
    std::string file;
    std::vector<std::string> rows;  // as written, labs then the total
    std::set<std::string> labs;
    bool total = false;
    std::size_t passed = 0;
};

std::string read_whole(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in || fs::is_directory(path))
        throw UsageError("cannot read the gradebook " + path + ": check the path (--merge takes "
                         "gradebook files)");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// What the gradebooks say judged them: each lab's first row (its file and judged_by), and each
// file's shard ("I/N", "" a whole class's) and class size.
struct Judged {
    std::map<std::string, std::pair<std::string, std::string>> lab;  // lab -> (file, judged_by)
    std::map<std::string, std::pair<std::string, std::string>> shard;  // file -> (I/N, class)
};

// A row's judged_by against the first of its lab's, and its shard against its file's other rows.
void check_judged(const std::string &path, const std::string &lab, const std::string &judged_by,
                  Judged &j) {
    const auto [at, first] = j.lab.emplace(lab, std::pair{path, judged_by});
    if (!first) {
        const std::string why = settings_difference(at->second.second, judged_by);
        if (!why.empty())
            throw UsageError(
                (at->second.first == path ? "the gradebook " + path + " holds rows"
                                          : "the gradebooks " + at->second.first + " and " + path + " hold rows") +
                " graded under other settings (lab " + lab + ": " + why + "): grade every shard " +
                "with the same options, --draw-key and grader (--resume grades such rows again), then merge");
    }
    const auto f = judged_fields(judged_by);
    const std::pair<std::string, std::string> shard{f.count("shard") ? f.at("shard") : "",
                                                    f.count("class") ? f.at("class") : ""};
    const auto [mine, new_file] = j.shard.emplace(path, shard);
    if (!new_file && mine->second != shard)
        throw UsageError("the gradebook " + path + " holds rows of two shards (" +
                         (mine->second.first.empty() ? "the whole class" : mine->second.first) + " and " +
                         (shard.first.empty() ? "the whole class" : shard.first) +
                         "): give each shard's own gradebook");
}

// Every student's rows of one gradebook added to `students`; a student another file holds is
// refused.
void read_shard(const std::string &path, std::map<std::string, Block> &students, Judged &judged) {
    const std::string text = read_whole(path);
    std::size_t whole = 0;
    const std::vector<CsvLine> lines = csv_records(text, &whole);
    if (whole < text.size())
        throw UsageError("the gradebook " + path + " ends in a row cut short (its grader was "
                         "stopped): run that shard again with --resume, then merge");
    if (!lines.empty() && lines[0].fields.size() == 9)
        throw UsageError("the gradebook " + path + " was written by an older grader, whose rows do "
                         "not say what judged them: grade that shard again with --resume, then merge");
    if (lines.empty() || lines[0].fields.size() != 10 ||
        lines[0].raw.substr(0, lines[0].raw.find_first_of("\r\n")) != kGradebookHeader)
        throw UsageError("the gradebook " + path + " is not one this grader writes (its first "
                         "line is not '" + std::string(kGradebookHeader) + "'): give the shards' "
                         "gradebooks");
    std::set<std::string> mine;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        const auto &f = lines[i].fields;
        if (f.size() != 10 || f[0].empty() || f[1].empty())
            throw UsageError("the gradebook " + path + " has a row that is no grader's row (line " +
                             std::to_string(i + 1) + "): give the shards' gradebooks as written");
        Block &b = students[f[0]];
        if (!b.file.empty() && b.file != path)
            throw UsageError("student " + f[0] + " is in both " + b.file + " and " + path +
                             ": each student belongs to one shard (grade one class folder, each "
                             "shard with its own --shard I/N)");
        b.file = path;
        mine.insert(f[0]);
        b.rows.push_back(lines[i].raw);
        if (f[1] == kTotalLab) {
            b.total = true;
        } else {
            b.labs.insert(f[1]);
            b.passed += f[2] == "pass";
            check_judged(path, f[1], f[9], judged);
        }
    }
    for (const auto &s : mine)
        if (!students[s].total)
            throw UsageError("the gradebook " + path + " is not finished (student " + s + " has "
                             "no total row): run that shard again with --resume, then merge");
}

std::string lab_list(const std::set<std::string> &labs) {
    std::string out;
    for (const auto &l : labs) out += (out.empty() ? "" : ",") + l;
    return out;
}

// "three", or "12".
std::string count_word(unsigned n) {
    static const char *const words[] = {"zero", "one", "two", "three", "four", "five",
                                        "six",  "seven", "eight", "nine", "ten"};
    return n <= 10 ? words[n] : std::to_string(n);
}

// The shards the gradebooks are: all of one N and one class, each once, none missing (a shard
// past the class's size has no student, and no row to say it is there). Whole-class gradebooks
// (no shard) merge with one another only.
void check_shards(const Judged &j) {
    const std::pair<const std::string, std::pair<std::string, std::string>> *first = nullptr;
    std::map<unsigned, std::string> have;  // I -> its file
    unsigned count = 0;
    for (const auto &entry : j.shard) {
        const auto &[file, shard] = entry;
        if (!first) first = &entry;
        const auto &[theirs, their_class] = first->second;
        auto of_n = [](const std::string &i_n) { return i_n.substr(std::min(i_n.find('/'), i_n.size())); };
        if (shard.first.empty() != theirs.empty() || of_n(shard.first) != of_n(theirs))
            throw UsageError("the gradebooks " + first->first + " and " + file + " are not shards of one "
                             "--shard N (" + (theirs.empty() ? "the whole class" : "shard " + theirs) + ", " +
                             (shard.first.empty() ? "the whole class" : "shard " + shard.first) +
                             "): merge the shards of one grading");
        if (shard.first.empty()) continue;
        if (shard.second != their_class)
            throw UsageError("the shards " + first->first + " and " + file + " saw classes of " + their_class +
                             " and " + shard.second + " students: every shard must see the same class "
                             "folder; grade them again, then merge");
        const unsigned i = static_cast<unsigned>(std::strtoul(shard.first.c_str(), nullptr, 10));
        count = static_cast<unsigned>(std::strtoul(shard.first.c_str() + shard.first.find('/') + 1, nullptr, 10));
        if (const auto [at, fresh] = have.emplace(i, file); !fresh)
            throw UsageError("the gradebooks " + at->second + " and " + file + " are both shard " +
                             shard.first + ": give each shard's gradebook once");
    }
    if (!count) return;
    const auto students = std::strtoul(first->second.second.c_str(), nullptr, 10);
    std::vector<std::string> missing;
    for (unsigned i = 1; i <= count && i <= students; ++i)
        if (!have.count(i)) missing.push_back(std::to_string(i) + "/" + std::to_string(count));
    if (missing.empty()) return;
    std::string names, options;
    for (std::size_t k = 0; k < missing.size(); ++k) {
        const std::string sep = k == 0 ? "" : k + 1 == missing.size() ? " and " : ", ";
        names += sep + missing[k];
        options += sep + "--shard " + missing[k];
    }
    throw UsageError((missing.size() == 1 ? "shard " + names + " is missing: grade it with "
                                          : "shards " + names + " are missing: grade them with ") +
                     options + " and merge " + (count == 2 ? "both" : "all " + count_word(count)));
}

}  // namespace

void merge_gradebooks(const std::vector<std::string> &inputs, const std::string &out,
                      Gradebook::Mode mode, std::ostream &os) {
    std::error_code ec;
    std::set<fs::path> seen;
    for (const auto &in : inputs) {
        const fs::path at = fs::weakly_canonical(in, ec);
        if (at == fs::weakly_canonical(out, ec))
            throw UsageError("--csv " + out + " is also a gradebook to merge: give --csv another file");
        if (!seen.insert(at).second)
            throw UsageError("the gradebook " + in + " is named twice: name each shard's once");
    }
    if (mode != Gradebook::Mode::restart && fs::is_regular_file(out, ec) &&
        read_whole(out).size() > std::string(kGradebookHeader).size() + 1)
        throw UsageError("the gradebook " + out + " already holds rows: give --csv a new file, or "
                         "--restart to replace it");
    std::map<std::string, Block> students;  // by name as written: one run's order
    Judged judged;
    for (const auto &in : inputs) read_shard(in, students, judged);
    const Block *first = nullptr;
    std::string text;
    std::size_t rows = 0, passed = 0;
    for (const auto &[name, b] : students) {
        if (!first) first = &b;
        if (b.labs != first->labs)
            throw UsageError("the shards graded different labs (" + first->file + ": " +
                             lab_list(first->labs) + "; " + b.file + ": " + lab_list(b.labs) +
                             "): grade every shard with the same --labs");
        for (const auto &r : b.rows) text += r;
        rows += b.labs.size();
        passed += b.passed;
    }
    check_shards(judged);
    Gradebook book(out, mode);
    book.replace(text);
    os << "merged " << inputs.size() << " gradebook(s): " << students.size() << " student(s), "
       << passed << "/" << rows << " lab row(s) passed, into " << out << "\n";
}

}  // namespace grade
