// What the hbcheck plugin reads from a kernel's LLVM IR: source lines, polls, volatile loads, and
// the words of a finding's "Fix:" line.
#pragma once
#include <string>

#include "hbcheck/model.hpp"

namespace llvm {
class Instruction;
}

namespace hbcheck {

// The source line of an instruction (a model's site); 0 when it has none.
unsigned line_of(const void *site);
// A poll: a load whose value decides a branch that leads back to the load (a loop that waits).
bool decides_loop(const llvm::Instruction *load);
bool is_volatile_load(const llvm::Instruction *inst);
// What would order a race's two accesses: the model's cause, told with its lines.
std::string fix(const Race &r);

}  // namespace hbcheck
