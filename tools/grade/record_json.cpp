// A grading platform's results.json as a record: Gradescope's and PrairieLearn's, one submission
// (--kernels), one test per lab with its points and its reason. The file is written at the start
// with every lab "not graded", so a grader killed half-way still leaves a valid file that says
// so, and then whole once the last lab is known. Formats: classroom/*/results.schema.json.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>

#include "record.hpp"
#include "text_escape.hpp"

namespace fs = std::filesystem;

namespace grade {
namespace {

// A JSON string. A compiler's log may hold any bytes: what is not UTF-8 becomes U+FFFD, so the
// platform never rejects the file for it.
std::string json(const std::string &s) {
    std::string out = "\"";
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        const std::size_t n = utf8_length(s, i);
        if (n == 0) {
            out += "\\ufffd";
            ++i;
            continue;
        }
        if (c == '"' || c == '\\') out += std::string("\\") + static_cast<char>(c);
        else if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else out += s.substr(i, n);
        i += n;
    }
    return out + "\"";
}

std::string number(double v) {
    std::ostringstream o;
    o.precision(6);
    o << v;
    return o.str();
}

std::string clipped(const std::string &text, std::size_t most) {
    return text.size() <= most ? text : text.substr(0, most) + "\n[... clipped]";
}

// The kernel files handed in that no lab takes ("lab1.cl"): a student who misnamed a file is
// told so beside "not handed in".
std::string misnamed(const RecordSettings &s) {
    if (s.kernels.empty()) return "";
    const std::set<std::string> known(s.known_files.begin(), s.known_files.end());
    std::vector<std::string> found;
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(s.kernels, ec)) {
        const std::string name = e.path().filename().string();
        if (e.path().extension() == ".cl" && !known.count(name)) found.push_back(name);
    }
    if (found.empty()) return "";
    std::sort(found.begin(), found.end());
    std::string list, expected;
    for (const auto &f : found) list += (list.empty() ? "" : ", ") + f;
    for (const auto *r : s.labs) expected += (expected.empty() ? "" : ", ") + r->kernel_file;
    return "handed in but named as no lab: " + shown(list) + " (name each file as in kernels/: " +
           expected + ")";
}

// What a platform shows of one lab.
struct LabTest {
    std::string name, summary, reason, details;  // summary: "FAIL wrong-answer [01_x.cl]"
    unsigned points = 0, earned = 0;
    bool passed = false;
};

class JsonRecord : public Record {
public:
    JsonRecord(const RecordSettings &s, std::string path, std::string option)
        : s_(s), path_(std::move(path)), option_(std::move(option)), note_(misnamed(s)) {}

    void student(std::size_t, const std::string &, const std::vector<Result> &rows) override {
        write(rows, true);
    }

protected:
    // The file's text: each lab's test, the points earned of the most, the note for the whole
    // submission, and whether grading finished.
    virtual std::string text(const std::vector<LabTest> &tests, unsigned earned, unsigned most,
                             const std::string &note, bool finished, double seconds) const = 0;

    // Every lab's row, or "not graded" for one that has none.
    void write(const std::vector<Result> &rows, bool finished) const {
        std::vector<LabTest> tests;
        unsigned earned = 0, most = 0;
        for (const auto *lab : s_.labs) {
            LabTest t;
            t.name = "lab " + lab->id + ": " + lab->kernel_file;
            t.points = s_.points.at(lab->id);
            const auto row = std::find_if(rows.begin(), rows.end(),
                                          [&](const Result &r) { return r.lab == lab->id; });
            if (row == rows.end()) {
                t.summary = "FAIL not graded [" + lab->kernel_file + "]";
                t.reason = "not graded: the grader stopped before this lab was done";
            } else {
                t.passed = row->passed();
                const std::string state = t.passed                   ? "pass"
                                          : row->grade == Grade::Missing ? "missing"
                                                                    : std::string("FAIL ") + name(row->kind);
                t.summary = state + " [" + lab->kernel_file + "]";
                t.reason = row->reason;
                if (row->grade == Grade::Missing && !note_.empty()) t.reason += "; " + note_;
                t.details = t.passed ? "" : clipped(row->details, 4000);
            }
            t.earned = t.passed ? t.points : 0;
            earned += t.earned;
            most += t.points;
            tests.push_back(std::move(t));
        }
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        write_whole(path_, text(tests, earned, most, note_, finished, seconds),
                    "the folder of " + option_ + " " + path_);
    }

private:
    const RecordSettings s_;
    std::string path_, option_, note_;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// The line a student reads first.
std::string headline(unsigned earned, unsigned most, bool finished, const std::string &note) {
    return (finished ? "" : "grading did not finish: this is not a grade; ") +
           std::to_string(earned) + " of " + std::to_string(most) + " points" +
           (note.empty() ? "" : "; " + note);
}

// https://gradescope-autograders.readthedocs.io/en/latest/specs/ (classroom/gradescope/
// results.schema.json): points in "score", text shown as written ("text" formats).
class GradescopeRecord : public JsonRecord {
public:
    explicit GradescopeRecord(const RecordSettings &s)
        : JsonRecord(s, s.gradescope, "--gradescope") {
        write({}, false);
    }

private:
    std::string text(const std::vector<LabTest> &tests, unsigned earned, unsigned most,
                     const std::string &note, bool finished, double seconds) const override {
        std::ostringstream o;
        o << "{\n  \"score\": " << earned << ",\n  \"execution_time\": " << number(seconds)
          << ",\n  \"output\": " << json(headline(earned, most, finished, note))
          << ",\n  \"output_format\": \"text\",\n  \"test_output_format\": \"text\","
          << "\n  \"visibility\": \"visible\",\n  \"tests\": [";
        for (std::size_t i = 0; i < tests.size(); ++i) {
            const LabTest &t = tests[i];
            o << (i ? "," : "") << "\n    {\"name\": " << json(t.name)
              << ", \"score\": " << t.earned
              << ", \"max_score\": " << t.points << ", \"status\": "
              << (t.passed ? "\"passed\"" : "\"failed\"") << ", \"visibility\": \"visible\","
              << "\n     \"output\": "
              << json(t.summary + ": " + t.reason + (t.details.empty() ? "" : "\n\n" + t.details))
              << "}";
        }
        o << "\n  ]\n}\n";
        return o.str();
    }
};

// https://prairielearn.readthedocs.io/en/latest/externalGrading/ (classroom/prairielearn/
// results.schema.json): "score" a fraction; a grading that did not finish is not gradable, so
// the student loses no attempt to it.
class PrairieLearnRecord : public JsonRecord {
public:
    explicit PrairieLearnRecord(const RecordSettings &s)
        : JsonRecord(s, s.prairielearn, "--prairielearn") {
        write({}, false);
    }

private:
    std::string text(const std::vector<LabTest> &tests, unsigned earned, unsigned most,
                     const std::string &note, bool finished, double) const override {
        const std::string line = headline(earned, most, finished, note);
        std::ostringstream o;
        o << "{\n  \"gradable\": " << (finished ? "true" : "false") << ",\n  \"score\": "
          << number(most ? double(earned) / most : 0) << ",\n  \"message\": " << json(line);
        if (!finished) o << ",\n  \"format_errors\": [" << json(line) << "]";
        o << ",\n  \"tests\": [";
        for (std::size_t i = 0; i < tests.size(); ++i) {
            const LabTest &t = tests[i];
            o << (i ? "," : "") << "\n    {\"name\": " << json(t.name)
              << ", \"points\": " << t.earned
              << ", \"max_points\": " << t.points << ",\n     \"message\": "
              << json(t.summary + ": " + t.reason) << ",\n     \"output\": " << json(t.details)
              << "}";
        }
        o << "\n  ]\n}\n";
        return o.str();
    }
};

}  // namespace

std::unique_ptr<Record> open_gradescope_record(const RecordSettings &s) {
    if (s.gradescope.empty()) return nullptr;
    return std::make_unique<GradescopeRecord>(s);
}

std::unique_ptr<Record> open_prairielearn_record(const RecordSettings &s) {
    if (s.prairielearn.empty()) return nullptr;
    return std::make_unique<PrairieLearnRecord>(s);
}

}  // namespace grade
