// For program_text.cpp alone: the __local memory a program text's kernels declare, used or not,
// against a limit real GPUs have.
#pragma once
#include <cstddef>
#include <string>

namespace synclab::local_arrays {

// Whether the text may declare a __local variable: `local` or `__local` outside every
// parenthesis (a kernel's __local arguments and casts are inside one; a declaration in its body,
// where alone OpenCL C allows one, is not). Most kernels declare none: no IR to compile.
bool may_declare(const std::string &text);

// Whether every __local declaration the text may hold is a plain array or scalar of a scalar or
// vector type with literal sizes (or a pointer to local memory), all of them together within
// `limit`: the IR would then refuse nothing, and need not be compiled. Any other declaration,
// or more than the limit, is left to the IR.
bool plainly_within(const std::string &text, std::size_t limit);

// Each kernel's __local arrays from the text's LLVM IR at -O0 (where none is dropped), against
// the limit: throws BuildError at `shown` naming the kernel and its largest array when over.
void check_ir(const std::string &ir, const std::string &shown, std::size_t limit);

}  // namespace synclab::local_arrays
