// For lab 07's main: the lab's builds (which variants this device can run, and why not), and
// its parts, one per group of variants. Each part launches its kernels --trials times with fresh
// inputs, checks every result exactly (or within the float tolerance), prints and writes its CSV
// rows, and returns one verdict per variant.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "synclab/lab.hpp"
#include "synclab/subgroup_part.hpp"

namespace lab07 {

constexpr int kBins = 16;   // histogram bins (-D BINS)
constexpr int kSlots = 64;  // firstClaim's slots (-D SLOTS)
constexpr int kCasChunk = 1024;  // the float sums count their tries in chunks (-D CAS_CHUNK)

struct Setup {
    std::size_t groups = 0, wg = 0, n = 0;  // n = groups * wg work-items
    int trials = 1;
    int spins = 0;       // SPIN_BUDGET
    bool held = false;   // the lock starts held and is never released
    int iters = 0;       // the vote's expensive branch
    int need_every = 0;  // one group in this many needs it
    long long cas_budget = 0;  // compare-and-swap tries of one float-sum launch (whole chunks)
};

// Every build of the kernel file this run needs, and why a variant cannot run here.
struct Builds {
    cl::Program program;      // OpenCL C 1.2: every variant not named below
    synclab::SubgroupPart sg; // -D WITH_SUBGROUPS: vote_subgroup, vote_ballot
    cl::Program c2;           // -cl-std=CL2.0/CL3.0: lock_c11, syncreduce_builtin
    std::string c2_std;       // the -cl-std it was built with
    std::map<std::string, std::string> why_not;  // variant -> why this device cannot run it
    std::set<std::string> at_this_wg;  // of those, the ones another --wg would let run
    cl::Program &of(const std::string &variant);
};

// Builds what the selected variants need, checking every kernel that will run.
Builds build(synclab::Lab &lab, const Setup &s, const std::string &defines);

// The CSV columns every part fills what it can of.
const std::vector<std::string> &csv_columns();

struct Part {
    synclab::Lab &lab;
    const Setup &s;
    Builds &builds;
    synclab::Csv &csv;
    synclab::Verdict counts(const std::string &variant);    // plain, atomic
    synclab::Verdict family(const std::string &variant);
    synclab::Verdict lock(const std::string &variant);      // lock, lock_nofence, lock_c11
    // None where a kernel gave up with nothing wrong: recorded as skipped, with why.
    std::optional<synclab::Verdict> floatsum(const std::string &variant);
    synclab::Verdict vote(const std::string &variant);      // vote, vote_subgroup, vote_ballot
    synclab::Verdict syncreduce(const std::string &variant);  // syncreduce, syncreduce_builtin
};

}  // namespace lab07
