// For synclab-grade's main and its run stage: the records the grader keeps of its grades (the
// CSV gradebook, the JUnit reports, a grading platform's results), each behind one interface. A new format is one file
// (record_<format>.cpp, a class deriving from Record and its factory) registered in
// record.cpp, the one place that names them.
#pragma once
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "grade.hpp"
#include "labs.hpp"
#include "record_csv.hpp"  // Gradebook::Mode

namespace grade {

// What every record is opened with.
struct RecordSettings {
    std::string csv;    // the gradebook's absolute path
    std::string junit;  // the JUnit folder's absolute path
    Gradebook::Mode mode = Gradebook::Mode::fresh;
    std::vector<std::string> students;  // every student graded, in gradebook order
    // One submission's results for a grading platform, absolute paths ("": not asked for).
    std::string gradescope, prairielearn;
    std::vector<const Recipe *> labs;        // the labs graded, in order
    std::map<std::string, unsigned> points;  // lab id -> its points in a score
    // The submission's kernel folder (--kernels), and every kernel file a lab here takes: a
    // platform's results name the files handed in that no lab takes.
    std::string kernels;
    std::vector<std::string> known_files;
    // Gradescope's visibility of the tests and of the grader's log (--gradescope-visibility,
    // --gradescope-stdout-visibility), and a line for the student at the top (--note).
    std::string gradescope_visibility = "visible", gradescope_stdout_visibility = "hidden";
    std::string note;
    double budget_s = 0;  // --budget (0: none), as the results name it
};

class Record {
public:
    virtual ~Record() = default;
    // The rows an earlier grader left in this record, to be kept (--resume); none by default.
    virtual std::vector<Result> kept() const { return {}; }
    // The rows of kept() that stay, told before the first row graded now: the others are
    // graded again (their files changed, they hold no hash of them, or --students names them).
    virtual void keep_only(const std::vector<Result> & /*rows*/) {}
    // A row graded now (not kept), in gradebook order, as soon as it is known. Throws
    // UsageError when it cannot be written.
    virtual void row(const Result &) {}
    // Every row of student number `index` (kept ones too), once its last row is known.
    virtual void student(std::size_t /*index*/, const std::string & /*student*/,
                         const std::vector<Result> & /*rows*/) {}
    // Every row is known (never called when the grader was interrupted or ran out of time).
    virtual void finish() {}
    // The time budget ran out (--budget): every finished row was given to row(); `running` are
    // the labs that were being graded then (student and lab set, unfinished). The others were
    // not begun. None by default: a gradebook keeps its finished rows, --resume grades the rest.
    virtual void out_of_time(const std::vector<Result> & /*running*/) {}
};

// `path` written whole, through a temporary file beside it and a rename, so a reader never sees
// half of it. Throws UsageError naming `where` (what to make writable) when it cannot.
void write_whole(const std::string &path, const std::string &text, const std::string &where);

using Records = std::vector<std::unique_ptr<Record>>;

// Opens every registered record, in the order of the table (one not asked for opens as none):
// each checks its output first and throws UsageError with one line when it cannot be used.
Records open_records(const RecordSettings &s);

}  // namespace grade
