// For synclab-grade's main and its plan, run and summary stages: the submissions stage. The
// students' folders (--kernels: one, --class: every sub-folder), and the outputs checked to lie
// outside them.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "grade.hpp"
#include "labs.hpp"
#include "submission_files.hpp"
#include "text_escape.hpp"  // shown(): a student's name as written

namespace grade {

struct Submission {
    std::string student, dir;  // dir: absolute; the kernel files are in it (or in dir/kernels)
    std::string refused;       // why none of its labs can be graded (a symbolic link, say)
};

// The submissions in student order. `one`: `given` is one student's folder; otherwise a class,
// every sub-folder of it a student: one the grader will not grade (a hidden folder, a name with
// a control character or not UTF-8, a link, one it cannot read) comes back refused, with the
// reason and what to do. Throws UsageError with one line when there is none to grade.
std::vector<Submission> collect_submissions(bool one, const std::string &given);

// The gradebook, the JUnit folder and a platform's results ("": none) as absolute paths, each
// refused (UsageError) when it is empty or would lie inside a submission.
struct Outputs {
    std::string csv, junit;
    std::string gradescope, prairielearn;
};
// --shard I/N: the submissions at positions I, I+N, I+2N, ... (1-based) of `subs`, which
// collect_submissions gave in name order.
std::vector<Submission> shard_of(const std::vector<Submission> &subs, unsigned index, unsigned count);

Outputs check_outputs(const Outputs &given, const std::vector<Submission> &subs);

// Where a submission's kernel files are: its folder, or the kernels/ inside it.
std::string kernels_in(const std::string &dir, const std::vector<Recipe> &labs);

// What a submission's labs grade. `gather` (a class): its kernel files are found as the
// platforms' entry point finds them, and when one lies in a folder below the one graded
// (kernels_in) they are all gathered into a folder of the grader's (gather_handed_in) first.
struct SubmissionFiles {
    std::string folder;               // the folder graded as it is (kernels_in)
    std::vector<HandedIn> found;      // with `gather`: every file found; else none
    bool gathered = false;            // the files are to be gathered from `found`
    std::string sha256;               // of the files graded (a refused submission: of its reason)
    std::vector<Misnamed> misnamed;   // with `gather`: the files named as no lab
};
SubmissionFiles files_of(const Submission &sub, const std::vector<Recipe> &labs, bool gather);

// A missing row's reason gains the note of each file named as no lab that it could be.
void note_misnamed(std::vector<Result> &rows, const std::vector<Misnamed> &misnamed);

// --students LIST: the named students' folders, each one of `subs` (UsageError with one line
// naming one that is not, or an empty list).
std::set<std::string> named_students(const std::string &list, const std::vector<Submission> &subs);

}  // namespace grade
