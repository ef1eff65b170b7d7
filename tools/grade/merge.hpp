// For synclab-grade's main: --merge, which joins the gradebooks of one class graded in shards
// (--shard I/N) into one, in student, lab order as one run writes it.
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

#include "record_csv.hpp"

namespace grade {

// Reads every gradebook in `inputs` and writes their rows to `out` (taken as a Gradebook in
// `mode`: fresh refuses one that holds rows). Each input must be finished (every student has a
// total row), hold students no other input holds, and grade the same labs as the others;
// otherwise UsageError with one line naming the file and the fix. Says what it wrote on `os`.
void merge_gradebooks(const std::vector<std::string> &inputs, const std::string &out,
                      Gradebook::Mode mode, std::ostream &os);

}  // namespace grade
