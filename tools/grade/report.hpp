// The grader's outputs: the CSV gradebook (one row appended and flushed per graded lab),
// a JUnit XML report per student, and the table printed at the end.
#pragma once
#include <fstream>
#include <iosfwd>
#include <string>
#include <vector>

#include "grade.hpp"

namespace grade {

class Gradebook {
public:
    // resume: keep the rows already in `path` (read them with rows()); else start it afresh.
    Gradebook(const std::string &path, bool resume);
    const std::vector<Result> &kept() const { return kept_; }
    void append(const Result &r);  // written and flushed at once

private:
    std::string path_;
    std::ofstream out_;
    std::vector<Result> kept_;
};

// junit_dir/<file>.xml, written whole (through a temporary file and a rename).
void write_junit(const std::string &junit_dir, const std::string &file, const std::string &student,
                 const std::vector<Result> &results);

// A file name made of the student's name: anything but [A-Za-z0-9._-] becomes '_'.
std::string file_name(const std::string &student);

// One distinct file name per student (same order): file_name(), and where two would be the
// same (ignoring case), "-2", "-3", ... A name already clean keeps its own file name first.
std::vector<std::string> junit_names(const std::vector<std::string> &students);

// student x lab: pass / FAIL kind / missing, then one line per failure with its reason.
void print_table(std::ostream &os, const std::vector<std::string> &students,
                 const std::vector<std::string> &labs, const std::vector<Result> &results);

}  // namespace grade
