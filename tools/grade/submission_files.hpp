// For the grader's submissions and run stages, and their tests: what a submission hands in. Its
// kernel files wherever they lie (as classroom/autograde.sh finds them), the SHA-256 of
// the files a lab grades (a gradebook row's tie to what it graded), and the files named as no lab.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace grade {

// SHA-256 (FIPS 180-4) of `data`, as 64 lower-case hex digits.
std::string sha256_hex(const std::string &data);

// The kernel files a submission hands in, as the platforms' entry point takes them: every
// .cl/.h/.clh file in the folder or any folder below it (macOS's __MACOSX/ and ._* left out,
// links never followed), the shallowest where two share a name (then the first by path).
struct HandedIn {
    std::string name, path;  // the file's own name; its path
    int depth = 0;           // 0: directly in the folder
};
std::vector<HandedIn> find_handed_in(const std::string &dir);

// Whether the files a lab takes (`known`: every lab's kernel file) lie beside one another in
// `direct` (the folder graded as it is); false when one of them is only in a folder below.
bool needs_gathering(const std::vector<HandedIn> &found, const std::string &direct,
                     const std::vector<std::string> &known);

// Copies `found` into `to` (made fresh), each under its own name, never more than a byte over
// the largest file a submission may hold (so staging refuses it as it would the original); a
// file that is no longer a plain file is left out. False when `to` cannot be written.
bool gather_handed_in(const std::vector<HandedIn> &found, const std::string &to);

// The SHA-256 of what grading `dir` reads: each .cl/.h/.clh entry directly in it, sorted by
// name, as its name, its type and its content (a file over the size limit as its size, a
// symbolic link as its target), so that any change a lab's grade could follow changes it.
std::string files_sha256(const std::string &dir);
// The same of files found anywhere (find_handed_in), by their own names.
std::string files_sha256(const std::vector<HandedIn> &found);

// Lines for the files handed in under a name no lab takes ("lab5.cl is named as no lab: rename
// it 05_divergence.cl"), each with the id of the lab its number names ("" when none does).
// `labs`: every lab's id and kernel file.
struct Misnamed {
    std::string lab, note;
};
std::vector<Misnamed> misnamed_files(const std::vector<HandedIn> &found,
                                     const std::vector<std::pair<std::string, std::string>> &labs);

}  // namespace grade
