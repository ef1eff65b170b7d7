#include "hbcheck/model.hpp"

#include <algorithm>

namespace hbcheck {

void VectorClock::join(const VectorClock &o) {
    if (c.size() < o.c.size()) c.resize(o.c.size(), 0);
    for (std::size_t i = 0; i < o.c.size(); ++i) c[i] = std::max(c[i], o.c[i]);
}

Model::Model(std::size_t items, std::size_t per_group)
    : items_(items), group_reader_(items), group_writer_(items), group_release_(items),
      group_acquire_(items), group_plain_(items) {
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

// Whether `pending` holds what `now` has not acquired.
static bool lacks(const VectorClock &now, const VectorClock &pending) {
    for (std::size_t i = 0; i < pending.c.size(); ++i)
        if (pending.c[i] > (i < now.c.size() ? now.c[i] : 0)) return true;
    return false;
}

// What a release of `it` passes on unacquired: its last hand-over read since its last acquire
// (a fence after it acquires the earlier ones too), when they brought what it has not acquired;
// else the note it carries in.
Model::Note Model::passed_on(const Item &it) const {
    if (it.last_unacquired && lacks(it.now, it.pending)) return {it.last_unacquired, it.group};
    return it.note;
}

// Side `s` of a race is another work-item than the one of its group that released (acquired) in
// its epoch: no barrier with CLK_GLOBAL_MEM_FENCE came between them. Seen when the access came
// after that atomic, or, before it, from the group's stamp.
bool Model::barrier_missing(const Access &s, Race &r) const {
    const void *release = s.after_release ? s.after_release
                                          : group_release_[s.group].other(s.epoch, s.item);
    const void *acquire = s.after_acquire ? s.after_acquire
                                          : group_acquire_[s.group].other(s.epoch, s.item);
    if (!release && !acquire) return false;
    r.cause = release ? Cause::BarrierBeforeRelease : Cause::BarrierAfterAcquire;
    r.site = release ? release : acquire;
    r.group = s.group;
    return true;
}

// The cause, from what the model saw of the handing over; `a` released, `b` acquired (or should
// have). Runs on second's thread: of other groups' work-items only atomics are read.
void Model::diagnose(Race &r, const Item &a, const Item &b) const {
    const Access &f = r.first, &s = r.second;
    if ((f.write && !s.write && s.poll) || (s.write && !f.write && f.poll)) {
        r.cause = Cause::PlainFlag;
        r.site = (f.write ? f : s).site;
        r.other_site = (f.write ? s : f).site;
        r.group = (f.write ? f : s).group;
        return;
    }
    if (barrier_missing(f, r) || barrier_missing(s, r)) return;
    const PlainStore &p = group_plain_[s.group];
    if (p.site && !(p.item == f.item && p.time < f.time)) {
        r.cause = Cause::PlainHandOver;
        r.site = p.site;
        r.group = p.group;
        return;
    }
    // A read its own group passed on unacquired is told as such, whichever member races.
    const Note &n = items_[s.item].note.site ? items_[s.item].note : b.note;
    const bool passed = n.site == r.acquire_atomic && n.group == s.group;
    if (r.only_acquire_missing && r.acquire_atomic && !passed) {
        r.cause = Cause::AcquireMissing;
        r.site = r.acquire_atomic;
        r.group = b.group;
        return;
    }
    if (n.site) {
        r.cause = Cause::UpstreamAcquire;
        r.site = n.site;
        r.group = n.group;
        return;
    }
    // The release fence is missing only where the work-item that released made none after the
    // access (or, another work-item, none in the epoch of its atomic).
    const bool own = &a == &items_[f.item];
    const bool release_there = own ? a.released_at.load() >= f.time : a.write_released.load();
    if (r.release_atomic && r.acquired && !release_there) {
        r.cause = Cause::ReleaseMissing;
        r.site = r.release_atomic;
        r.group = a.group;
    } else if (r.released || (r.release_atomic && release_there)) {
        r.cause = Cause::NotCarried;
    } else if (r.release_atomic && r.acquire_atomic) {
        r.cause = Cause::BothMissing;
    } else {
        r.cause = Cause::NoHandOver;
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
    diagnose(r, *a, *b);
    return r;
}

// A relaxed read of `word`: its release sequence waits in `pending` for an acquire fence, or is
// taken at once (`now`) by an acquire atomic. It carries in the word's note, and the plain store
// that wrote it last (or, read from a release sequence, none). True for a hand-over: another
// group wrote it last, or its release sequence brought what `it` had not acquired (a group's own
// RMW continues the others' sequences: a poll of the word it wrote last still reads them).
bool Model::acquire_from(Item &it, std::size_t word, bool now) {
    std::lock_guard<std::mutex> lock(atomics_mu_);
    auto f = atomics_.find(word);
    if (f == atomics_.end()) return false;
    const Word &w = f->second;
    const bool brings = lacks(it.now, w.seq);
    it.pending.join(w.seq);
    if (now) it.now.join(w.seq);
    if (w.note.site) it.note = w.note;
    if (w.plain.site && w.plain.group != it.group) group_plain_[it.group] = w.plain;
    else if (!w.seq.empty()) group_plain_[it.group] = {};
    return w.writer_group != it.group || brings;
}

// Whether `a`'s work-item has not seen the access of work-item `other` at time `t`, another
// group's: the two are unordered.
static bool unordered(const VectorClock &now, const Access &a, std::size_t other,
                      std::size_t other_group, Clock t) {
    return other != a.item && other_group != a.group && !now.covers(other, t);
}

// A plain access and an atomic of another group on one word that nothing orders: a data race
// under OpenCL 1.2's and 2.0's memory model. The plain one is what to fix.
Race Model::plain_atomic(const Access &first, const Access &second, std::size_t address) {
    Race r;
    r.address = address;
    r.first = first;
    r.second = second;
    const Access &plain = first.atomic ? second : first;
    r.cause = Cause::PlainAtomic;
    r.site = plain.site;
    r.other_site = (first.atomic ? first : second).site;
    r.group = plain.group;
    return r;
}

// Plain access `a` against the atomics on `words` since their last plain store: a write against
// any, a (non-volatile) read against their writes.
std::optional<Race> Model::against_atomics(const Access &a, const std::vector<std::size_t> &words) {
    if (words.empty()) return std::nullopt;  // most accesses: no lock taken
    const VectorClock &now = items_[a.item].now;
    std::lock_guard<std::mutex> lock(atomics_mu_);
    for (std::size_t w : words) {
        const auto f = atomic_uses_.find(w);
        if (f == atomic_uses_.end()) continue;
        for (const Access &u : f->second)
            if ((a.write || u.write) && unordered(now, a, u.item, u.group, u.time))
                return plain_atomic(u, a, w);
    }
    return std::nullopt;
}

// Atomic `a` against the plain accesses of its word: the last plain store, and, when it writes,
// the non-volatile plain loads since. Marks the bytes as the atomic's.
std::optional<Race> Model::against_plain(const Access &a, std::size_t address) {
    const VectorClock &now = items_[a.item].now;
    std::optional<Race> found;
    for (std::size_t b = address; b < address + 4; ++b) {
        Shard &s = shard(b);
        std::lock_guard<std::mutex> lock(s.mu);
        Byte &x = s.bytes[b];
        if (!found && x.written && unordered(now, a, x.w.item, x.w.group, x.w.time))
            found = plain_atomic(x.w, a, b);
        if (a.write)
            for (const Read &r : x.reads)
                if (!found && !r.vol && unordered(now, a, r.item, r.group, r.time))
                    found = plain_atomic({r.item, r.group, r.time, r.site, false, r.epoch, r.poll,
                                          r.after_release, r.after_acquire},
                                         a, b);
        x.atomic_use = true;
        if (a.write) x.atomic_last = x.ever_atomic = true;
    }
    return found;
}

// One read and one write kept per work-item: a later one of its own implies the earlier.
void Model::record_use(const Access &a, std::size_t address) {
    std::lock_guard<std::mutex> lock(atomics_mu_);
    auto &uses = atomic_uses_[address];
    std::erase_if(uses, [&](const Access &u) { return u.item == a.item && u.write == a.write; });
    uses.push_back(a);
}

std::optional<Race> Model::access(std::size_t item, std::size_t group, std::size_t address,
                                  std::size_t size, bool write, const void *site, bool poll,
                                  bool vol) {
    Item &me = items_[item];
    const Access a{item,
                   group,
                   me.now.c[item],
                   site,
                   write,
                   me.epoch,
                   poll && !write,
                   group_release_[group].other(me.epoch, item),
                   group_acquire_[group].other(me.epoch, item)};
    const bool judged_read = !write && !vol;  // a volatile load is never judged against atomics
    std::optional<Race> found;
    std::vector<std::size_t> atomic_words;  // read after the shard lock is released
    std::vector<std::size_t> reset_words;   // a plain store ends their release sequences
    std::vector<std::size_t> used_words;    // atomics used them: judged against those
    PlainStore polled;                      // another group's plain store this poll raced with
    for (std::size_t b = address; b < address + size; ++b) {
        Shard &s = shard(b);
        std::lock_guard<std::mutex> lock(s.mu);
        Byte &x = s.bytes[b];
        if (x.atomic_use && (write || judged_read)) used_words.push_back(b & ~std::size_t(3));
        if (!write && x.atomic_last) {  // reads like a relaxed atomic read
            atomic_words.push_back(b & ~std::size_t(3));
            if (vol) continue;  // 1.2's atomic load (a poll): never judged
        } else if (x.written && unordered(me.now, a, x.w.item, x.w.group, x.w.time)) {
            if (!found) found = race(x.w, a, b);
            if (a.poll) polled = {x.w.site, x.w.item, x.w.group, x.w.time};
        }
        if (write) {
            for (const Read &r : x.reads)
                if (unordered(me.now, a, r.item, r.group, r.time) && !found)
                    found = race({r.item, r.group, r.time, r.site, false, r.epoch, r.poll,
                                  r.after_release, r.after_acquire},
                                 a, b);
            if (x.atomic_last || x.ever_atomic) reset_words.push_back(b & ~std::size_t(3));
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
        x.reads.push_back({item, group, a.time, site, a.epoch, a.poll, a.after_release,
                           a.after_acquire, vol});
    }
    std::sort(used_words.begin(), used_words.end());
    used_words.erase(std::unique(used_words.begin(), used_words.end()), used_words.end());
    // A conflict with an atomic comes first: its fix (an atomic) is the one that holds.
    if (auto r = against_atomics(a, used_words)) found = r;
    if (polled.site) group_plain_[group] = polled;
    if (write && !(reset_words.empty() && used_words.empty())) {
        std::lock_guard<std::mutex> lock(atomics_mu_);
        for (std::size_t w : reset_words) {
            Word &word = atomics_[w];
            word.seq = VectorClock{};
            word.note = {};
            word.plain = {site, item, group, a.time};
            word.writer_group = group;
        }
        // Judged against this store: what comes after it is judged against the store.
        for (std::size_t w : used_words) atomic_uses_.erase(w);
    }
    std::sort(atomic_words.begin(), atomic_words.end());
    atomic_words.erase(std::unique(atomic_words.begin(), atomic_words.end()), atomic_words.end());
    bool handed = false;
    for (std::size_t w : atomic_words) handed |= acquire_from(me, w, false);
    if (handed) {
        me.last_unacquired = site;
        me.last_atomic_read = site;
        me.acquired = false;
        group_reader_[group] = item;
    }
    return found;
}

std::optional<Race> Model::atomic(std::size_t item, std::size_t address, bool reads, bool writes,
                                  Order order, const void *site) {
    Item &me = items_[item];
    Access a;
    a.item = item;
    a.group = me.group;
    a.time = me.now.c[item];
    a.site = site;
    a.write = writes;
    a.epoch = me.epoch;
    a.atomic = true;
    // What a write passes on is what came before this atomic: an RMW's own read continues the
    // release sequence it reads, acquired or not.
    const Note note = writes ? passed_on(me) : Note{};
    if (reads) {
        if (acquire_from(me, address, acquires(order))) {
            me.last_unacquired = acquires(order) ? nullptr : site;
            me.last_atomic_read = site;
            me.acquired = acquires(order);
            if (acquires(order)) group_acquire_[me.group].set(me.epoch, item, site);
            group_reader_[me.group] = item;
        }
    }
    if (writes) {
        const bool released =
            releases(order) || (me.released_at.load() && me.release_epoch == me.epoch);
        const VectorClock &mine = releases(order) ? me.now : me.released;
        {
            std::lock_guard<std::mutex> lock(atomics_mu_);
            Word &w = atomics_[address];
            if (!reads) {  // a plain atomic store starts a new sequence
                w.seq = VectorClock{};
                w.note = {};
            }
            w.seq.join(mine);
            w.plain = {};
            w.writer_group = me.group;
            if (released && note.site) w.note = note;
        }
        me.last_atomic_write = site;
        me.last_atomic_write_time = me.now.c[item];
        me.write_released = released;
        // The group's first release of the epoch: what its other work-items hand over by.
        Stamp &st = group_release_[me.group];
        if (released && st.epoch_item.load() >> 32 != me.epoch) st.set(me.epoch, item, site);
        group_writer_[me.group] = item;
    }
    // Judged after what it acquired: an acquire read is ordered after what it read released.
    auto found = against_plain(a, address);
    record_use(a, address);
    tick(item);
    return found;
}

void Model::fence(std::size_t item, Order order) {
    Item &me = items_[item];
    if (acquires(order)) {
        me.now.join(me.pending);
        if (const void *read = me.last_atomic_read.load(); read && !me.acquired)
            group_acquire_[me.group].set(me.epoch, item, read);
        me.acquired = true;
        me.last_unacquired = nullptr;
    }
    if (releases(order)) {
        me.released = me.now;
        me.released_at = me.now.c[item];
        me.release_epoch = me.epoch;
    }
    tick(item);
}

// The group's work-items share their clocks, a new epoch, and what any of them passes on
// unacquired (a member's own unacquired read before a note carried in).
void Model::barrier(const std::vector<std::size_t> &items) {
    VectorClock all;
    Note note;
    for (std::size_t i : items) {
        all.join(items_[i].now);
        const Note n = passed_on(items_[i]);
        if (n.site && (!note.site || n.site != items_[i].note.site)) note = n;
    }
    for (std::size_t i : items) {
        items_[i].now = all;
        items_[i].note = note;
        ++items_[i].epoch;
        tick(i);
    }
}

}  // namespace hbcheck
