// For synclab-grade's main: the labs stage. The labs standing beside the grader, which of them
// this build can grade (their kernels/ file is in the project), and the ones --labs picks.
#pragma once
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "labs.hpp"

namespace grade {

struct Catalog {
    std::string bin;                       // the grader's own folder, where the labs are
    std::vector<Recipe> all;               // every lab that describes itself
    std::vector<std::string> problems;     // one line for each that cannot
    std::vector<const Recipe *> gradable;  // those whose kernels/ file the project has
    std::string not_gradable;              // " x; lab 07 (no kernels/...)" for messages
};

// Discovers the labs beside the grader. Throws UsageError off Linux (no /proc/self/exe).
Catalog find_labs(const volatile int *stop);

// --list-labs: `labs` (those --labs picks) on `out`, a line each: id, executable, kernel file
// and points ("01  lab01_workgroup_reduce  01_workgroup_reduce.cl  1 point"), as the GitHub
// Classroom workflow's generator reads them; the executables that are no lab on `err`.
void list_labs(const Catalog &c, const std::vector<const Recipe *> &labs,
               const std::map<std::string, unsigned> &points, std::ostream &out, std::ostream &err);

// The labs --labs names (all gradable ones without it), in the order given; throws UsageError
// with one line for a lab that cannot be graded, or when none can.
std::vector<const Recipe *> select_labs(const Catalog &c, bool has_list, const std::string &list);

}  // namespace grade

namespace grade {

// Each of `labs`' points in a score (lab id -> points): its declaration's, where --points LIST
// ("09=3,10=2") does not give others. Throws UsageError with one line for a malformed list or
// a lab not among `labs`.
std::map<std::string, unsigned> lab_points(const std::vector<const Recipe *> &labs,
                                           const std::string &list);

}  // namespace grade
