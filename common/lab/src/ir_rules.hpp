// For program_text.cpp alone: what a graded kernel may not compute, decided on the LLVM IR of its
// program text at -O0 (where nothing the kernel wrote is folded away).
#pragma once
#include <string>

namespace synclab::ir_rules {

// Throws RefusedSource at the first thing the IR does whose result depends on which
// implementation runs it, so that a kernel could tell the grader's checks apart (POCL,
// Oclgrind, a GPU): a pointer's bits read as a number (ptrtoint, a pointer's storage read as
// another type, an integer made a pointer, two pointers ordered), arithmetic each implementation
// may round its own way (contraction, mad, mad24/mul24, native_ and half_ functions, fast-math
// flags), and compiler intrinsics outside a short list (a cycle counter, a frame address).
// `shown` names the kernel file where the IR carries no line.
void check(const std::string &ir, const std::string &shown);

}  // namespace synclab::ir_rules
