// The grader's outputs: the CSV gradebook (one row appended and flushed per graded lab),
// a JUnit XML report per student, and the table printed at the end.
#pragma once
#include <fstream>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "grade.hpp"

namespace grade {

class Gradebook {
public:
    enum class Mode { fresh, resume, restart };
    // Takes the gradebook for this run, locked until the grader exits: a second grader on the
    // same file is refused with one line. fresh: refused when it already holds rows (they are
    // the instructor's record); resume: keeps them (read them with kept()); restart: empties it.
    // Throws UsageError with one line when it cannot be used.
    Gradebook(const std::string &path, Mode mode);
    ~Gradebook();
    Gradebook(const Gradebook &) = delete;
    Gradebook &operator=(const Gradebook &) = delete;
    const std::vector<Result> &kept() const { return kept_; }
    // Written and flushed to the disk at once; a write that fails throws UsageError.
    void append(const Result &r);
    // The whole gradebook becomes its header and `csv_rows`, at once (a gradebook that is no
    // regular file, a terminal, is left as it is). Throws UsageError when it cannot.
    void replace(const std::string &csv_rows);

private:
    std::string path_;
    int fd_ = -1;
    bool regular_ = false;
    std::vector<Result> kept_;
    void write_all(const std::string &text);
};

// The CSV text of one row, and the rows of a gradebook's text (names may hold commas, quotes
// and line breaks; a last record cut short is left out and its start returned in *whole_end).
std::string csv_row(const Result &r);
std::vector<Result> parse_gradebook(const std::string &text, std::size_t *whole_end = nullptr);
// The CSV records of a text, each as written (its line end included) and its fields; a quoted
// field may hold commas, quotes and line breaks. A last record with no line end is left out, its
// start returned in *whole_end.
struct CsvLine {
    std::string raw;
    std::vector<std::string> fields;
};
std::vector<CsvLine> csv_records(const std::string &text, std::size_t *whole_end = nullptr);
extern const char *const kGradebookHeader;
// A student's total: the row after their labs whose lab is "total" (no grade, no kind), with
// the points earned of the most and the seconds of every row; never read back as a lab's row.
constexpr const char *kTotalLab = "total";
std::string csv_total_row(const std::string &student, unsigned earned, unsigned most,
                          double seconds, std::size_t labs);

// Makes the folder (when needed) and checks a file can be written in it: an unusable --junit
// is found before the first student. Throws UsageError.
void check_junit_dir(const std::string &junit_dir);

// junit_dir/<file>.xml, written whole (through a temporary file and a rename). A lab in
// `kept_cases` is written as that text (its testcase element from an earlier report, junit_cases).
void write_junit(const std::string &junit_dir, const std::string &file, const std::string &student,
                 const std::vector<Result> &results,
                 const std::map<std::string, std::string> &kept_cases = {});

// Each lab's testcase element of a report write_junit wrote, by lab id.
std::map<std::string, std::string> junit_cases(const std::string &report);

// `path` written whole, through a temporary file beside it and a rename, so a reader never sees
// half of it. Throws UsageError naming `where` (what to make writable) when it cannot.
void write_whole(const std::string &path, const std::string &text, const std::string &where);

// A student's JUnit file name (without ".xml"), a function of the folder's name alone: the name
// with every character but ASCII letters, digits, . _ - and UTF-8 letters as '_'; a name that is
// not plain lower-case ASCII, or that changed, gets '+' and the first 10 hex digits of its exact
// bytes' SHA-256 ("Zoë+0123456789", "a_b+..." for "a b"), so no two folders share a file.
std::string file_name(const std::string &student);

// student x lab: pass / FAIL kind / missing, then one line per failure with its reason.
void print_table(std::ostream &os, const std::vector<std::string> &students,
                 const std::vector<std::string> &labs, const std::vector<Result> &results);

}  // namespace grade
