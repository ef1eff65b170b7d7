// For synclab-grade's records, its --merge and its tests: the CSV gradebook, its format (a row's
// text, the rows of a text) and the file itself, locked while one grader writes it.
#pragma once
#include <cstddef>
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

}  // namespace grade
