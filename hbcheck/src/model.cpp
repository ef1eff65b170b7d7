#include "hbcheck/model.hpp"

#include <algorithm>

namespace hbcheck {

void VectorClock::join(const VectorClock &o) {
    if (c.size() < o.c.size()) c.resize(o.c.size(), 0);
    for (std::size_t i = 0; i < o.c.size(); ++i) c[i] = std::max(c[i], o.c[i]);
}

Model::Model(std::size_t items, std::size_t per_group)
    : items_(items), group_reader_(items), group_writer_(items) {
    for (std::size_t i = 0; i < items; ++i) items_[i].group = i / (per_group ? per_group : 1);
    for (std::size_t g = 0; g < items; ++g) {
        group_reader_[g] = kNone;
        group_writer_[g] = kNone;
    }
    for (std::size_t i = 0; i < items; ++i) {
        items_[i].now.c.assign(items, 0);
        items_[i].now.c[i] = 1;  // time 0 is "never"
    }
}

Race Model::race(const Access &first, const Access &second, std::size_t address) const {
    Race r;
    r.address = address;
    r.first = first;
    r.second = second;
    // The work-items that handed over: the racing ones, or else the last of their groups to
    // write (first) and read (second) an atomic. `b` runs on this thread, as second's group does.
    const Item *a = &items_[first.item], *b = &items_[second.item];
    if (a->last_atomic_write_time.load() < first.time || !a->last_atomic_write.load()) {
        const std::size_t w = group_writer_[first.group].load();
        if (w != kNone) a = &items_[w];
    }
    if (!b->last_atomic_read.load()) {
        const std::size_t rd = group_reader_[second.group].load();
        if (rd != kNone) b = &items_[rd];
    }
    r.release_atomic = a->last_atomic_write.load();
    r.acquire_atomic = b->last_atomic_read.load();
    r.only_acquire_missing = b->pending.covers(first.item, first.time);
    r.released = a == &items_[first.item] && a->released_at.load() >= first.time;
    r.acquired = b->acquired.load();
    return r;
}

// A relaxed read of `word`: its release sequence waits in `pending` for an acquire fence, or is
// taken at once (`now`) by an acquire atomic.
void Model::acquire_from(Item &it, std::size_t word, bool now) {
    std::lock_guard<std::mutex> lock(atomics_mu_);
    auto f = atomics_.find(word);
    if (f == atomics_.end()) return;
    it.pending.join(f->second);
    if (now) it.now.join(f->second);
}

std::optional<Race> Model::access(std::size_t item, std::size_t group, std::size_t address,
                                  std::size_t size, bool write, const void *site) {
    Item &me = items_[item];
    const Access a{item, group, me.now.c[item], site, write};
    std::optional<Race> found;
    std::vector<std::size_t> atomic_words;  // read after the shard lock is released
    std::vector<std::size_t> reset_words;   // a plain store ends their release sequences
    auto conflicts = [&](std::size_t other, std::size_t other_group, Clock t) {
        return other != item && other_group != group && !me.now.covers(other, t);
    };
    for (std::size_t b = address; b < address + size; ++b) {
        Shard &s = shard(b);
        std::lock_guard<std::mutex> lock(s.mu);
        Byte &x = s.bytes[b];
        if (!write && x.atomic_last) {  // a poll: a relaxed atomic read, never judged
            atomic_words.push_back(b & ~std::size_t(3));
            continue;
        }
        if (x.written && conflicts(x.w.item, x.w.group, x.w.time) && !found)
            found = race(x.w, a, b);
        if (write) {
            for (const Read &r : x.reads)
                if (conflicts(r.item, r.group, r.time) && !found)
                    found = race({r.item, r.group, r.time, r.site, false}, a, b);
            if (x.atomic_last) reset_words.push_back(b & ~std::size_t(3));
            x.written = true;
            x.atomic_last = false;
            x.w = a;
            x.reads.clear();
            continue;
        }
        // Reads this one follows are implied by it; one entry per work-item.
        std::erase_if(x.reads, [&](const Read &r) {
            return r.item == item || me.now.covers(r.item, r.time);
        });
        x.reads.push_back({item, group, a.time, site});
    }
    if (!reset_words.empty()) {
        std::lock_guard<std::mutex> lock(atomics_mu_);
        for (std::size_t w : reset_words) atomics_.erase(w);
    }
    std::sort(atomic_words.begin(), atomic_words.end());
    atomic_words.erase(std::unique(atomic_words.begin(), atomic_words.end()), atomic_words.end());
    for (std::size_t w : atomic_words) acquire_from(me, w, false);
    if (!atomic_words.empty()) {
        me.last_atomic_read = site;
        me.acquired = false;
        group_reader_[group] = item;
    }
    return found;
}

void Model::atomic(std::size_t item, std::size_t address, bool reads, bool writes, Order order,
                   const void *site) {
    Item &me = items_[item];
    if (reads) {
        acquire_from(me, address, acquires(order));
        me.last_atomic_read = site;
        me.acquired = acquires(order);
        group_reader_[me.group] = item;
    }
    if (writes) {
        const VectorClock &mine = releases(order) ? me.now : me.released;
        {
            std::lock_guard<std::mutex> lock(atomics_mu_);
            VectorClock &seq = atomics_[address];
            if (!reads) seq = VectorClock{};  // a plain atomic store starts a new sequence
            seq.join(mine);
        }
        me.last_atomic_write = site;
        me.last_atomic_write_time = me.now.c[item];
        group_writer_[me.group] = item;
        for (std::size_t b = address; b < address + 4; ++b) {
            Shard &s = shard(b);
            std::lock_guard<std::mutex> lock(s.mu);
            s.bytes[b].atomic_last = true;
        }
    }
    tick(item);
}

void Model::fence(std::size_t item, Order order) {
    Item &me = items_[item];
    if (acquires(order)) {
        me.now.join(me.pending);
        me.acquired = true;
    }
    if (releases(order)) {
        me.released = me.now;
        me.released_at = me.now.c[item];
    }
    tick(item);
}

void Model::barrier(const std::vector<std::size_t> &items) {
    VectorClock all;
    for (std::size_t i : items) all.join(items_[i].now);
    for (std::size_t i : items) {
        items_[i].now = all;
        tick(i);
    }
}

}  // namespace hbcheck
