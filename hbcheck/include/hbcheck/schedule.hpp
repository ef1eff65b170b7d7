// For hbcheck's plugin and its tests: the work-groups of a launch run one at a time, switched where
// groups interact, by a seeded policy, so that one seed gives one interleaving on any machine.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace hbcheck {

// Every group that runs polls words that none of them changes (thrown by Schedule::point).
struct Deadlock {
    std::vector<std::pair<std::size_t, const void *>> waits;  // each running group, its poll
    std::size_t not_started = 0;  // groups no worker could take while these waited
};

// Oclgrind gives each worker thread one group at a time; the schedule lets one of them run and
// parks the others inside plugin callbacks, where Oclgrind holds no lock. The running group hands
// its turn on only at a point: right after an atomic or a flag store that changed memory by a
// fair coin (where a protocol's windows open), after a fence or poll by a rarer one (the seed says
// how rare), and always after a poll that read what it read last time (it waits; a group that can
// move goes next). When every running group has polled in vain more than `patience` times in a row with no
// write anywhere in between, that is a deadlock: no bounded wait of the lab polls that long.
class Schedule {
public:
    // Release: an atomic or a store to a polled word that changed it; Atomic: an atomic that
    // changed nothing (both pass the turn on once in two); Write: any other store that changed
    // memory (no switch: the data of a step); Other: a fence, a poll that read something new.
    enum class Point { Release, Atomic, Write, Other, StalePoll };

    // seed 0: off (every call returns at once). workers: the threads Oclgrind runs groups on.
    void begin(std::uint64_t seed, std::size_t groups, std::size_t workers,
               std::size_t patience = kPatience);
    void end();
    bool on() const { return on_; }
    // A worker took group g: returns when it is g's turn.
    void group_begin(std::size_t g);
    // g is done: the turn passes on (or stays with this worker, which takes the next group).
    void group_end(std::size_t g);
    // After an instruction of g that is a point; may hand the turn on and wait for it to come
    // back. Throws Deadlock in the group that finds one, and in every other group after it.
    // `address`: the word a Release wrote or a poll read; a Release that hands the turn on wakes a
    // group whose poll waits on that word where there is one (the window a protocol leaves).
    void point(std::size_t g, Point p, const void *site, std::size_t address = 0);
    // Called on every instruction: a turn held that long is a live worker, not a lost one.
    void beat() { beats_.fetch_add(1, std::memory_order_relaxed); }
    // A wait for the turn that saw no beat for this long gives the schedule up (a worker that
    // stopped on an error holds the turn): the groups then run as Oclgrind's threads take them.
    bool abandoned() const { return abandoned_; }

    // Longer than any bounded wait the labs give a kernel on Oclgrind (lab 09's discovery: 2^10
    // quiet polls), shorter than their budgets (2^18), so a deadlock is told before a give-up.
    static constexpr std::size_t kPatience = std::size_t(1) << 14;
    static constexpr std::size_t kTurn = 64;  // vain polls a waiting group makes a turn, when all wait

private:
    static constexpr std::size_t kNone = ~std::size_t(0);
    static constexpr std::uint64_t kNever = ~std::uint64_t(0);

    std::uint64_t next_random();
    std::size_t pick(std::size_t g, bool stale_only_ok);
    std::size_t waiter_on(std::size_t g, std::size_t address);
    void hand_to(std::unique_lock<std::mutex> &lock, std::size_t g, std::size_t next);
    void wait_turn(std::unique_lock<std::mutex> &lock, std::size_t g);
    [[noreturn]] void deadlock();

    bool on_ = false;
    std::mutex mu_;
    std::vector<std::unique_ptr<std::condition_variable>> cvs_;  // one a group: a hand-over wakes one
    void wake(std::size_t h) { if (h < cvs_.size()) cvs_[h]->notify_one(); }
    void wake_all() { for (auto &cv : cvs_) cv->notify_all(); }
    std::uint64_t rng_ = 0;
    unsigned one_in_ = 4;  // an Other point hands the turn on once in this many (by the seed)
    std::size_t patience_ = kPatience;
    std::size_t groups_ = 0, first_ = 0, begun_ = 0;  // first_: groups the workers take at once
    std::size_t running_ = kNone;
    std::uint64_t epoch_ = 0;  // global writes so far
    std::vector<bool> live_;
    std::vector<std::uint64_t> stale_epoch_;  // the epoch of g's last vain poll (kNever: moved since)
    std::vector<std::size_t> stale_count_;    // g's vain polls in a row
    std::vector<const void *> wait_site_;
    std::vector<std::size_t> wait_address_;
    bool deadlocked_ = false, abandoned_ = false;
    Deadlock found_;
    std::atomic<std::uint64_t> beats_{0};
};

}  // namespace hbcheck
