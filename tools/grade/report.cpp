#include "report.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iterator>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <ostream>
#include <sstream>

#include "synclab/errors.hpp"

namespace fs = std::filesystem;

namespace grade {

namespace {

const char *kHeader = "student,lab,grade,kind,reason,seconds";

std::string csv_field(const std::string &s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) {
        if (c == '\n' || c == '\r') c = ' ';
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    }
    return q + "\"";
}

// One CSV record (RFC 4180 quoting); false when the line is not a whole record.
bool parse_csv_line(const std::string &line, std::vector<std::string> &fields) {
    fields.assign(1, "");
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                fields.back() += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                fields.back() += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.emplace_back();
        } else if (c != '\r') {
            fields.back() += c;
        }
    }
    return !quoted;
}

std::string xml(const std::string &s) {
    std::string out;
    for (unsigned char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            default:
                if (c < 0x20 && c != '\n' && c != '\t') out += ' ';  // not allowed in XML 1.0
                else out += static_cast<char>(c);
        }
    }
    return out;
}

std::string fixed(double x, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, x);
    return buf;
}

}  // namespace

Gradebook::Gradebook(const std::string &path, bool resume) : path_(path) {
    std::error_code ec;
    if (fs::path(path).has_parent_path()) fs::create_directories(fs::path(path).parent_path(), ec);
    const bool exists = fs::exists(path, ec);
    bool need_header = true;
    if (resume && exists) {
        std::ifstream in(path, std::ios::binary);
        std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        in.close();
        // A last line without its newline was cut short (the grader was killed while writing
        // it): it is dropped and graded again.
        if (!all.empty() && all.back() != '\n') {
            const auto cut = all.rfind('\n');
            all.resize(cut == std::string::npos ? 0 : cut + 1);
            fs::resize_file(path, all.size(), ec);
        }
        std::istringstream lines(all);
        std::string line;
        if (std::getline(lines, line)) {
            if (!line.empty() && line.back() == '\r') line.pop_back();
            if (line != kHeader)
                throw synclab::UsageError("--resume: " + path + " is not a synclab-grade gradebook "
                                          "(its first line is not '" + kHeader +
                                          "'): give another --csv");
            need_header = false;
        }
        std::vector<std::string> f;
        while (std::getline(lines, line)) {
            if (!parse_csv_line(line, f) || f.size() != 6 || f[0].empty() || f[1].empty()) continue;
            Result r;
            r.student = f[0];
            r.lab = f[1];
            r.grade = f[2];
            r.kind = f[3];
            r.reason = f[4];
            r.seconds = std::atof(f[5].c_str());
            r.kept = true;
            kept_.push_back(r);
        }
    }
    out_.open(path, need_header ? std::ios::trunc : std::ios::app);
    if (!out_)
        throw synclab::UsageError("cannot write the gradebook " + path +
                                  ": check the folder exists and is writable, or give --csv FILE");
    if (need_header) out_ << kHeader << "\n" << std::flush;
}

void Gradebook::append(const Result &r) {
    out_ << csv_field(r.student) << "," << csv_field(r.lab) << "," << r.grade << "," << r.kind << ","
         << csv_field(r.reason) << "," << fixed(r.seconds, 2) << "\n"
         << std::flush;
}

std::string file_name(const std::string &student) {
    std::string out;
    for (char c : student)
        out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c
                                                                                               : '_';
    if (out.empty() || out[0] == '.') out = "_" + out;
    return out;
}

std::vector<std::string> junit_names(const std::vector<std::string> &students) {
    std::vector<std::string> out(students.size());
    std::set<std::string> taken;  // lower case: some file systems ignore case
    auto key = [](std::string s) {
        std::transform(s.begin(), s.end(), s.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        return s;
    };
    auto claim = [&](std::size_t i) {
        const std::string base = file_name(students[i]);
        std::string name = base;
        for (int n = 2; taken.count(key(name)); ++n) name = base + "-" + std::to_string(n);
        taken.insert(key(name));
        out[i] = name;
    };
    for (int pass = 0; pass < 2; ++pass)  // clean names first, then the renamed ones
        for (std::size_t i = 0; i < students.size(); ++i)
            if ((file_name(students[i]) == students[i]) == (pass == 0)) claim(i);
    return out;
}

void write_junit(const std::string &junit_dir, const std::string &file, const std::string &student,
                 const std::vector<Result> &results) {
    int failures = 0;
    double total = 0;
    for (const auto &r : results) {
        failures += !r.passed();
        total += r.seconds;
    }
    std::ostringstream x;
    x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites name=\"synclab\" tests=\"" << results.size() << "\" failures=\"" << failures
      << "\" errors=\"0\" time=\"" << fixed(total, 3) << "\">\n"
      << "  <testsuite name=\"" << xml(student) << "\" tests=\"" << results.size()
      << "\" failures=\"" << failures << "\" errors=\"0\" skipped=\"0\" time=\""
      << fixed(total, 3) << "\">\n";
    for (const auto &r : results) {
        x << "    <testcase classname=\"synclab." << xml(file) << "\" name=\"lab "
          << xml(r.lab) << "\" time=\"" << fixed(r.seconds, 3) << "\">\n";
        if (!r.passed())
            x << "      <failure type=\"" << xml(r.kind) << "\" message=\"" << xml(r.reason)
              << "\">" << xml(r.reason + "\n\n" + r.details) << "</failure>\n";
        x << "      <system-out>" << xml(r.reason + (r.details.empty() ? "" : "\n\n" + r.details))
          << "</system-out>\n"
          << "    </testcase>\n";
    }
    x << "  </testsuite>\n</testsuites>\n";

    std::error_code ec;
    fs::create_directories(junit_dir, ec);
    const fs::path final_path = fs::path(junit_dir) / (file + ".xml");
    const fs::path tmp = final_path.string() + ".tmp";
    {
        std::ofstream out(tmp);
        out << x.str();
        if (!out.flush())
            throw synclab::UsageError("cannot write " + tmp.string() +
                                      ": check the --junit folder is writable");
    }
    fs::rename(tmp, final_path);
}

void print_table(std::ostream &os, const std::vector<std::string> &students,
                 const std::vector<std::string> &labs, const std::vector<Result> &results) {
    std::map<std::pair<std::string, std::string>, const Result *> cell;
    for (const auto &r : results) cell[{r.student, r.lab}] = &r;
    std::size_t name_w = 7;
    for (const auto &s : students) name_w = std::max(name_w, s.size());
    const std::size_t col_w = 22;
    auto pad = [](std::string s, std::size_t w) {
        if (s.size() < w) s.append(w - s.size(), ' ');
        return s;
    };
    os << pad("student", name_w + 2);
    for (const auto &l : labs) os << pad("lab " + l, col_w);
    os << "\n";
    for (const auto &s : students) {
        os << pad(s, name_w + 2);
        for (const auto &l : labs) {
            const auto it = cell.find({s, l});
            std::string text = "-";
            if (it != cell.end())
                text = it->second->passed()             ? "pass"
                       : it->second->grade == "missing" ? "missing"
                                                        : "FAIL " + it->second->kind;
            os << pad(text, col_w);
        }
        os << "\n";
    }
    bool any = false;
    for (const auto &s : students)
        for (const auto &l : labs) {
            const auto it = cell.find({s, l});
            if (it == cell.end() || it->second->passed()) continue;
            if (!any) os << "\nWhy:\n";
            any = true;
            os << "  " << s << ", lab " << l << ": " << it->second->reason << "\n";
        }
}

}  // namespace grade
