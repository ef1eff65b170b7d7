// --merge: the shards' gradebooks joined, their rows kept word for word (totals included).
#include "merge.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

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

// Every student's rows of one gradebook added to `students`; a student another file holds is
// refused.
void read_shard(const std::string &path, std::map<std::string, Block> &students) {
    const std::string text = read_whole(path);
    std::size_t whole = 0;
    const std::vector<CsvLine> lines = csv_records(text, &whole);
    if (whole < text.size())
        throw UsageError("the gradebook " + path + " ends in a row cut short (its grader was "
                         "stopped): run that shard again with --resume, then merge");
    if (lines.empty() || lines[0].fields.size() != 9 ||
        lines[0].raw.substr(0, lines[0].raw.find_first_of("\r\n")) != kGradebookHeader)
        throw UsageError("the gradebook " + path + " is not one this grader writes (its first "
                         "line is not '" + std::string(kGradebookHeader) + "'): give the shards' "
                         "gradebooks");
    std::set<std::string> mine;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        const auto &f = lines[i].fields;
        if (f.size() != 9 || f[0].empty() || f[1].empty())
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
    for (const auto &in : inputs) read_shard(in, students);
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
    Gradebook book(out, mode);
    book.replace(text);
    os << "merged " << inputs.size() << " gradebook(s): " << students.size() << " student(s), "
       << passed << "/" << rows << " lab row(s) passed, into " << out << "\n";
}

}  // namespace grade
