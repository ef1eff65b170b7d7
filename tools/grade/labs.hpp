// For the grader and the tests: the labs this build can grade, each read from its executable's
// declaration (--describe), so no table of labs exists outside the labs themselves.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "synclab/declaration.hpp"

namespace grade {

struct Recipe {
    std::string id;           // what --labs names: "01"
    std::string executable;   // beside synclab-grade (build/bin/)
    std::string kernel_file;  // the file a student hands in, named as in kernels/
    // The student's variants: the declaration's graded ones, demonstrations left out.
    std::vector<std::string> variants;
    // Everything else as the lab declares it: its grading runs (`grading`), its race checks
    // (`race_checks`, `drawn_checks`), its stress schedules.
    synclab::Declaration declaration;
    std::string description;  // its --describe, as printed
};

Recipe recipe_of(const synclab::Declaration &d);

// The race checks one grading of a submission runs, in order until one finds something: the
// declaration's race checks, then the member of its drawn set (drawn_checks) picked by a hash of
// the submitted kernel's text, the lab and `key` (the grader's --draw-key, by default its
// --seed). The same submission draws the same member on every machine; a course that keeps its
// key to itself keeps the draw from its students.
std::vector<std::vector<std::string>> race_checks_of(const Recipe &r, const std::string &key,
                                                     const std::string &kernel_text);

// The hash behind every draw: 64 bits of SHA-256 over key, lab and text (and `what`, a count's name).
std::uint64_t draw_hash(const std::string &key, const std::string &lab, const std::string &kernel_text,
                        const std::string &what = "");
// The counts one submission draws (Declaration::draws, in order), each from its range.
std::vector<unsigned> drawn_counts(const Recipe &r, const std::string &key, const std::string &kernel_text);
// The recipe one submission is graded by: its draws' `{name}`s replaced by the drawn counts, and
// the drawn race check's twin (drawn_grading) added to its grading runs, last.
Recipe drawn_recipe(const Recipe &r, const std::string &key, const std::string &kernel_text);

// Every lab executable in bin_dir (lab[0-9][0-9]_*) that describes itself, in id order. A lab
// that cannot is left out, with one line of why added to *problems.
std::vector<Recipe> discover_labs(const std::string &bin_dir, std::vector<std::string> *problems,
                                  const volatile int *stop = nullptr);

}  // namespace grade
