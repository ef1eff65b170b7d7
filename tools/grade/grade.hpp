// For the grader's stages, its records and its tests: a row of the gradebook, one lab of one
// student graded (Result), its grade and why in one word (Grade, Kind) and their words.
#pragma once
#include <set>
#include <string>

namespace grade {

// A row's grade, and why in one word; name() gives the gradebook's words (docs/grading.md).
enum class Grade { Unfinished, Pass, Fail, Missing };
enum class Kind {
    None,  // not graded (yet)
    Pass, Missing, Refused, CompileError, WrongAnswer, Crash, Timeout, Stress,
    DataRace, MemoryModel, Deadlock, BarrierDivergence, OutOfBounds, Uninitialized,  // Oclgrind's, hbcheck's
    Error  // the grading could not judge it (the lab left no verdict, a set-up failure)
};
const char *name(Grade g);  // "" (unfinished), "pass", "fail", "missing"
const char *name(Kind k);   // "" (none), "pass", "compile-error", "data-race", ...
// The grade or kind a word names; false when it names none.
bool grade_named(const std::string &word, Grade &out);
bool kind_named(const std::string &word, Kind &out);

struct Result {
    std::string student, lab;  // lab: the recipe's id
    Grade grade = Grade::Unfinished;
    Kind kind = Kind::None;
    std::string reason;        // one line for the student (also says what was not checked)
    std::string details;       // commands run and their output (the JUnit report's body)
    double seconds = 0;
    bool kept = false;         // read back from the gradebook (--resume), not graded now
    // The SHA-256 of the files graded (submission_files.hpp; "": unknown, graded again on
    // --resume), and what a pass is worth (--points).
    std::string files_sha256;
    unsigned points = 1;
    // What judged it: the checks that ran, the device, the draw key's digest and the grader's
    // version (judged_by.hpp); "": unknown (an older grader), graded again on --resume.
    std::string judged_by;
    // Profiles under which a child's program text differed (synclab/program_text.hpp): the lab
    // is judged under each of them too.
    std::set<std::string> profiles_differ;
    bool passed() const { return grade == Grade::Pass; }
    bool finished() const { return grade != Grade::Unfinished; }
};

}  // namespace grade
