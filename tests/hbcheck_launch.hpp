// hbcheck's model driven by direct calls, as the plugin makes them: made-up sites and addresses,
// and a launch that keeps the races its calls return. For the model's tests.
#pragma once
#include <doctest/doctest.h>

#include <memory>
#include <optional>
#include <vector>

#include "hbcheck/model.hpp"

namespace hbtest {

using hbcheck::Order;

// Made-up sites: what a report names as its accesses and its atomics.
inline const char kWriteData[] = "write data", kReadData[] = "read data",
                  kRaise[] = "raise flag", kPoll[] = "poll flag", kTake[] = "take lock",
                  kFree[] = "free lock", kReadRecord[] = "read record",
                  kWriteRecord[] = "write record", kArrive[] = "arrive",
                  kBump[] = "bump generation", kPollGen[] = "poll generation",
                  kSum[] = "partial sum", kWritePartial[] = "write partial", kCount[] = "count";

// Addresses: each word on a 16-byte line of its own.
inline constexpr std::size_t kData = 0x1000, kFlag = 0x2000, kLock = 0x3000,
                             kRecord = 0x4000, kCounter = 0x5000, kGeneration = 0x5010,
                             kArrived = 0x6000, kGo = 0x7000, kPartial = 0x8000, kSlice = 0x9000;

// A launch of `groups` work-groups of `per` work-items, with the calls the plugin makes.
struct Launch {
    std::unique_ptr<hbcheck::Model> m;  // a Model does not move; a Launch does
    std::size_t per;
    std::vector<hbcheck::Race> races;

    Launch(std::size_t groups, std::size_t per_group)
        : m(std::make_unique<hbcheck::Model>(groups * per_group, per_group)), per(per_group) {}
    std::size_t item(std::size_t group, std::size_t local = 0) const { return group * per + local; }

    // Plain 4-byte accesses (a store, volatile or not, is judged the same).
    void write(std::size_t it, std::size_t address, const void *site) {
        keep(m->access(it, it / per, address, 4, true, site));
    }
    void read(std::size_t it, std::size_t address, const void *site) {
        keep(m->access(it, it / per, address, 4, false, site));
    }
    // A volatile load: OpenCL 1.2's atomic load, never judged against atomics.
    void vread(std::size_t it, std::size_t address, const void *site) {
        keep(m->access(it, it / per, address, 4, false, site, false, true));
    }
    // A volatile load that decides a loop around it (a flag waited for).
    void poll(std::size_t it, std::size_t address, const void *site) {
        keep(m->access(it, it / per, address, 4, false, site, true, true));
    }
    // 1.2's atomic_xchg, atomic_inc, atomic_or(p, 0), a successful atomic_cmpxchg: read and write.
    void rmw(std::size_t it, std::size_t address, const void *site, Order o = Order::Relaxed) {
        keep(m->atomic(it, address, true, true, o, site));
    }
    // A failed compare-exchange or a 2.0 atomic load: reads only.
    void load(std::size_t it, std::size_t address, const void *site, Order o = Order::Relaxed) {
        keep(m->atomic(it, address, true, false, o, site));
    }
    // A 2.0 atomic store: writes only.
    void store(std::size_t it, std::size_t address, const void *site, Order o = Order::Relaxed) {
        keep(m->atomic(it, address, false, true, o, site));
    }
    // mem_fence(CLK_GLOBAL_MEM_FENCE) is acq_rel; read_mem_fence acquires, write_mem_fence releases.
    void fence(std::size_t it, Order o = Order::AcqRel) { m->fence(it, o); }
    void barrier(std::size_t group) {
        std::vector<std::size_t> items;
        for (std::size_t l = 0; l < per; ++l) items.push_back(item(group, l));
        m->barrier(items);
    }

    bool clean() const { return races.empty(); }
    const hbcheck::Race &first() const {
        REQUIRE_FALSE(races.empty());
        return races.front();
    }
    // The first race between plain accesses (atomics aside).
    const hbcheck::Race &first_plain() const {
        for (const auto &r : races)
            if (!r.first.atomic && !r.second.atomic) return r;
        FAIL("no race between plain accesses");
        return races.front();
    }
    // The races of a plain access against an atomic.
    std::vector<hbcheck::Race> plain_atomic() const {
        std::vector<hbcheck::Race> out;
        for (const auto &r : races)
            if (r.cause == hbcheck::Cause::PlainAtomic) out.push_back(r);
        return out;
    }

private:
    void keep(const std::optional<hbcheck::Race> &r) {
        if (r) races.push_back(*r);
    }
};

}  // namespace hbtest
