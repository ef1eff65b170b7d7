// For lab 07's main: the lab's parts, one per group of variants. Each launches its kernels
// --trials times with fresh inputs, checks every result exactly (or within the float tolerance),
// prints and writes its CSV rows, and returns one verdict per variant.
#pragma once
#include <string>
#include <vector>

#include "synclab/lab.hpp"

namespace lab07 {

constexpr int kBins = 16;   // histogram bins (-D BINS)
constexpr int kSlots = 64;  // firstClaim's slots (-D SLOTS)

struct Setup {
    std::size_t groups = 0, wg = 0, n = 0;  // n = groups * wg work-items
    int trials = 1;
    int spins = 0;       // SPIN_BUDGET
    bool held = false;   // the lock starts held and is never released
    int iters = 0;       // the vote's expensive branch
    int need_every = 0;  // one group in this many needs it
};

// The CSV columns every part fills what it can of.
const std::vector<std::string> &csv_columns();

struct Part {
    synclab::Lab &lab;
    const Setup &s;
    cl::Program &program;
    synclab::Csv &csv;
    cl::Program *subgroups = nullptr;  // the WITH_SUBGROUPS build, where it runs
    synclab::Verdict counts(const std::string &variant);    // plain, atomic
    synclab::Verdict family(const std::string &variant);
    synclab::Verdict lock(const std::string &variant);      // lock, lock_nofence
    synclab::Verdict floatsum(const std::string &variant);
    synclab::Verdict vote(const std::string &variant);      // vote, vote_subgroup
    synclab::Verdict syncreduce(const std::string &variant);
};

}  // namespace lab07
