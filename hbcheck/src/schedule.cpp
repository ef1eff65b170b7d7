#include "hbcheck/schedule.hpp"

#include <algorithm>
#include <chrono>

namespace hbcheck {

namespace {

// A worker that ended a group while others wait to start keeps the turn for its next group (it is
// the only thread running, so the group it takes is the next by index: deterministic).
thread_local const Schedule *keeps_turn = nullptr;

std::uint64_t splitmix(std::uint64_t &s) {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// A turn that moves no instruction for this long was lost with its worker.
constexpr auto kLostTurn = std::chrono::seconds(10);

}  // namespace

void Schedule::begin(std::uint64_t seed, std::size_t groups, std::size_t workers,
                     std::size_t patience) {
    std::lock_guard<std::mutex> lock(mu_);
    on_ = seed != 0 && groups > 0;
    rng_ = seed;
    one_in_ = 4u << (splitmix(rng_) % 4);  // 4, 8, 16 or 32: fine and coarse interleavings
    patience_ = patience;
    groups_ = groups;
    first_ = std::min(groups, std::max<std::size_t>(workers, 1));
    begun_ = 0;
    running_ = kNone;
    epoch_ = 0;
    live_.assign(groups, false);
    stale_epoch_.assign(groups, kNever);
    stale_count_.assign(groups, 0);
    wait_site_.assign(groups, nullptr);
    wait_address_.assign(groups, 0);
    cvs_.clear();
    for (std::size_t h = 0; h < groups; ++h) cvs_.push_back(std::make_unique<std::condition_variable>());
    deadlocked_ = abandoned_ = false;
    found_ = {};
}

void Schedule::end() {
    std::lock_guard<std::mutex> lock(mu_);
    on_ = false;
    wake_all();
}

std::uint64_t Schedule::next_random() { return splitmix(rng_); }

// A random live group other than g: one that moved since the last write when `stale_only_ok` is
// false, else one that has not yet run out of patience. kNone when there is none.
std::size_t Schedule::pick(std::size_t g, bool stale_only_ok) {
    std::vector<std::size_t> can;
    for (std::size_t h = 0; h < groups_; ++h) {
        if (!live_[h] || h == g) continue;
        const bool stale = stale_epoch_[h] == epoch_;
        if (stale_only_ok ? stale_count_[h] <= patience_ : !stale) can.push_back(h);
    }
    return can.empty() ? kNone : can[next_random() % can.size()];
}

// A random live group other than g whose last vain poll read `address`; kNone when none.
std::size_t Schedule::waiter_on(std::size_t g, std::size_t address) {
    std::vector<std::size_t> can;
    for (std::size_t h = 0; h < groups_; ++h)
        if (live_[h] && h != g && wait_site_[h] && wait_address_[h] == address) can.push_back(h);
    return can.empty() ? kNone : can[next_random() % can.size()];
}

void Schedule::wait_turn(std::unique_lock<std::mutex> &lock, std::size_t g) {
    std::uint64_t seen = beats_.load(std::memory_order_relaxed);
    auto since = std::chrono::steady_clock::now();
    while (running_ != g && !deadlocked_ && !abandoned_ && on_) {
        cvs_[g]->wait_for(lock, std::chrono::milliseconds(100));
        const std::uint64_t now_beats = beats_.load(std::memory_order_relaxed);
        const auto now = std::chrono::steady_clock::now();
        if (now_beats != seen) {
            seen = now_beats;
            since = now;
        } else if (now - since > kLostTurn) {
            abandoned_ = true;
            wake_all();
        }
    }
    if (deadlocked_) throw found_;
}

void Schedule::hand_to(std::unique_lock<std::mutex> &lock, std::size_t g, std::size_t next) {
    running_ = next;
    wake(next);
    wait_turn(lock, g);
}

void Schedule::deadlock() {
    found_ = {};
    for (std::size_t h = 0; h < groups_; ++h)
        if (live_[h]) found_.waits.push_back({h, wait_site_[h]});
    found_.not_started = groups_ - begun_;
    deadlocked_ = true;
    wake_all();
    throw found_;
}

void Schedule::group_begin(std::size_t g) {
    if (!on_) return;
    std::unique_lock<std::mutex> lock(mu_);
    if (abandoned_) return;
    live_[g] = true;
    ++begun_;
    if (keeps_turn == this) {
        keeps_turn = nullptr;
        running_ = g;
        return;
    }
    if (begun_ == first_) {  // every worker has its first group: the seed picks who starts
        std::vector<std::size_t> can;
        for (std::size_t h = 0; h < groups_; ++h)
            if (live_[h]) can.push_back(h);
        running_ = can[next_random() % can.size()];
        wake(running_);
    }
    wait_turn(lock, g);
}

void Schedule::group_end(std::size_t g) {
    if (!on_) return;
    std::unique_lock<std::mutex> lock(mu_);
    live_[g] = false;
    if (deadlocked_ || abandoned_) return;
    if (begun_ < groups_) {
        keeps_turn = this;
        running_ = kNone;
        return;
    }
    std::vector<std::size_t> can;
    for (std::size_t h = 0; h < groups_; ++h)
        if (live_[h]) can.push_back(h);
    running_ = can.empty() ? kNone : can[next_random() % can.size()];
    wake(running_);
}

void Schedule::point(std::size_t g, Point p, const void *site, std::size_t address) {
    if (!on_) return;
    std::unique_lock<std::mutex> lock(mu_);
    if (abandoned_) return;
    if (deadlocked_) throw found_;
    if (p == Point::Write || p == Point::Release) ++epoch_;
    if (p != Point::StalePoll) {
        stale_epoch_[g] = kNever;
        stale_count_[g] = 0;
        if (p == Point::Write) return;
        if (next_random() % (p == Point::Release || p == Point::Atomic ? 2 : one_in_) != 0) return;
        std::size_t next = p == Point::Release ? waiter_on(g, address) : kNone;
        if (next == kNone) next = pick(g, false);
        if (next == kNone) next = pick(g, true);
        if (next != kNone) hand_to(lock, g, next);
        return;
    }
    // A poll that read what it read last time: g waits. A group that moved since the last write
    // goes next; when none did, the waiting groups take turns, kTurn polls each (so that a bounded
    // wait of the kernel's own counts on, without a hand-over a poll), until every one has polled
    // in vain `patience` times.
    ++stale_count_[g];
    stale_epoch_[g] = epoch_;
    wait_site_[g] = site;
    wait_address_[g] = address;
    std::size_t next = pick(g, false);
    if (next == kNone && stale_count_[g] % kTurn != 0 && stale_count_[g] <= patience_) return;
    for (std::size_t i = 1; next == kNone && i < groups_; ++i) {
        const std::size_t h = (g + i) % groups_;
        if (live_[h] && stale_count_[h] <= patience_) next = h;
    }
    if (next == kNone) {
        if (stale_count_[g] <= patience_) return;
        deadlock();
    }
    hand_to(lock, g, next);
}

}  // namespace hbcheck
