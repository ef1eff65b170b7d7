// hbcheck's model: a plain access against another group's atomic of the same word. Under OpenCL
// 1.2 and 2.0 the two race unless happens-before orders them; two atomics never race, and a
// volatile load (1.2's only atomic load, the polls of the labs) is not judged against atomics.
// Every bug beside its fixed twin.
#include <doctest/doctest.h>

#include "hbcheck_launch.hpp"

using namespace hbtest;
using hbcheck::Cause;

TEST_SUITE("unit") {

TEST_CASE("hbcheck model: a plain += against another group's atomic_add races, all atomic_add is clean") {
    const char kPlainAdd[] = "plain add";
    for (bool plain_first : {true, false}) {
        CAPTURE(plain_first);
        for (bool plain : {true, false}) {
            CAPTURE(plain);
            Launch l(3, 2);
            auto add = [&](std::size_t it) {
                if (plain && it == l.item(0)) {  // *total += v: a volatile load, then a store
                    l.vread(it, kCounter, kPlainAdd);
                    l.write(it, kCounter, kPlainAdd);
                } else {
                    l.rmw(it, kCounter, kCount);
                }
            };
            if (plain_first) add(l.item(0));
            for (std::size_t g = 1; g < 3; ++g) add(l.item(g));
            if (!plain_first) add(l.item(0));
            CHECK(l.clean() == !plain);
            if (!plain) continue;
            const auto found = l.plain_atomic();
            REQUIRE(found.size() == (plain_first ? 2u : 1u));  // the store, or each later atomic
            for (const auto &r : found) {
                CHECK(r.site == kPlainAdd);
                CHECK(r.other_site == kCount);
                CHECK(r.group == 0);
                CHECK((r.first.atomic != r.second.atomic));
            }
        }
    }
}

TEST_CASE("hbcheck model: a plain load of another group's atomic word races, a volatile one does not") {
    for (bool vol : {true, false}) {
        CAPTURE(vol);
        Launch l(2, 1);
        l.rmw(l.item(0), kCounter, kCount);
        if (vol) l.vread(l.item(1), kCounter, kReadData);
        else l.read(l.item(1), kCounter, kReadData);
        l.rmw(l.item(0), kCounter, kCount);  // a write after the read: the load was unordered
        CHECK(l.clean() == vol);
        if (!vol) {
            // The load against the add before it, and the add after it against the load (one
            // pair of places: the plugin tells it once).
            REQUIRE(l.plain_atomic().size() == 2);
            for (const auto &r : l.races) {
                CHECK(r.site == kReadData);
                CHECK_FALSE((r.first.atomic ? r.second : r.first).write);
            }
        }
    }
    // Atomics that only read (a failed compare-exchange) never race with a plain load, and a
    // plain store is judged against them.
    for (bool store : {false, true}) {
        CAPTURE(store);
        Launch l(2, 1);
        l.load(l.item(0), kLock, kTake);
        if (store) l.write(l.item(1), kLock, kFree);
        else l.read(l.item(1), kLock, kReadRecord);
        CHECK(l.clean() == !store);
    }
}

TEST_CASE("hbcheck model: a plain access ordered after the atomics by a fence and a flag is clean") {
    // Group 0 adds, then hands over with a release fence and a flag; group 1 acquires the flag and
    // then resets the counter plainly. With the add after the release fence, nothing orders it.
    for (bool add_before_fence : {true, false}) {
        CAPTURE(add_before_fence);
        Launch l(2, 1);
        const auto a = l.item(0), b = l.item(1);
        if (add_before_fence) l.rmw(a, kCounter, kCount);
        l.fence(a);
        if (!add_before_fence) l.rmw(a, kCounter, kCount);
        l.rmw(a, kFlag, kRaise);
        l.rmw(b, kFlag, kPoll);
        l.fence(b);
        l.write(b, kCounter, kFree);
        l.read(b, kCounter, kReadData);
        CHECK(l.clean() == add_before_fence);
        if (!add_before_fence) CHECK(l.first().cause == Cause::PlainAtomic);
    }
}

TEST_CASE("hbcheck model: a plain access and an atomic of the same group are left to Oclgrind") {
    for (std::size_t other_group : {0, 1}) {
        CAPTURE(other_group);
        Launch l(2, 2);
        l.rmw(l.item(0, 0), kCounter, kCount);
        l.write(l.item(other_group, 1), kCounter, kFree);
        CHECK(l.races.size() == (other_group == 0 ? 0u : 1u));
    }
}

}  // TEST_SUITE
