// For the hbcheck Oclgrind plugin and its tests: OpenCL's memory model as happens-before with
// vector clocks, knowing nothing of Oclgrind or of labs.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

namespace hbcheck {

using Clock = std::uint32_t;

// One clock per work-item of the launch.
struct VectorClock {
    std::vector<Clock> c;
    void join(const VectorClock &o);
    // True when this clock has seen `item`'s event at time `t`: that event happens before.
    bool covers(std::size_t item, Clock t) const { return item < c.size() && c[item] >= t; }
    bool empty() const { return c.empty(); }
};

// The order of an atomic or a fence. OpenCL 1.2's atomic_* are relaxed; mem_fence is acq_rel,
// read_mem_fence acquire, write_mem_fence release.
enum class Order { Relaxed, Acquire, Release, AcqRel };
inline bool acquires(Order o) { return o == Order::Acquire || o == Order::AcqRel; }
inline bool releases(Order o) { return o == Order::Release || o == Order::AcqRel; }

// An access the model saw: a work-item, its time and an opaque place (the plugin's instruction).
// epoch: how many barriers with CLK_GLOBAL_MEM_FENCE its work-item had passed; poll: a load whose
// value decides a loop around it (a wait for a flag); after_release, after_acquire: the atomic
// by which another work-item of its group released (acquired) in the same epoch, before it;
// atomic: an atomic (a read-modify-write is a write).
struct Access {
    std::size_t item = 0, group = 0;
    Clock time = 0;
    const void *site = nullptr;
    bool write = false;
    Clock epoch = 0;
    bool poll = false;
    const void *after_release = nullptr, *after_acquire = nullptr;
    bool atomic = false;
};

// What would have ordered a race, the first that applies, in the order a student fixes them.
enum class Cause {
    PlainAtomic,          // a plain access and another group's atomic of one word, unordered
    PlainFlag,            // a plain store to a word another group polls, raced by the poll
    BarrierBeforeRelease, // the access is another work-item's than the one that releases it, with
                          // no barrier(CLK_GLOBAL_MEM_FENCE) between
    BarrierAfterAcquire,  // the same on the acquiring side
    PlainHandOver,        // the word handed over was last written by a plain store
    AcquireMissing,       // the second work-item read the release and did not acquire it
    UpstreamAcquire,      // a work-item on the way read the release, then passed it on unacquired
    ReleaseMissing,       // the acquire side is there, the release fence before the atomic is not
    NotCarried,           // the release fence is there, no atomic read and acquire carry it on
    BothMissing,          // neither fence
    NoHandOver,           // no atomic between the groups at all
};

// Two conflicting accesses of work-items of different work-groups that nothing orders, at most one
// of them atomic, and what the model knows of the synchronisation that would have ordered them.
struct Race {
    std::size_t address = 0;
    Access first, second;  // in the order they ran
    // The latest atomic write of the first work-item after its access (where a release fence
    // belongs before), and the latest atomic read of the second (where an acquire fence belongs
    // after); nullptr when there was none.
    const void *release_atomic = nullptr, *acquire_atomic = nullptr;
    // The second work-item read an atomic that carried the first's release, but no acquire
    // fence (or acquire atomic) followed: only the acquire side is missing.
    bool only_acquire_missing = false;
    // The first work-item made a release fence after its access: only the acquire side (or the
    // atomic connecting them) is missing.
    bool released = false;
    // The second work-item's last atomic read was followed by an acquire fence: only the
    // release side (or the atomic connecting them) is missing.
    bool acquired = false;
    // The cause, and the place to fix it: the plain access (PlainAtomic), the plain store
    // (PlainFlag, PlainHandOver), the atomic the barrier belongs before or after, the read the
    // acquire belongs after; other_site the atomic (PlainAtomic) or the poll (PlainFlag); group:
    // the group of site's work-item.
    Cause cause = Cause::NoHandOver;
    const void *site = nullptr, *other_site = nullptr;
    std::size_t group = 0;
};

// The model of one kernel launch. Work-items are 0..items-1. Calls for one work-item come from
// one thread at a time (Oclgrind runs a work-group on one worker thread); calls for different
// work-groups may come from different threads at once.
class Model {
public:
    // Work-items are numbered group by group: work-group g holds g * per_group ... + per_group - 1.
    Model(std::size_t items, std::size_t per_group);

    // A non-atomic load or store of `size` bytes. Returns the first unordered conflict with an
    // access of another work-group, plain or atomic. A load of bytes an atomic wrote last reads
    // like a relaxed atomic load; a volatile one (`vol`) is never judged against atomics: OpenCL
    // 1.2 has no atomic load, a volatile load is its poll. `poll`: a load that decides a loop
    // around it (a wait for a flag).
    std::optional<Race> access(std::size_t item, std::size_t group, std::size_t address,
                               std::size_t size, bool write, const void *site, bool poll = false,
                               bool vol = false);
    // An atomic on the word at `address`: reads and/or writes (an RMW both, a failed
    // compare-exchange reads only, a 2.0 store writes only), with its order at device scope.
    // Returns the first unordered conflict with a plain access of another work-group.
    std::optional<Race> atomic(std::size_t item, std::size_t address, bool reads, bool writes,
                               Order order, const void *site);
    // A fence on global memory at device scope.
    void fence(std::size_t item, Order order);
    // A work-group barrier whose flags include CLK_GLOBAL_MEM_FENCE: the group's work-items.
    void barrier(const std::vector<std::size_t> &items);

    std::size_t items() const { return items_.size(); }

private:
    // A read of an atomic's release that its work-item passed on unacquired: where an acquire
    // fence belongs (site nullptr: none).
    struct Note {
        const void *site = nullptr;
        std::size_t group = 0;
    };
    // A plain store to a word that atomics or polls use (site nullptr: none).
    struct PlainStore {
        const void *site = nullptr;
        std::size_t item = 0, group = 0;
        Clock time = 0;
    };
    struct Item {
        VectorClock now, released, pending;  // released: at the last release fence; pending:
                                              // what atomics read, for the next acquire fence
        std::size_t group = 0;
        Clock epoch = 0;  // barriers with CLK_GLOBAL_MEM_FENCE passed
        Note note;        // carried in from an atomic read or a barrier
        // The last atomic write, and the last atomic read (or poll) of a word another group
        // wrote, or whose release sequence brought what was not acquired: the hand-overs.
        std::atomic<const void *> last_atomic_write{nullptr}, last_atomic_read{nullptr};
        std::atomic<Clock> last_atomic_write_time{0};
        std::atomic<Clock> released_at{0};  // own time at the last release fence (0: none)
        std::atomic<bool> acquired{false};  // an acquire fence since the last hand-over read
        Clock release_epoch = 0;            // the epoch of the last release fence
        // The last atomic read (or poll) since the last acquire that brought what was not
        // acquired: an acquire fence after it acquires every one before it, so that is where
        // the fence goes, whichever group's schedule runs.
        const void *last_unacquired = nullptr;
        std::atomic<bool> write_released{false};  // the last atomic write released
    };
    // Per work-group: the first releasing atomic write (the last acquiring atomic read) of an
    // epoch, and by which work-item. Written by the group's thread, read by any.
    struct Stamp {
        std::atomic<std::uint64_t> epoch_item{~std::uint64_t(0)};  // epoch << 32 | item
        std::atomic<const void *> site{nullptr};
        void set(Clock epoch, std::size_t item, const void *at) {
            site = at;
            epoch_item = std::uint64_t(epoch) << 32 | std::uint32_t(item);
        }
        // The atomic, when another work-item than `item` made it in `epoch`; else nullptr.
        const void *other(Clock epoch, std::size_t item) const {
            const std::uint64_t e = epoch_item.load();
            return e >> 32 == epoch && std::uint32_t(e) != std::uint32_t(item) ? site.load()
                                                                                : nullptr;
        }
    };
    struct Read {
        std::size_t item, group;
        Clock time;
        const void *site;
        Clock epoch;
        bool poll;
        const void *after_release, *after_acquire;
        bool vol;  // volatile: never judged against atomics
    };
    // atomic_use: an atomic read or wrote the byte (atomic_uses_ holds them).
    struct Byte {
        bool written = false, atomic_last = false, ever_atomic = false, atomic_use = false;
        Access w;
        std::vector<Read> reads;
    };
    // An atomic word: its release sequence, the note its releases carry, the plain store that
    // ended the sequence, the group that wrote it last.
    struct Word {
        VectorClock seq;
        Note note;
        PlainStore plain;
        std::size_t writer_group = ~std::size_t(0);
    };
    struct Shard {
        std::mutex mu;
        std::unordered_map<std::size_t, Byte> bytes;
    };
    static constexpr std::size_t kShards = 64;

    Shard &shard(std::size_t address) { return shards_[(address >> 4) % kShards]; }
    Race race(const Access &first, const Access &second, std::size_t address) const;
    static Race plain_atomic(const Access &first, const Access &second, std::size_t address);
    std::optional<Race> against_atomics(const Access &a, const std::vector<std::size_t> &words);
    std::optional<Race> against_plain(const Access &a, std::size_t address);
    void record_use(const Access &a, std::size_t address);
    void diagnose(Race &r, const Item &a, const Item &b) const;
    bool barrier_missing(const Access &s, Race &r) const;
    bool acquire_from(Item &it, std::size_t word, bool now);
    Note passed_on(const Item &it) const;
    void tick(std::size_t item) { ++items_[item].now.c[item]; }

    std::vector<Item> items_;
    // Per work-group: its work-item that last read or wrote an atomic (npos: none), for the fix
    // a report suggests when the racing work-items leave the handing over to another.
    static constexpr std::size_t kNone = ~std::size_t(0);
    std::vector<std::atomic<std::size_t>> group_reader_, group_writer_;
    std::vector<Stamp> group_release_, group_acquire_;
    // Per work-group, touched by its own thread: the plain store its last hand-over read (an
    // atomic of a word a plain store wrote last, or a poll of another group's plain store).
    std::vector<PlainStore> group_plain_;
    Shard shards_[kShards];
    std::mutex atomics_mu_;
    std::unordered_map<std::size_t, Word> atomics_;
    // Per atomic word, under atomics_mu_: the atomics since its last plain store, at most a read
    // and a write per work-item (atomics never race with atomics; plain accesses are judged
    // against these).
    std::unordered_map<std::size_t, std::vector<Access>> atomic_uses_;
};

}  // namespace hbcheck
