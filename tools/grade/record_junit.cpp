// The JUnit reports (record_junit.hpp): their format, and the record: <folder>/<student>.xml,
// one testcase per lab, written whole once the student's last lab is known. A student whose
// rows were all kept (--resume, --students) keeps its report as it was; one graded in part
// keeps its kept labs' testcases.
#include "record_junit.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fcntl.h>
#include <unistd.h>

#include "record.hpp"
#include "submission_files.hpp"  // sha256_hex
#include "synclab/errors.hpp"
#include "text_escape.hpp"

namespace fs = std::filesystem;

namespace grade {
namespace {

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

}  // namespace

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

namespace {

class JunitRecord : public Record {
public:
    // The folder is checked before the first student. Each file's name is its student's folder
    // name's alone (file_name): whoever else is in the class, a shard or a resumed run, a
    // student always writes the same file and never another's.
    explicit JunitRecord(const RecordSettings &s) : dir_(s.junit) {
        check_junit_dir(dir_);
        for (const auto &student : s.students) files_.push_back(file_name(student));
    }

    // XML 1.0 holds no control character but tab and line breaks (not even as &#27;), no byte
    // that is not UTF-8 and no U+FFFE/U+FFFF: a kernel's printf may give any of them, so they
    // are written escaped (\xHH) and the report stays well-formed.
    void student(std::size_t index, const std::string &student,
                 const std::vector<Result> &rows) override {
        const std::string path = (fs::path(dir_) / (files_[index] + ".xml")).string();
        std::error_code ec;
        bool all_kept = !rows.empty(), any_kept = false;
        for (const auto &r : rows) {
            all_kept &= r.kept;
            any_kept |= r.kept;
        }
        // The gradebook keeps a row's reason, not its commands and their output: those are in
        // the report already.
        if (all_kept && fs::is_regular_file(path, ec)) return;
        std::map<std::string, std::string> kept_cases;
        if (any_kept) {
            std::ifstream in(path, std::ios::binary);
            std::stringstream text;
            text << in.rdbuf();
            for (auto &[lab, element] : junit_cases(text.str()))
                for (const auto &r : rows)
                    if (r.kept && r.lab == lab) kept_cases[lab] = element;
        }
        std::vector<Result> written = rows;
        for (auto &r : written) {
            r.student = shown(r.student);
            r.reason = shown_text(r.reason, true);
            r.details = shown_text(r.details, true);
        }
        write_junit(dir_, files_[index], shown(student), written, kept_cases);
    }

private:
    std::string dir_;
    std::vector<std::string> files_;
};

}  // namespace

std::unique_ptr<Record> open_junit_record(const RecordSettings &s) {
    if (s.junit.empty()) return nullptr;  // one submission's grading, no --junit
    return std::make_unique<JunitRecord>(s);
}

}  // namespace grade
