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

#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "submission_files.hpp"  // sha256_hex
#include "synclab/errors.hpp"
#include "text_escape.hpp"       // utf8_length

namespace fs = std::filesystem;

namespace grade {

namespace {

// A spreadsheet runs a cell that begins with = + - @ (or a tab or CR) as a formula: such a text
// (a student's folder name, or a reason quoting the student's file) is written after a ', as
// OWASP's CSV-injection advice says, and so is one that begins with ' itself, so that reading
// drops exactly one.
bool needs_text_mark(const std::string &s) {
    return !s.empty() && s[0] && std::strchr("=+-@\t\r'", s[0]) != nullptr;
}

std::string csv_text(const std::string &s) { return needs_text_mark(s) ? "'" + s : s; }

std::string from_csv_text(const std::string &s) { return !s.empty() && s[0] == '\'' ? s.substr(1) : s; }

std::string csv_field(const std::string &s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
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

// A file name's bytes before its hash and ".xml": within the 255 a file system takes.
constexpr std::size_t kMostNameBytes = 200;

std::string fixed(double x, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, x);
    return buf;
}

}  // namespace

const char *const kGradebookHeader =
    "student,lab,grade,kind,reason,seconds,points,max_points,files_sha256,judged_by";
// Older graders': their rows hold no hash, or do not say what judged them, so --resume grades
// them again.
const char *const kOldGradebookHeaders[] = {
    "student,lab,grade,kind,reason,seconds",
    "student,lab,grade,kind,reason,seconds,points,max_points,files_sha256"};

bool gradebook_header(const std::string &line) {
    if (line == kGradebookHeader) return true;
    for (const char *old : kOldGradebookHeaders)
        if (line == old) return true;
    return false;
}

std::string csv_row(const Result &r) {
    return csv_field(csv_text(r.student)) + "," + csv_field(r.lab) + "," + csv_field(name(r.grade)) +
           "," + csv_field(name(r.kind)) + "," + csv_field(csv_text(r.reason)) + "," +
           fixed(r.seconds, 2) + "," + std::to_string(r.passed() ? r.points : 0) + "," +
           std::to_string(r.points) + "," + csv_field(r.files_sha256) + "," +
           csv_field(csv_text(r.judged_by)) + "\n";
}

std::string csv_total_row(const std::string &student, unsigned earned, unsigned most,
                          double seconds, std::size_t labs) {
    const std::string why = std::to_string(earned) + " of " + std::to_string(most) +
                            " points, " + std::to_string(labs) + " lab(s)";
    return csv_field(csv_text(student)) + "," + kTotalLab + ",,," + csv_field(why) + "," +
           fixed(seconds, 2) + "," + std::to_string(earned) + "," + std::to_string(most) + ",,\n";
}

std::vector<CsvLine> csv_records(const std::string &text, std::size_t *whole_end) {
    std::vector<CsvLine> out;
    std::vector<std::string> f(1);
    bool quoted = false;
    std::size_t start = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted && c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
            f.back() += '"';
            ++i;
        } else if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            f.emplace_back();
        } else if (c == '\n' && !quoted) {  // a line break inside quotes belongs to the field
            if (!f.back().empty() && f.back().back() == '\r') f.back().pop_back();
            out.push_back({text.substr(start, i + 1 - start), std::move(f)});
            f.assign(1, "");
            start = i + 1;
        } else {
            f.back() += c;
        }
    }
    if (whole_end) *whole_end = start;
    return out;
}

std::vector<Result> parse_gradebook(const std::string &text, std::size_t *whole_end) {
    std::vector<Result> rows;
    const std::vector<CsvLine> records = csv_records(text, whole_end);
    for (std::size_t k = 1; k < records.size(); ++k) {  // after the header
        const std::vector<std::string> &f = records[k].fields;
        if ((f.size() != 6 && f.size() != 9 && f.size() != 10) || f[0].empty() || f[1].empty()) continue;
        Result r;
        r.student = from_csv_text(f[0]);
        r.lab = f[1];
        r.reason = from_csv_text(f[4]);
        r.seconds = std::atof(f[5].c_str());
        r.kept = true;
        if (f.size() == 10) r.judged_by = from_csv_text(f[9]);
        if (f.size() >= 9) {
            r.points = static_cast<unsigned>(std::strtoul(f[7].c_str(), nullptr, 10));
            const bool hex = f[8].size() == 64 &&
                             f[8].find_first_not_of("0123456789abcdef") == std::string::npos;
            r.files_sha256 = hex ? f[8] : "";  // anything else ties the row to nothing
        }
        // A row in words this grader never writes is no row of its own: graded again.
        if (grade_named(f[2], r.grade) && kind_named(f[3], r.kind) && r.kind != Kind::StressPending)
            rows.push_back(r);
    }
    return rows;
}

Gradebook::Gradebook(const std::string &path, Mode mode) : path_(path) {
    auto refuse = [&](const std::string &why) { throw synclab::UsageError(why); };
    if (path.empty()) refuse("--csv is empty: give the gradebook's file name");
    std::error_code ec;
    const fs::path parent = fs::path(path).parent_path();
    if (!parent.empty()) fs::create_directories(parent, ec);
    struct stat st {};
    const bool exists = stat(path.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) refuse("--csv " + path + " is a folder: give a file name");
    if (exists && !S_ISREG(st.st_mode)) {
        // A device (a terminal, /dev/stdout): written, never read back or emptied.
        if (mode == Mode::resume)
            refuse("--resume needs a gradebook file to read back, and " + path +
                   " is not a regular file: give --csv FILE");
        fd_ = open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NONBLOCK);
        if (fd_ < 0)
            refuse("cannot write the gradebook " + path + " (" + std::strerror(errno) +
                   "): give another --csv");
        write_all(std::string(kGradebookHeader) + "\n");
        return;
    }
    regular_ = true;
    fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd_ < 0)
        refuse("cannot write the gradebook " + path + " (" + std::strerror(errno) +
               "): check the folder is writable, or give --csv FILE");
    if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        close(fd_);
        fd_ = -1;
        refuse("the gradebook " + path + " is being written by another synclab-grade: let it "
               "finish, then run with --resume to add to it (or give another --csv)");
    }
    std::string all;
    char buf[65536];
    for (ssize_t got; (got = pread(fd_, buf, sizeof buf, static_cast<off_t>(all.size()))) > 0;)
        all.append(buf, static_cast<std::size_t>(got));
    if (!all.empty() && mode != Mode::restart) {
        std::string first = all.substr(0, all.find('\n'));
        if (!first.empty() && first.back() == '\r') first.pop_back();
        if (!gradebook_header(first))
            refuse("the gradebook " + path + " is not a synclab-grade gradebook (its first line "
                   "is not '" + std::string(kGradebookHeader) + "'): give another --csv");
        std::size_t whole = 0;
        std::vector<Result> rows = parse_gradebook(all, &whole);
        if (mode == Mode::fresh && !rows.empty())
            refuse("the gradebook " + path + " already holds " + std::to_string(rows.size()) +
                   " graded row(s): add --resume to keep them and grade the rest, or --restart "
                   "to start it over");
        kept_ = std::move(rows);
        // A last record without its line end was cut short (the grader was killed while
        // writing it): it is dropped and graded again.
        if (whole < all.size() && ftruncate(fd_, static_cast<off_t>(whole)) != 0)
            refuse("cannot repair the gradebook " + path + " (" + std::strerror(errno) + ")");
        all.resize(whole);
        // An older grader's header over no row: this grader's header instead.
        if (first != kGradebookHeader && kept_.empty()) all.clear();
    }
    if (mode == Mode::restart || all.empty()) {
        if (ftruncate(fd_, 0) != 0)
            refuse("cannot empty the gradebook " + path + " (" + std::strerror(errno) + ")");
        kept_.clear();
        lseek(fd_, 0, SEEK_SET);
        write_all(std::string(kGradebookHeader) + "\n");
    }
    lseek(fd_, 0, SEEK_END);
}

Gradebook::~Gradebook() {
    if (fd_ >= 0) close(fd_);  // the lock goes with it
}

void Gradebook::write_all(const std::string &text) {
    for (std::size_t done = 0; done < text.size();) {
        const ssize_t w = write(fd_, text.data() + done, text.size() - done);
        if (w < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (w <= 0)
            throw synclab::UsageError("cannot write the gradebook " + path_ + " (" +
                                      std::strerror(w < 0 ? errno : EIO) +
                                      "): free some space or give another --csv, then --resume");
        done += static_cast<std::size_t>(w);
    }
    struct stat st {};
    if (fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) && fdatasync(fd_) != 0)
        throw synclab::UsageError("cannot write the gradebook " + path_ + " (" +
                                  std::strerror(errno) + "): free some space or give another "
                                  "--csv, then --resume");
}

void Gradebook::append(const Result &r) { write_all(csv_row(r)); }

// Through a file beside it, locked before it takes the gradebook's name: a second grader opens
// either the old file or the new one, and finds either locked. A grader killed half-way leaves
// the old file whole.
void Gradebook::replace(const std::string &rows) {
    if (!regular_) return;
    const std::string tmp = path_ + ".new";
    auto fail = [&](const std::string &what, int err) {
        throw synclab::UsageError("cannot rewrite the gradebook " + path_ + " (" + what + ": " +
                                  std::strerror(err) + "): free some space or make its folder "
                                  "writable, then --resume");
    };
    struct stat st {};
    fstat(fd_, &st);
    unlink(tmp.c_str());
    const int fd = open(tmp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) fail(tmp, errno);
    if (flock(fd, LOCK_EX | LOCK_NB) != 0 || fchmod(fd, st.st_mode & 07777) != 0) {
        const int err = errno;
        close(fd);
        unlink(tmp.c_str());
        fail(tmp, err);
    }
    const int old = fd_;
    fd_ = fd;
    try {
        write_all(std::string(kGradebookHeader) + "\n" + rows);
    } catch (...) {
        fd_ = old;
        close(fd);
        unlink(tmp.c_str());
        throw;
    }
    if (rename(tmp.c_str(), path_.c_str()) != 0) {
        const int err = errno;
        fd_ = old;
        close(fd);
        unlink(tmp.c_str());
        fail("rename", err);
    }
    close(old);  // its lock with it: the new file is locked already
    lseek(fd_, 0, SEEK_END);
}

void check_junit_dir(const std::string &junit_dir) {
    if (junit_dir.empty()) throw synclab::UsageError("--junit is empty: give a folder name");
    std::error_code ec;
    fs::create_directories(junit_dir, ec);
    if (!fs::is_directory(junit_dir, ec))
        throw synclab::UsageError("--junit " + junit_dir + " is not a folder and cannot be made " +
                                  "one: give --junit DIR where you can write");
    const std::string probe = (fs::path(junit_dir) / ".synclab-write-probe").string();
    const int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const bool ok = fd >= 0 && write(fd, "x", 1) == 1 && fsync(fd) == 0;
    const int err = errno;
    if (fd >= 0) close(fd);
    unlink(probe.c_str());
    if (!ok)
        throw synclab::UsageError("cannot write in the JUnit folder " + junit_dir + " (" +
                                  std::strerror(err) + "): give --junit DIR where you can write");
}

// Kept as written: ASCII letters, digits, '.', '_' and '-', and UTF-8 letters beyond ASCII (a
// character of two or more bytes that is no C1 control, U+FFFE or U+FFFF). Anything else is '_'.
std::string file_name(const std::string &student) {
    std::string out;
    for (std::size_t i = 0; i < student.size();) {
        const std::size_t n = utf8_length(student, i);
        const auto c = static_cast<unsigned char>(student[i]);
        const bool c1 = n == 2 && c == 0xc2 && static_cast<unsigned char>(student[i + 1]) < 0xa0;
        const bool nonchar = n == 3 && (student.compare(i, 3, "\xef\xbf\xbe") == 0 ||
                                        student.compare(i, 3, "\xef\xbf\xbf") == 0);
        if (n > 1 && !c1 && !nonchar && out.size() + n <= kMostNameBytes) {
            out += student.substr(i, n);
            i += n;
            continue;
        }
        if (out.size() < kMostNameBytes)
            out += n == 1 && (std::isalnum(c) || c == '.' || c == '_' || c == '-') ? static_cast<char>(c) : '_';
        i += n ? n : 1;
    }
    if (out.empty() || out[0] == '.') out = "_" + out;
    // Plain lower-case names are their own file. Any other gets a hash of the exact name: two
    // names made one by the '_', by a file system that ignores case or normalises Unicode
    // (macOS's, Windows', where a report folder is often copied), or by the cut, never share one.
    const bool plain = out == student && std::none_of(student.begin(), student.end(), [](char ch) {
        return std::isupper(static_cast<unsigned char>(ch)) || static_cast<unsigned char>(ch) >= 0x80;
    });
    return plain ? out : out + "+" + sha256_hex(student).substr(0, 10);
}

void write_junit(const std::string &junit_dir, const std::string &file, const std::string &student,
                 const std::vector<Result> &results,
                 const std::map<std::string, std::string> &kept_cases) {
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
        if (const auto kept = kept_cases.find(r.lab); kept != kept_cases.end()) {
            x << kept->second;
            continue;
        }
        x << "    <testcase classname=\"synclab." << xml(file) << "\" name=\"lab "
          << xml(r.lab) << "\" time=\"" << fixed(r.seconds, 3) << "\">\n";
        if (!r.judged_by.empty())  // the gradebook's judged_by, as a CI's report reads properties
            x << "      <properties>\n        <property name=\"judged_by\" value=\""
              << xml(r.judged_by) << "\"/>\n      </properties>\n";
        if (!r.passed())
            x << "      <failure type=\"" << xml(name(r.kind)) << "\" message=\"" << xml(r.reason)
              << "\">" << xml(r.reason + "\n\n" + r.details) << "</failure>\n";
        x << "      <system-out>" << xml(r.reason + (r.details.empty() ? "" : "\n\n" + r.details))
          << "</system-out>\n"
          << "    </testcase>\n";
    }
    x << "  </testsuite>\n</testsuites>\n";

    std::error_code ec;
    fs::create_directories(junit_dir, ec);
    write_whole((fs::path(junit_dir) / (file + ".xml")).string(), x.str(), "the --junit folder");
}

// Every text between "<testcase" and "</testcase>" is escaped (xml()), so neither appears in it.
std::map<std::string, std::string> junit_cases(const std::string &report) {
    std::map<std::string, std::string> out;
    const std::string open = "    <testcase ", close = "    </testcase>\n", name = "name=\"lab ";
    for (std::size_t at = 0; (at = report.find(open, at)) != std::string::npos;) {
        const std::size_t end = report.find(close, at);
        const std::size_t tag_end = report.find('>', at);
        const std::size_t n = report.find(name, at);
        if (end == std::string::npos || tag_end == std::string::npos) break;
        if (n != std::string::npos && n < tag_end) {
            const std::size_t id = n + name.size();
            out[report.substr(id, report.find('"', id) - id)] = report.substr(at, end + close.size() - at);
        }
        at = end + close.size();
    }
    return out;
}

void write_whole(const std::string &path, const std::string &text, const std::string &where) {
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp);
        out << text;
        if (!out.flush() || (out.close(), !out))
            throw synclab::UsageError("cannot write " + tmp + ": check " + where + " is writable");
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec)
        throw synclab::UsageError("cannot write " + path + " (" + ec.message() + "): check " +
                                  where + " is writable");
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
                       : it->second->grade == Grade::Missing ? "missing"
                                                        : std::string("FAIL ") + name(it->second->kind);
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
