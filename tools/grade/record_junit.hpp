// For synclab-grade's records and its tests: the JUnit XML reports, one file a student, and
// the name of each student's file.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "grade.hpp"

namespace grade {

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

// A student's JUnit file name (without ".xml"), a function of the folder's name alone: the name
// with every character but ASCII letters, digits, . _ - and UTF-8 letters as '_'; a name that is
// not plain lower-case ASCII, or that changed, gets '+' and the first 10 hex digits of its exact
// bytes' SHA-256 ("Zoë+0123456789", "a_b+..." for "a b"), so no two folders share a file.
std::string file_name(const std::string &student);

}  // namespace grade
