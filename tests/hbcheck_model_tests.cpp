// hbcheck's model alone, without Oclgrind: the scenarios of tests/hbcheck/ (and a few the kernels
// cannot pin down) driven by direct calls in a fixed order, with made-up sites. Every bug sits
// beside its fixed twin, so a model that reports everything, or nothing, fails.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "hbcheck_launch.hpp"

namespace {

using namespace hbtest;

// Message passing: group 0 writes data, (fence), raises the flag; group 1 polls it, (fence), reads.
Launch message_passing(std::optional<Order> writer_fence, std::optional<Order> reader_fence) {
    Launch l(2, 1);
    const auto w = l.item(0), r = l.item(1);
    l.load(r, kFlag, kPoll);  // a poll that sees 0 first
    l.write(w, kData, kWriteData);
    if (writer_fence) l.fence(w, *writer_fence);
    l.rmw(w, kFlag, kRaise);
    l.rmw(r, kFlag, kPoll);  // atomic_or(flag, 0) sees 1
    if (reader_fence) l.fence(r, *reader_fence);
    l.read(r, kData, kReadData);
    return l;
}

// The lecture's lock over a record, taken in turn by work-item 0 of each of 3 groups; while one
// holds it, the next one's compare-exchange fails.
Launch global_lock(bool acquire, bool release) {
    Launch l(3, 2);
    for (std::size_t g = 0; g < 3; ++g) {
        const auto it = l.item(g);
        l.rmw(it, kLock, kTake);  // atomic_cmpxchg(lock, 0, 1) == 0
        if (acquire) l.fence(it);
        l.read(it, kRecord, kReadRecord);
        l.write(it, kRecord, kWriteRecord);
        if (g + 1 < 3) l.load(l.item(g + 1), kLock, kTake);  // theirs fails: it reads only
        if (release) l.fence(it);
        l.rmw(it, kLock, kFree);  // atomic_xchg(lock, 0)
    }
    return l;
}

// A counter barrier of 3 groups: publish, (fence), atomic_inc the count; the last arrival (group 2)
// fences and bumps the generation; the others poll it, by a volatile load or atomic_or(p, 0);
// (fence); each reads the next group's datum.
Launch counter_barrier(bool release, bool acquire, bool volatile_poll) {
    Launch l(3, 1);
    auto poll = [&](std::size_t it) {
        if (volatile_poll) l.vread(it, kGeneration, kPollGen);
        else l.rmw(it, kGeneration, kPollGen);
    };
    for (std::size_t g = 0; g < 3; ++g) {
        l.write(l.item(g), kData + 4 * g, kWriteData);
        if (release) l.fence(l.item(g));
        l.rmw(l.item(g), kCounter, kArrive);
        if (g < 2) poll(l.item(g));  // sees generation 0: not all here yet
    }
    l.fence(l.item(2));
    l.rmw(l.item(2), kGeneration, kBump);
    for (std::size_t g = 0; g < 2; ++g) poll(l.item(g));  // sees generation 1
    for (std::size_t g = 0; g < 3; ++g) {
        if (acquire) l.fence(l.item(g));
        l.read(l.item(g), kData + 4 * ((g + 1) % 3), kReadData);
    }
    return l;
}

// A flag barrier of 3 groups: groups 1 and 2 raise their arrival flags, group 0 (the master)
// waits for them, (fence), raises their release flags; they wait. Flags by atomics or by plain
// volatile stores and loads.
Launch flag_barrier(bool fenced, bool atomics) {
    Launch l(3, 1);
    auto raise = [&](std::size_t it, std::size_t flag) {
        if (atomics) l.rmw(it, flag, kRaise);
        else l.write(it, flag, kRaise);
    };
    auto poll = [&](std::size_t it, std::size_t flag) {
        if (atomics) l.rmw(it, flag, kPoll);
        else l.vread(it, flag, kPoll);
    };
    for (std::size_t g = 0; g < 3; ++g) {
        l.write(l.item(g), kData + 4 * g, kWriteData);
        if (fenced) l.fence(l.item(g));
    }
    for (std::size_t g = 1; g < 3; ++g) raise(l.item(g), kArrived + 16 * g);
    for (std::size_t g = 1; g < 3; ++g) poll(l.item(0), kArrived + 16 * g);
    if (fenced) l.fence(l.item(0));
    for (std::size_t g = 1; g < 3; ++g) raise(l.item(0), kGo + 16 * g);
    for (std::size_t g = 1; g < 3; ++g) poll(l.item(g), kGo + 16 * g);
    for (std::size_t g = 0; g < 3; ++g) {
        if (fenced) l.fence(l.item(g));
        l.read(l.item(g), kData + 4 * ((g + 1) % 3), kReadData);
    }
    return l;
}

// A reduction inside each of 2 groups of 4 in their own slices, a barrier after each step; item 0
// writes the group's partial sum to partial[group], or (shared) every group to partial[0].
Launch group_reduce(bool shared_output) {
    Launch l(2, 4);
    for (std::size_t g = 0; g < 2; ++g) {
        const std::size_t slice = kSlice + 0x100 * g;
        for (std::size_t stride = 2; stride > 0; stride /= 2) {
            for (std::size_t i = 0; i < stride; ++i) {
                l.read(l.item(g, i), slice + 4 * i, kSum);
                l.read(l.item(g, i), slice + 4 * (i + stride), kSum);
                l.write(l.item(g, i), slice + 4 * i, kSum);
            }
            l.barrier(g);
        }
        l.read(l.item(g), slice, kSum);
        l.write(l.item(g), kPartial + (shared_output ? 0 : 4 * g), kWritePartial);
    }
    return l;
}

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("hbcheck model: message passing is ordered by a release fence, an atomic flag and an acquire fence") {
    CHECK(message_passing(Order::AcqRel, Order::AcqRel).clean());    // mem_fence on both sides
    CHECK(message_passing(Order::Release, Order::Acquire).clean());  // write_/read_mem_fence

    const auto no_acquire = message_passing(Order::AcqRel, std::nullopt);
    REQUIRE_FALSE(no_acquire.clean());
    const auto &r = no_acquire.first();
    CHECK(r.address == kData);
    CHECK(r.first.site == kWriteData);
    CHECK(r.first.write);
    CHECK(r.first.group == 0);
    CHECK(r.second.site == kReadData);
    CHECK_FALSE(r.second.write);
    CHECK(r.second.group == 1);
    CHECK(r.only_acquire_missing);  // the poll carried the release: only the acquire is missing
    CHECK(r.released);
    CHECK_FALSE(r.acquired);
    CHECK(r.acquire_atomic == kPoll);

    const auto no_release = message_passing(std::nullopt, Order::AcqRel);
    REQUIRE_FALSE(no_release.clean());
    CHECK_FALSE(no_release.first().only_acquire_missing);
    CHECK_FALSE(no_release.first().released);
    CHECK(no_release.first().acquired);  // only the release side is missing
    CHECK(no_release.first().release_atomic == kRaise);  // where the release fence belongs
    CHECK(no_release.first().acquire_atomic == kPoll);

    CHECK_FALSE(message_passing(std::nullopt, std::nullopt).clean());
    // A fence of the wrong kind on either side: read_mem_fence releases nothing, write_mem_fence
    // acquires nothing.
    CHECK_FALSE(message_passing(Order::Acquire, Order::Acquire).clean());
    CHECK_FALSE(message_passing(Order::Release, Order::Release).clean());
}

TEST_CASE("hbcheck model: fences alone, with no atomic between them, order nothing") {
    Launch l(2, 1);
    l.write(l.item(0), kData, kWriteData);
    l.fence(l.item(0));
    l.rmw(l.item(0), kFlag, kRaise);
    l.rmw(l.item(1), kFlag + 16, kPoll);  // another word: it carries nothing of group 0's
    l.fence(l.item(1));
    l.read(l.item(1), kData, kReadData);
    REQUIRE_FALSE(l.clean());
    CHECK(l.first().released);  // both fences are there: the atomic between them is missing
    CHECK(l.first().acquired);
    CHECK_FALSE(l.first().only_acquire_missing);

    Launch twin(2, 1);  // the same with the one word
    twin.write(twin.item(0), kData, kWriteData);
    twin.fence(twin.item(0));
    twin.rmw(twin.item(0), kFlag, kRaise);
    twin.rmw(twin.item(1), kFlag, kPoll);
    twin.fence(twin.item(1));
    twin.read(twin.item(1), kData, kReadData);
    CHECK(twin.clean());
}

TEST_CASE("hbcheck model: the global lock orders its record only with both fences") {
    CHECK(global_lock(true, true).clean());

    const auto no_acquire = global_lock(false, true);
    REQUIRE_FALSE(no_acquire.clean());
    CHECK(no_acquire.first().address == kRecord);
    CHECK(no_acquire.first().first.site == kWriteRecord);
    CHECK(no_acquire.first().second.site == kReadRecord);
    CHECK(no_acquire.first().only_acquire_missing);

    const auto no_release = global_lock(true, false);
    REQUIRE_FALSE(no_release.clean());
    CHECK(no_release.first().first.site == kWriteRecord);
    CHECK(no_release.first().second.site == kReadRecord);
    CHECK_FALSE(no_release.first().only_acquire_missing);
    CHECK(no_release.first().release_atomic == kFree);

    CHECK_FALSE(global_lock(false, false).clean());
}

TEST_CASE("hbcheck model: a counter barrier between groups needs the release and the acquire fence") {
    for (bool volatile_poll : {true, false}) {
        CAPTURE(volatile_poll);  // a volatile load of an atomic's word reads like an atomic
        CHECK(counter_barrier(true, true, volatile_poll).clean());
        const auto no_release = counter_barrier(false, true, volatile_poll);
        REQUIRE_FALSE(no_release.clean());
        CHECK(no_release.first().first.site == kWriteData);
        CHECK(no_release.first().second.site == kReadData);
        CHECK(no_release.first().acquire_atomic == kPollGen);  // a volatile poll reads atomically
        const auto no_acquire = counter_barrier(true, false, volatile_poll);
        REQUIRE_FALSE(no_acquire.clean());
        CHECK(no_acquire.first().first.site == kWriteData);
        CHECK(no_acquire.first().second.site == kReadData);
        CHECK(no_acquire.first().only_acquire_missing);
    }
}

TEST_CASE("hbcheck model: a flag barrier needs its fences, and its flags must be atomics") {
    CHECK(flag_barrier(true, true).clean());
    const auto unfenced = flag_barrier(false, true);
    REQUIRE_FALSE(unfenced.clean());
    for (const auto &r : unfenced.races) CHECK(r.first.site == kWriteData);  // only the data

    // Plain volatile flags race even with every fence: two non-atomic accesses.
    const auto plain = flag_barrier(true, false);
    REQUIRE_FALSE(plain.clean());
    const auto &r = plain.first();
    CHECK(r.address == kArrived + 16);
    CHECK(r.first.site == kRaise);
    CHECK(r.first.write);
    CHECK(r.first.group == 1);
    CHECK(r.second.site == kPoll);
    CHECK(r.second.group == 0);
}

TEST_CASE("hbcheck model: groups that share only atomic words raise no alarm") {
    Launch l(4, 2);
    for (std::size_t g = 0; g < 4; ++g) {
        // A volatile load of a word before any atomic wrote it: an atomic later is still no race.
        l.vread(l.item(g, 1), kCounter, kPoll);
        for (std::size_t i = 0; i < 2; ++i) {
            l.rmw(l.item(g, i), kPartial + 4 * ((g + i) % 4), kCount);  // histogram bins
            l.rmw(l.item(g, i), kCounter, kCount);                      // a ticket
            l.write(l.item(g, i), kSlice + 4 * l.item(g, i), kWriteData);  // its own slot
        }
        // Another group's bins, by atomic_or(p, 0) and by volatile loads.
        l.rmw(l.item(g), kPartial + 4 * ((g + 1) % 4), kPoll);
        l.vread(l.item(g), kPartial + 4 * ((g + 2) % 4), kPoll);
        l.vread(l.item(g), kCounter, kPoll);
    }
    CHECK(l.clean());

    // The twin: one group reads another's slot, which was written plainly.
    l.read(l.item(3), kSlice + 4 * l.item(0), kReadData);
    CHECK_FALSE(l.clean());
}

TEST_CASE("hbcheck model: a reduction within groups is clean, two groups writing one output race") {
    CHECK(group_reduce(false).clean());
    const auto shared = group_reduce(true);
    REQUIRE(shared.races.size() == 1);
    const auto &r = shared.first();
    CHECK(r.address == kPartial);
    CHECK(r.first.site == kWritePartial);
    CHECK(r.second.site == kWritePartial);
    CHECK(r.first.write);
    CHECK(r.second.write);
    CHECK(r.first.group == 0);
    CHECK(r.second.group == 1);
    CHECK(r.release_atomic == nullptr);  // no atomic: the plugin says to add one
    CHECK(r.acquire_atomic == nullptr);
}

TEST_CASE("hbcheck model: OpenCL 2.0 release and acquire atomics order data, a relaxed one does not") {
    auto run = [](Order writer, Order reader, bool rmw, bool reader_fence = false) {
        Launch l(2, 1);
        l.write(l.item(0), kData, kWriteData);
        if (rmw) l.rmw(l.item(0), kFlag, kRaise, writer);  // atomic_fetch_add_explicit
        else l.store(l.item(0), kFlag, kRaise, writer);    // atomic_store_explicit
        if (rmw) l.rmw(l.item(1), kFlag, kPoll, reader);
        else l.load(l.item(1), kFlag, kPoll, reader);      // atomic_load_explicit
        if (reader_fence) l.fence(l.item(1), Order::Acquire);
        l.read(l.item(1), kData, kReadData);
        return l;
    };
    for (bool rmw : {false, true}) {
        CAPTURE(rmw);
        CHECK(run(Order::Release, Order::Acquire, rmw).clean());
        CHECK(run(Order::AcqRel, Order::AcqRel, rmw).clean());
        CHECK_FALSE(run(Order::Relaxed, Order::Acquire, rmw).clean());
        CHECK_FALSE(run(Order::Release, Order::Relaxed, rmw).clean());
        CHECK_FALSE(run(Order::Relaxed, Order::Relaxed, rmw).clean());
        CHECK_FALSE(run(Order::Acquire, Order::Acquire, rmw).clean());  // an acquire releases nothing
        // A release atomic and a relaxed read followed by an acquire fence synchronise too.
        CHECK(run(Order::Release, Order::Relaxed, rmw, true).clean());
    }
}

TEST_CASE("hbcheck model: a failed compare-exchange only reads: it synchronises only with what it read") {
    // It read a released value: its acquire fence orders the data.
    {
        Launch l(2, 1);
        l.write(l.item(0), kData, kWriteData);
        l.fence(l.item(0));
        l.rmw(l.item(0), kLock, kTake);
        l.load(l.item(1), kLock, kTake);  // fails: reads the value group 0 released
        l.fence(l.item(1));
        l.read(l.item(1), kData, kReadData);
        CHECK(l.clean());
    }
    // It read a value written with no release before it: nothing to acquire.
    {
        Launch l(2, 1);
        l.write(l.item(0), kData, kWriteData);
        l.rmw(l.item(0), kLock, kTake);
        l.load(l.item(1), kLock, kTake);
        l.fence(l.item(1));
        l.read(l.item(1), kData, kReadData);
        CHECK_FALSE(l.clean());
    }
    // It ran before the release: the acquire fence after it has nothing of it.
    {
        Launch l(2, 1);
        l.load(l.item(1), kLock, kTake);
        l.write(l.item(0), kData, kWriteData);
        l.fence(l.item(0));
        l.rmw(l.item(0), kLock, kTake);
        l.fence(l.item(1));
        l.read(l.item(1), kData, kReadData);
        CHECK_FALSE(l.clean());
    }
    // It writes nothing, so it releases nothing: group 0's write stays unordered for group 1, who
    // takes the word after it; the successful twin releases it.
    for (bool succeeds : {false, true}) {
        CAPTURE(succeeds);
        Launch l(2, 1);
        l.write(l.item(0), kData, kWriteData);
        l.fence(l.item(0));
        if (succeeds) l.rmw(l.item(0), kLock, kTake);
        else l.load(l.item(0), kLock, kTake);
        l.rmw(l.item(1), kLock, kTake);
        l.fence(l.item(1));
        l.read(l.item(1), kData, kReadData);
        CHECK(l.clean() == succeeds);
    }
}

TEST_CASE("hbcheck model: work-items of the same group are never reported, other groups are") {
    for (std::size_t other_group : {0, 1}) {
        CAPTURE(other_group);
        Launch l(2, 2);
        const auto a = l.item(0, 0), b = l.item(other_group, 1);
        l.write(a, kData, kWriteData);
        l.write(b, kData, kWriteData);
        l.read(a, kData + 16, kReadData);
        l.write(b, kData + 16, kWriteData);
        l.write(a, kData + 32, kWriteData);
        l.read(b, kData + 32, kReadData);
        CHECK(l.races.size() == (other_group == 0 ? 0u : 3u));  // Oclgrind checks a group's own
    }
}

TEST_CASE("hbcheck model: reads never race with reads, a write among them does") {
    for (bool one_writes : {false, true}) {
        CAPTURE(one_writes);
        Launch l(3, 1);
        l.read(l.item(0), kData, kReadData);
        l.read(l.item(1), kData, kReadData);
        if (one_writes) l.write(l.item(2), kData, kWriteData);
        l.read(l.item(2), kData, kReadData);
        CHECK(l.clean() == !one_writes);
    }
}

TEST_CASE("hbcheck model: a global barrier joins a group's clocks, so one work-item releases another's write") {
    for (bool with_barrier : {true, false}) {
        CAPTURE(with_barrier);
        Launch l(2, 2);
        const auto a = l.item(0, 0), b = l.item(0, 1), c = l.item(1, 0);
        l.write(a, kData, kWriteData);
        if (with_barrier) l.barrier(0);
        l.fence(b);
        l.rmw(b, kFlag, kRaise);
        l.rmw(c, kFlag, kPoll);
        l.fence(c);
        l.read(c, kData, kReadData);
        CHECK(l.clean() == with_barrier);
        if (!with_barrier) {
            CHECK(l.first().first.item == a);
            CHECK(l.first().second.item == c);
        }
    }
}

// A plain store to an atomic word ends its release sequence: an atomic that reads the plain value
// synchronises with nobody before it (a barrier counter reset with a plain store).
TEST_CASE("hbcheck model: a plain store to an atomic word ends what it released") {
    auto run = [](bool plain_reset) {
        Launch l(3, 1);
        const auto a = l.item(0), b = l.item(1), c = l.item(2);
        l.write(a, kData, kWriteData);
        l.fence(a);
        l.rmw(a, kCounter, kArrive);  // carries a's data
        l.rmw(b, kCounter, kArrive);  // b sees it ...
        if (plain_reset) l.write(b, kCounter, kCount);  // ... and resets the count plainly
        else l.rmw(b, kCounter, kCount);                // ... or with atomic_xchg
        l.rmw(c, kCounter, kArrive);  // c reads b's reset
        l.fence(c);
        l.read(c, kData, kReadData);
        return l;
    };
    CHECK(run(false).clean());  // the RMW continues a's release sequence
    const auto reset = run(true);
    REQUIRE_FALSE(reset.clean());
    CHECK(reset.first_plain().first.site == kWriteData);
    CHECK(reset.first_plain().second.site == kReadData);
    // The reset itself races with a's atomic (ordered only up to a's fence) and with c's.
    CHECK(reset.plain_atomic().size() == 2);
}

}  // TEST_SUITE

TEST_SUITE("unit") {

// The cause a race names, each beside its fixed twin (clean): the plugin words each cause.
TEST_CASE("hbcheck model: a race names what is missing: an atomic, an acquire on the way, a group barrier") {
    using hbcheck::Cause;
    // A lock freed by a plain store after its release fence: the store should be an atomic.
    for (bool atomic_free : {true, false}) {
        CAPTURE(atomic_free);
        Launch l(2, 1);
        const auto a = l.item(0), b = l.item(1);
        l.rmw(a, kLock, kTake);
        l.fence(a);
        l.write(a, kRecord, kWriteRecord);
        l.fence(a);
        if (atomic_free) l.rmw(a, kLock, kFree);
        else l.write(a, kLock, kFree);
        l.rmw(b, kLock, kTake);
        l.fence(b);
        l.read(b, kRecord, kReadRecord);
        CHECK(l.clean() == atomic_free);
        if (!atomic_free) {
            CHECK(l.first_plain().cause == Cause::PlainHandOver);
            CHECK(l.first_plain().site == kFree);
            REQUIRE(l.plain_atomic().size() == 1);  // b's take against the plain free
            CHECK(l.plain_atomic()[0].site == kFree);
            CHECK(l.plain_atomic()[0].other_site == kTake);
        }
    }
    // A flag set by a plain store and polled: the flag's own race.
    {
        Launch l(2, 1);
        l.write(l.item(0), kFlag, kRaise);
        l.poll(l.item(1), kFlag, kPoll);
        CHECK(l.first().cause == Cause::PlainFlag);
        CHECK(l.first().site == kRaise);
        CHECK(l.first().other_site == kPoll);
    }
    // A master that reads an arrival and releases the others without acquiring it between.
    for (bool acquire : {true, false}) {
        CAPTURE(acquire);
        Launch l(3, 1);
        const auto y = l.item(0), m = l.item(1), x = l.item(2);
        l.write(y, kData, kWriteData);
        l.fence(y);
        l.rmw(y, kArrived, kArrive);
        l.fence(m, Order::Release);  // its own release, before it waits
        l.rmw(m, kArrived, kPoll);
        if (acquire) l.fence(m);
        l.rmw(m, kGo, kRaise);
        l.rmw(x, kGo, kPollGen);
        l.fence(x);
        l.read(x, kData, kReadData);
        CHECK(l.clean() == acquire);
        if (!acquire) {
            CHECK(l.first().cause == Cause::UpstreamAcquire);
            CHECK(l.first().site == kPoll);
            CHECK(l.first().group == 1);
        }
    }
    // Another work-item of the master's group wrote the data, with no barrier before the
    // master's release; with the release fence missing instead, that fence is named.
    for (bool fenced : {true, false}) {
        CAPTURE(fenced);
        Launch l(2, 2);
        l.write(l.item(0, 1), kData, kWriteData);
        if (fenced) l.fence(l.item(0, 0));
        else l.barrier(0);
        l.rmw(l.item(0, 0), kFlag, kRaise);
        l.rmw(l.item(1, 0), kFlag, kPoll);
        l.fence(l.item(1, 0));
        l.read(l.item(1, 0), kData, kReadData);
        CHECK(l.first().cause == (fenced ? Cause::BarrierBeforeRelease : Cause::ReleaseMissing));
        CHECK(l.first().site == kRaise);
    }
}

}  // TEST_SUITE
