// A grading platform's results.json as a record: Gradescope's and PrairieLearn's, one submission
// (--kernels), one test per lab with its points and its reason. The file is written at the start
// with every lab "not graded", again as each lab is graded, so a grader killed half-way still
// leaves a valid file that says so, and then whole once the last lab is known, or once the time
// budget ran out (the labs then running named, the finished ones keeping their points).
// Formats: classroom/*/results.schema.json.
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
    std::string judged_by;  // the row's, as the gradebook's column ("": no row)
    unsigned points = 0, earned = 0;
    bool passed = false;
};

// How far the grading got: still going (or killed), to its end, or to its time budget.
enum class Stage { Going, Finished, OutOfTime };

// What a platform shows of the whole submission.
struct Whole {
    std::vector<LabTest> tests;
    unsigned earned = 0, most = 0;
    std::string headline;  // the line a student reads first, with every note
    Stage stage = Stage::Going;
    double seconds = 0;
};

// The labs `running` names, "lab 02" or "labs 02, 07".
std::string labs_named(const std::vector<Result> &running) {
    std::string ids;
    for (const auto &r : running) ids += (ids.empty() ? "" : ", ") + r.lab;
    return (running.size() == 1 ? "lab " : "labs ") + ids;
}

class JsonRecord : public Record {
public:
    JsonRecord(const RecordSettings &s, std::string path, std::string option)
        : s_(s), path_(std::move(path)), option_(std::move(option)) {
        note_ = misnamed(s);
        notes_ = s.note + (s.note.empty() || note_.empty() ? "" : "; ") + note_;
    }

    // Each finished lab as it comes, so a grader killed later leaves its score in the file.
    void row(const Result &r) override {
        rows_.push_back(r);
        write(rows_, Stage::Going);
    }

    void student(std::size_t, const std::string &, const std::vector<Result> &rows) override {
        write(rows, Stage::Finished);
    }

    void out_of_time(const std::vector<Result> &running) override {
        running_ = running;
        out_of_time_ = true;
        write(rows_, Stage::OutOfTime);
    }

protected:
    virtual std::string text(const Whole &w) const = 0;
    const RecordSettings &settings() const { return s_; }

    void write(const std::vector<Result> &rows, Stage stage) const {
        Whole w;
        w.stage = stage;
        for (const auto *lab : s_.labs) {
            LabTest t = test_of(*lab, rows);
            w.earned += t.earned;
            w.most += t.points;
            w.tests.push_back(std::move(t));
        }
        w.headline = headline(w);
        w.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        write_whole(path_, text(w), "the folder of " + option_ + " " + path_);
    }

private:
    const RecordSettings s_;
    std::string path_, option_, note_, notes_;
    std::vector<Result> rows_, running_;
    bool out_of_time_ = false;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();

    std::string budget() const {
        return "the time budget" + (s_.budget_s ? " of " + number(s_.budget_s) + " s" : std::string());
    }

    // One lab's test: its row, or why it has none.
    LabTest test_of(const Recipe &lab, const std::vector<Result> &rows) const {
        LabTest t;
        t.name = "lab " + lab.id + ": " + lab.kernel_file;
        t.points = s_.points.at(lab.id);
        const auto row = std::find_if(rows.begin(), rows.end(),
                                      [&](const Result &r) { return r.lab == lab.id; });
        const bool running = std::any_of(running_.begin(), running_.end(),
                                         [&](const Result &r) { return r.lab == lab.id; });
        if (row != rows.end()) {
            t.passed = row->passed();
            const std::string state = t.passed                       ? "pass"
                                      : row->grade == Grade::Missing ? "missing"
                                                                     : std::string("FAIL ") + name(row->kind);
            t.summary = state + " [" + lab.kernel_file + "]";
            t.reason = row->reason;
            if (row->grade == Grade::Missing && !note_.empty()) t.reason += "; " + note_;
            t.details = t.passed ? "" : clipped(row->details, 4000);
            t.judged_by = row->judged_by;
        } else if (running) {
            t.summary = "FAIL stopped [" + lab.kernel_file + "]";
            t.reason = budget() + " ran out while this lab was being graded: a kernel much slower "
                       "than the solution, or one that never finishes, is the likely cause; grade "
                       "it alone first (synclab-grade --kernels DIR --labs " + lab.id + ")";
        } else {
            t.summary = "FAIL not graded [" + lab.kernel_file + "]";
            t.reason = out_of_time_ ? "not graded: " + budget() + " ran out before this lab began"
                                    : "not graded: the grader stopped before this lab was done";
        }
        t.earned = t.passed ? t.points : 0;
        return t;
    }

    // The line a student reads first.
    std::string headline(const Whole &w) const {
        std::string line = std::to_string(w.earned) + " of " + std::to_string(w.most) + " points";
        if (w.stage == Stage::Going) line = "grading did not finish: this is not a grade; " + line;
        if (w.stage == Stage::OutOfTime)
            line = budget() + " ran out" +
                   (running_.empty() ? ""
                                     : " while " + labs_named(running_) +
                                           (running_.size() == 1 ? " was" : " were") + " being graded") +
                   ": " + line + " (each lab graded before keeps its points; the rest were not graded)";
        return line + (notes_.empty() ? "" : "; " + notes_);
    }
};

// https://gradescope-autograders.readthedocs.io/en/latest/specs/ (classroom/gradescope/
// results.schema.json): points in "score", text shown as written ("text" formats); when the
// students see the tests and the grader's log is the instructor's choice (the zip's options).
class GradescopeRecord : public JsonRecord {
public:
    explicit GradescopeRecord(const RecordSettings &s)
        : JsonRecord(s, s.gradescope, "--gradescope") {
        write({}, Stage::Going);
    }

private:
    std::string text(const Whole &w) const override {
        const std::string visibility = json(settings().gradescope_visibility);
        std::ostringstream o;
        o << "{\n  \"score\": " << w.earned << ",\n  \"execution_time\": " << number(w.seconds)
          << ",\n  \"output\": " << json(w.headline)
          << ",\n  \"output_format\": \"text\",\n  \"test_output_format\": \"text\","
          << "\n  \"visibility\": " << visibility << ",\n  \"stdout_visibility\": "
          << json(settings().gradescope_stdout_visibility) << ",\n  \"tests\": [";
        for (std::size_t i = 0; i < w.tests.size(); ++i) {
            const LabTest &t = w.tests[i];
            o << (i ? "," : "") << "\n    {\"name\": " << json(t.name)
              << ", \"score\": " << t.earned
              << ", \"max_score\": " << t.points << ", \"status\": "
              << (t.passed ? "\"passed\"" : "\"failed\"") << ", \"visibility\": " << visibility
              << ",\n     \"output\": "
              << json(t.summary + ": " + t.reason + (t.details.empty() ? "" : "\n\n" + t.details));
            // The schema refuses unknown fields of a test but its extra_data, an object.
            if (!t.judged_by.empty()) o << ",\n     \"extra_data\": {\"judged_by\": " << json(t.judged_by) << "}";
            o << "}";
        }
        o << "\n  ]\n}\n";
        return o.str();
    }
};

// https://prairielearn.readthedocs.io/en/latest/externalGrading/ (classroom/prairielearn/
// results.schema.json): "score" a fraction; a grading that did not finish is not gradable, so
// the student loses no attempt to it; one stopped by its time budget is graded, as Gradescope
// grades it.
class PrairieLearnRecord : public JsonRecord {
public:
    explicit PrairieLearnRecord(const RecordSettings &s)
        : JsonRecord(s, s.prairielearn, "--prairielearn") {
        write({}, Stage::Going);
    }

private:
    std::string text(const Whole &w) const override {
        const bool gradable = w.stage != Stage::Going;
        std::ostringstream o;
        o << "{\n  \"gradable\": " << (gradable ? "true" : "false") << ",\n  \"score\": "
          << number(w.most ? double(w.earned) / w.most : 0) << ",\n  \"message\": " << json(w.headline);
        if (!gradable) o << ",\n  \"format_errors\": [" << json(w.headline) << "]";
        o << ",\n  \"tests\": [";
        for (std::size_t i = 0; i < w.tests.size(); ++i) {
            const LabTest &t = w.tests[i];
            o << (i ? "," : "") << "\n    {\"name\": " << json(t.name)
              << ", \"points\": " << t.earned
              << ", \"max_points\": " << t.points << ",\n     \"message\": "
              << json(t.summary + ": " + t.reason) << ",\n     \"output\": " << json(t.details);
            if (!t.judged_by.empty()) o << ",\n     \"judged_by\": " << json(t.judged_by);  // any field may be added
            o << "}";
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
