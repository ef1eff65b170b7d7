// hbcheck's schedule alone, without Oclgrind: threads that play work-groups, as Oclgrind's workers
// do, call it at their points. One seed must give one order of events whatever the threads' own
// timing (each thread here sleeps a random while before each step); every group waiting in vain
// is a deadlock, thrown in every group; a group that moves is never one.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "hbcheck/schedule.hpp"

using hbcheck::Schedule;
using P = Schedule::Point;

namespace {

// Three groups on three workers, each making `steps` points of every kind but a vain poll; the
// order in which they made them, as a string of group numbers.
std::string interleaving(std::uint64_t seed, unsigned jitter_seed) {
    constexpr std::size_t kGroups = 3;
    constexpr int steps = 40;
    Schedule s;
    s.begin(seed, kGroups, kGroups);
    std::mutex mu;
    std::string order;
    std::vector<std::thread> workers;
    for (std::size_t g = 0; g < kGroups; ++g)
        workers.emplace_back([&, g] {
            std::mt19937 jitter(jitter_seed * 7 + static_cast<unsigned>(g));
            s.group_begin(g);
            for (int i = 0; i < steps; ++i) {
                std::this_thread::sleep_for(std::chrono::microseconds(jitter() % 50));
                {
                    std::lock_guard<std::mutex> lock(mu);
                    order += static_cast<char>('0' + g);
                }
                s.beat();
                const P kinds[] = {P::Release, P::Atomic, P::Write, P::Other};
                s.point(g, kinds[i % 4], nullptr, 0);
            }
            s.group_end(g);
        });
    for (auto &w : workers) w.join();
    s.end();
    return order;
}

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("hbcheck's schedule: one seed, one interleaving, whatever the threads' timing") {
    const std::string a = interleaving(5, 1), b = interleaving(5, 2), c = interleaving(5, 3);
    CHECK(a.size() == 120);
    CHECK(a == b);
    CHECK(a == c);
    // It does switch: not one group after another.
    CHECK(a != std::string(40, a[0]) + a.substr(40));
    std::size_t runs = 1;
    for (std::size_t i = 1; i < a.size(); ++i) runs += a[i] != a[i - 1];
    CHECK(runs > 10);
    // Other seeds, other interleavings (at least one of three differs).
    const std::string d = interleaving(6, 1), e = interleaving(7, 1), f = interleaving(8, 1);
    CHECK((d != a || e != a || f != a));
    // Seed 0: off, every call returns at once.
    Schedule off;
    off.begin(0, 2, 2);
    CHECK_FALSE(off.on());
    off.group_begin(0);
    off.point(0, P::StalePoll, nullptr, 0);
    off.end();
}

TEST_CASE("hbcheck's schedule: groups that all poll in vain are a deadlock, thrown in each, and one that moves is not") {
    constexpr std::size_t kGroups = 3;
    const char site[] = "poll";
    // Groups 1 and 2 poll a word no one writes; group 0 too (deadlock), or group 0 writes it once
    // after some polls of its own (none).
    for (bool writer : {false, true}) {
        CAPTURE(writer);
        Schedule s;
        s.begin(9, kGroups, kGroups, 64);
        std::mutex mu;
        int thrown = 0, finished = 0;
        std::atomic<bool> written{false};
        std::size_t waits = 0;
        std::vector<std::thread> workers;
        for (std::size_t g = 0; g < kGroups; ++g)
            workers.emplace_back([&, g] {
                try {
                    s.group_begin(g);
                    for (int i = 0; i < 10000; ++i) {
                        s.beat();
                        if (writer && g == 0 && i == 20) {  // the write, then the writer leaves
                            written = true;
                            s.point(g, P::Release, nullptr, 1);
                            break;
                        }
                        if (written) break;  // a poller that reads the word written
                        s.point(g, P::StalePoll, site, 1);
                    }
                    s.group_end(g);
                    std::lock_guard<std::mutex> lock(mu);
                    ++finished;
                } catch (const hbcheck::Deadlock &d) {
                    std::lock_guard<std::mutex> lock(mu);
                    ++thrown;
                    waits = d.waits.size();
                    for (const auto &w : d.waits) CHECK(w.second == site);
                }
            });
        for (auto &w : workers) w.join();
        s.end();
        if (writer) {
            CHECK(thrown == 0);
            CHECK(finished == 3);
        } else {
            CHECK(thrown == 3);
            CHECK(waits == 3);
        }
    }
}

}  // TEST_SUITE
