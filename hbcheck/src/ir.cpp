#include "ir.hpp"

#include <llvm/IR/CFG.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>

#include <set>
#include <vector>

namespace hbcheck {

unsigned line_of(const void *site) {
    auto *inst = static_cast<const llvm::Instruction *>(site);
    if (!inst) return 0;
    const llvm::DebugLoc &loc = inst->getDebugLoc();
    return loc ? loc.getLine() : 0;
}

namespace {

// Whether block `to` can be reached from `from` (a bounded search: kernels are small).
bool reaches(const llvm::BasicBlock *from, const llvm::BasicBlock *to) {
    std::vector<const llvm::BasicBlock *> work{from};
    std::set<const llvm::BasicBlock *> seen{from};
    while (!work.empty() && seen.size() < 4096) {
        const llvm::BasicBlock *b = work.back();
        work.pop_back();
        if (b == to) return true;
        for (const llvm::BasicBlock *n : llvm::successors(b))
            if (seen.insert(n).second) work.push_back(n);
    }
    return false;
}

}  // namespace

// A poll: a load whose value, through a few compares, selects and phis, decides a branch that
// leads back to the load (a loop that waits for the value).
bool decides_loop(const llvm::Instruction *load) {
    std::vector<std::pair<const llvm::Value *, int>> work{{load, 0}};
    std::set<const llvm::Value *> seen{load};
    while (!work.empty()) {
        const auto [v, depth] = work.back();
        work.pop_back();
        for (const llvm::User *u : v->users()) {
            const auto *inst = llvm::dyn_cast<llvm::Instruction>(u);
            if (!inst || !seen.insert(inst).second) continue;
            if (llvm::isa<llvm::BranchInst>(inst) || llvm::isa<llvm::SwitchInst>(inst)) {
                for (const llvm::BasicBlock *n : llvm::successors(inst->getParent()))
                    if (reaches(n, load->getParent())) return true;
            } else if (depth < 4 &&
                       (llvm::isa<llvm::CmpInst>(inst) || llvm::isa<llvm::CastInst>(inst) ||
                        llvm::isa<llvm::PHINode>(inst) || llvm::isa<llvm::SelectInst>(inst) ||
                        llvm::isa<llvm::BinaryOperator>(inst))) {
                work.push_back({inst, depth + 1});
            }
        }
    }
    return false;
}

bool is_volatile_load(const llvm::Instruction *inst) {
    const auto *load = llvm::dyn_cast_or_null<llvm::LoadInst>(inst);
    return load && load->isVolatile();
}

namespace {

// Whether two pointers name one place: the same value, or (unoptimised code) loads of one
// pointer variable.
bool same_place(const llvm::Value *a, const llvm::Value *b) {
    a = a->stripPointerCasts();
    b = b->stripPointerCasts();
    if (a == b) return true;
    const auto *la = llvm::dyn_cast<llvm::LoadInst>(a), *lb = llvm::dyn_cast<llvm::LoadInst>(b);
    return la && lb &&
           la->getPointerOperand()->stripPointerCasts() == lb->getPointerOperand()->stripPointerCasts();
}

// The OpenCL 1.2 atomic a plain store should be: `*p += v` (a load of the same place, an
// operation, the store) is atomic_add, and so on; any other store atomic_xchg.
std::string atomic_for(const void *site) {
    const auto *store = llvm::dyn_cast_or_null<llvm::StoreInst>(static_cast<const llvm::Instruction *>(site));
    const auto *op = store ? llvm::dyn_cast<llvm::BinaryOperator>(store->getValueOperand()) : nullptr;
    if (!op) return "atomic_xchg";
    for (unsigned i = 0; i < 2; ++i) {
        const auto *load = llvm::dyn_cast<llvm::LoadInst>(op->getOperand(i));
        if (!load || !same_place(load->getPointerOperand(), store->getPointerOperand())) continue;
        switch (op->getOpcode()) {
        case llvm::Instruction::Add: return "atomic_add";
        case llvm::Instruction::Sub: return i == 0 ? "atomic_sub" : "atomic_xchg";
        case llvm::Instruction::And: return "atomic_and";
        case llvm::Instruction::Or: return "atomic_or";
        case llvm::Instruction::Xor: return "atomic_xor";
        default: return "atomic_xchg";
        }
    }
    return "atomic_xchg";
}

// A plain access and another group's atomic of one word: the plain one becomes an atomic, or a
// hand-over orders the two.
std::string plain_atomic_fix(const Race &r) {
    const Access &plain = r.first.atomic ? r.second : r.first;
    const std::string l = std::to_string(line_of(r.site)), m = std::to_string(line_of(r.other_site));
    const std::string order = ", or order it with a fence and an atomic flag";
    if (plain.write)
        return "line " + l + " stores plainly to a word that the atomic at line " + m + " of "
               "another group uses, with nothing ordering the two: make the plain access at line " +
               l + " an atomic (" + atomic_for(r.site) + ")" + order;
    return "line " + l + " loads plainly a word that the atomic at line " + m + " of another group "
           "writes, with nothing ordering the two: make the plain access at line " + l + " an "
           "atomic (atomic_add(p, 0)) or a volatile load (OpenCL 1.2's poll)" + order;
}

}  // namespace

std::string fix(const hbcheck::Race &r) {
    using hbcheck::Cause;
    const std::string l = std::to_string(line_of(r.site)), g = std::to_string(r.group);
    const std::string fence = "mem_fence(CLK_GLOBAL_MEM_FENCE)", at = " the atomic at line ";
    const unsigned l1 = line_of(r.release_atomic), l2 = line_of(r.acquire_atomic);
    switch (r.cause) {
    case Cause::PlainAtomic:
        return plain_atomic_fix(r);
    case Cause::PlainFlag:
        return "the plain store at line " + l + " sets a word that another group polls (line " +
               std::to_string(line_of(r.other_site)) + "): make it an atomic (atomic_xchg); a "
               "plain store there races with the polls, fenced or not";
    case Cause::PlainHandOver:
        return "the plain store at line " + l + " hands over a word that atomics or polls "
               "read, so no fence around it orders anything: make it an atomic (atomic_xchg)";
    case Cause::BarrierBeforeRelease:
        return "a barrier(CLK_GLOBAL_MEM_FENCE) in every group before its master work-item "
               "arrives (the atomic at line " + l + ") would order them: another work-item "
               "of the group made the access, and within a group only a barrier with "
               "CLK_GLOBAL_MEM_FENCE passes it on to the one that hands over";
    case Cause::BarrierAfterAcquire:
        return "a barrier(CLK_GLOBAL_MEM_FENCE) in every group after its master work-item "
               "acquires (the atomic at line " + l + " and its fence) would order them: "
               "another work-item of the group made the access, and within a group only a "
               "barrier with CLK_GLOBAL_MEM_FENCE passes on what the master acquired";
    case Cause::AcquireMissing:
        return "an acquire fence after" + at + l + " would order them (" + fence +
               "): the atomic read carries the release, nothing acquires it";
    case Cause::UpstreamAcquire:
        return "an acquire fence after the read at line " + l + " in group " + g +
               " would order them (" + fence + "): that read carries the release on to the "
               "next hand-over, but nothing acquires it";
    case Cause::ReleaseMissing:
        return "a release fence before the atomic at line " + l + " would order them (" +
               fence + "): the acquire side is there";
    case Cause::NotCarried:
        return "the release fence is there, but no atomic read and acquire fence carry it "
               "on; within a group only a barrier with CLK_GLOBAL_MEM_FENCE passes it on";
    case Cause::BothMissing:
        return "a release fence before" + at + std::to_string(l1) + " and an acquire fence "
               "after" + at + std::to_string(l2) + " would order them (" + fence + ")";
    case Cause::NoHandOver:
        break;
    }
    return "nothing hands over between the groups: a release fence (" + fence + "), an "
           "atomic write, an atomic read (or volatile poll) of it, then an acquire fence";
}


}  // namespace hbcheck
