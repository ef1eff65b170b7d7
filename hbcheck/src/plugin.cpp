// The Oclgrind side of hbcheck: turns Oclgrind's callbacks into the model's events and the
// model's races into Oclgrind reports (which the labs parse like Oclgrind's own).
#include <oclgrind/Context.h>
#include <oclgrind/Kernel.h>
#include <oclgrind/KernelInvocation.h>
#include <oclgrind/Memory.h>
#include <oclgrind/Plugin.h>
#include <oclgrind/WorkGroup.h>
#include <oclgrind/WorkItem.h>

#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>

#include "hbcheck/model.hpp"
#include "hbcheck/schedule.hpp"
#include "ir.hpp"
#include "synclab/environment.hpp"

using namespace oclgrind;

namespace {

constexpr unsigned kGlobalFence = 0x2;  // CLK_GLOBAL_MEM_FENCE
// A dense clock per work-item: items^2 clocks. Race checks use tens to hundreds of work-items.
constexpr std::size_t kMaxItems = 4096;

// OpenCL C 2.0's memory_order and memory_scope as clang numbers them.
hbcheck::Order order_of(uint64_t memory_order) {
    switch (memory_order) {
    case 0: return hbcheck::Order::Relaxed;
    case 2: return hbcheck::Order::Acquire;
    case 3: return hbcheck::Order::Release;
    default: return hbcheck::Order::AcqRel;  // consume (1) is acquire, seq_cst (5) both
    }
}

class HbCheck : public Plugin {
public:
    explicit HbCheck(const Context *context) : Plugin(context) {}

    bool isThreadSafe() const override { return true; }

    void kernelBegin(const KernelInvocation *inv) override {
        inv_ = inv;
        const Size3 g = inv->getGlobalSize(), l = inv->getLocalSize(), n = inv->getNumGroups();
        local_ = l;
        groups_ = n;
        const std::size_t items = g.x * g.y * g.z;
        reported_.clear();
        polls_.clear();  // another program's instructions may sit at the same addresses
        last_polls_.clear();
        polled_.clear();
        begin_schedule(n);
        if (!announced_) {  // the sign a log reader looks for (synclab::hbcheck_ran)
            announced_ = true;
            Context::Message msg(INFO, m_context);
            msg << "hbcheck: on: accesses of different work-groups are judged by OpenCL's memory "
                   "model";
            msg.send();
        }
        if (items > kMaxItems) {
            model_.reset();
            Context::Message msg(WARNING, m_context);
            msg << "hbcheck: kernel not checked for unordered accesses between work-groups: "
                << items << " work-items, more than " << kMaxItems << std::endl
                << msg.INDENT << "Kernel: " << msg.CURRENT_KERNEL << std::endl;
            msg.send();
            return;
        }
        model_ = std::make_unique<hbcheck::Model>(items, l.x * l.y * l.z);
        members_.assign(n.x * n.y * n.z, {});
    }

    void kernelEnd(const KernelInvocation *) override {
        end_schedule();
        release();
        order_ = false;  // a worker that stopped on an error (Oclgrind's exception) held it
        if (model_ && unordered_) {
            Context::Message msg(WARNING, m_context);
            msg << "hbcheck: " << unordered_.load() << " accesses waited 10 s for their turn and "
                << "went on unordered: findings of this kernel may be off" << std::endl
                << msg.INDENT << "Kernel: " << msg.CURRENT_KERNEL << std::endl;
            msg.send();
        }
        unordered_ = 0;
        model_.reset();
        inv_ = nullptr;
    }

    void workGroupBegin(const WorkGroup *wg) override {
        try {
            schedule_.group_begin(index_of(wg->getGroupID()));
        } catch (const hbcheck::Deadlock &d) {
            stop(d);
        }
    }
    void workGroupComplete(const WorkGroup *wg) override {
        schedule_.group_end(index_of(wg->getGroupID()));
    }

    void workItemBegin(const WorkItem *wi) override {
        if (model_) members_[group_of(wi)].push_back(item_of(wi));
    }
    void workItemComplete(const WorkItem *) override { release(); }

    void memoryLoad(const Memory *m, const WorkItem *wi, size_t address, size_t size) override {
        touched(m, wi, address, size, nullptr, false);
        plain(m, wi, address, size, false);
    }
    void memoryStore(const Memory *m, const WorkItem *wi, size_t address, size_t size,
                     const uint8_t *data) override {
        touched(m, wi, address, size, data, false);
        plain(m, wi, address, size, true);
    }
    void memoryAtomicLoad(const Memory *m, const WorkItem *wi, AtomicOp, size_t address,
                          size_t size) override {
        touched(m, wi, address, size, nullptr, true);
        atomic_notice(m, wi, address, false);
    }
    void memoryAtomicStore(const Memory *m, const WorkItem *wi, AtomicOp, size_t address,
                           size_t size) override {
        touched(m, wi, address, size, nullptr, true);
        atomic_notice(m, wi, address, true);
    }

    void instructionExecuted(const WorkItem *wi, const llvm::Instruction *inst,
                             const TypedValue &result) override {
        schedule_.beat();
        bool fenced = false;
        if (model_) {
            if (pending_.active) {  // the atomic this call made, now complete, in its true order
                const auto race = model_->atomic(item_of(wi), pending_.address, pending_.reads,
                                                 pending_.writes, hbcheck::Order::Relaxed, inst);
                pending_ = {};
                if (race) report(*race);
            }
            release();
        }
        if (auto *call = llvm::dyn_cast<llvm::CallInst>(inst)) fenced = fence(wi, call);
        if (schedule_.on()) at_point(wi, inst, result, fenced);
        touch_ = {};
    }

    void workGroupBarrier(const WorkGroup *wg, uint32_t flags) override {
        if (!model_ || !(flags & kGlobalFence)) return;
        const Size3 g = wg->getGroupID();
        model_->barrier(members_[g.x + groups_.x * (g.y + groups_.y * g.z)]);
    }

private:
    struct Pending {
        bool active = false, reads = false, writes = false;
        size_t address = 0;
    };
    static thread_local Pending pending_;
    static thread_local bool held_;

    // Every global access holds one lock from Oclgrind's notice until the instruction is done,
    // so the model sees atomics and the loads that poll them in the order they took effect
    // (Oclgrind tells a plugin of an atomic before it takes the atomic's own lock). The wait is
    // bounded: past it the access goes on unlocked and its order may be off.
    void hold() {
        if (held_) return;
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        for (bool free = false; !order_.compare_exchange_weak(free, true); free = false) {
            if (std::chrono::steady_clock::now() > give_up) {
                ++unordered_;
                return;
            }
            std::this_thread::yield();
        }
        held_ = true;
    }
    void release() {
        if (!held_) return;
        held_ = false;
        order_ = false;
    }

    // Not WorkGroup::getGroupIndex(): Oclgrind 21.10 computes it as x + y + z*nx*ny, which is
    // not one index per group in 2D and 3D.
    std::size_t group_of(const WorkItem *wi) const {
        const Size3 g = wi->getWorkGroup()->getGroupID();
        return g.x + groups_.x * (g.y + groups_.y * g.z);
    }
    std::size_t item_of(const WorkItem *wi) const {
        const Size3 l = wi->getLocalID();
        return group_of(wi) * (local_.x * local_.y * local_.z) + l.x + local_.x * (l.y + local_.y * l.z);
    }

    // Oclgrind tells of an RMW's load, then its store (a failed compare-exchange: the load
    // alone); the model gets the whole atomic once the call is done (instructionExecuted).
    void atomic_notice(const Memory *m, const WorkItem *wi, size_t address, bool store) {
        if (!model_ || m->getAddressSpace() != AddrSpaceGlobal || !wi) return;
        hold();
        pending_.active = true;
        pending_.address = address;
        (store ? pending_.writes : pending_.reads) = true;
    }

    void plain(const Memory *m, const WorkItem *wi, size_t address, size_t size, bool write) {
        if (!model_ || !wi || m->getAddressSpace() != AddrSpaceGlobal) return;
        if (!m->isAddressValid(address, size)) return;  // Oclgrind reports it
        hold();
        const llvm::Instruction *inst = wi->getCurrentInstruction();
        const auto race = model_->access(item_of(wi), group_of(wi), address, size, write, inst,
                                         !write && is_poll(inst), hbcheck::is_volatile_load(inst));
        if (race) report(*race);
    }

    bool is_poll(const llvm::Instruction *load) {
        if (!load) return false;
        std::lock_guard<std::mutex> lock(polls_mu_);
        const auto [at, added] = polls_.try_emplace(load, false);
        if (added) at->second = hbcheck::decides_loop(load);
        return at->second;
    }

    // A global fence (taken by the model): true. 
    bool fence(const WorkItem *wi, const llvm::CallInst *call) {
        const llvm::Function *f = call->getCalledFunction();
        if (!f) return false;
        const std::string name = f->getName().str();
        hbcheck::Order order;
        if (name.find("atomic_work_item_fence") != std::string::npos) {
            if (call->arg_size() < 3) return false;
            const uint64_t scope = wi->getOperand(call->getArgOperand(2)).getUInt();
            if (scope != 2 && scope != 3) return false;  // work-item, work-group or sub-group scope
            order = order_of(wi->getOperand(call->getArgOperand(1)).getUInt());
        } else if (name.find("read_mem_fence") != std::string::npos) {
            order = hbcheck::Order::Acquire;
        } else if (name.find("write_mem_fence") != std::string::npos) {
            order = hbcheck::Order::Release;
        } else if (name.find("mem_fence") != std::string::npos) {
            order = hbcheck::Order::AcqRel;  // OpenCL 1.2: no scopes; taken at device scope
        } else {
            return false;
        }
        if (call->arg_size() < 1) return false;
        if (!(wi->getOperand(call->getArgOperand(0)).getUInt() & kGlobalFence)) return false;
        if (model_) model_->fence(item_of(wi), order);
        return true;
    }

    // The scheduler (schedule.hpp): on where SYNCLAB_SCHEDULE names a seed; each launch of the
    // process gets its own seed from it, in launch order.
    void begin_schedule(const Size3 &n) {
        const char *env = std::getenv(synclab::env::kSchedule);
        const std::uint64_t seed = env ? std::strtoull(env, nullptr, 10) : 0;
        if (!seed) return schedule_.begin(0, 0, 0);
        seed_ = seed;
        launch_seed_ = seed * 0x9e3779b97f4a7c15ULL + ++launches_;
        if (!launch_seed_) launch_seed_ = 1;
        // As many workers as Oclgrind starts (KernelInvocation's own rule).
        workers_ = getEnvInt("OCLGRIND_NUM_THREADS", std::thread::hardware_concurrency(), false);
        if (!workers_ || !m_context->isThreadSafe()) workers_ = 1;
        if (!scheduled_) {
            scheduled_ = true;
            Context::Message msg(INFO, m_context);
            msg << "hbcheck: schedule " << seed << ": one work-group runs at a time, switched where "
                   "groups interact (the same seed, the same interleaving on any machine)";
            msg.send();
        }
        schedule_.begin(launch_seed_, n.x * n.y * n.z, workers_);
    }
    void end_schedule() {
        if (schedule_.on() && schedule_.abandoned()) {
            Context::Message msg(WARNING, m_context);
            msg << "hbcheck: schedule given up: a worker held the turn for 10 s without running "
                   "(an error stopped it); the groups then ran as the threads took them"
                << std::endl
                << msg.INDENT << "Kernel: " << msg.CURRENT_KERNEL << std::endl;
            msg.send();
        }
        schedule_.end();
        deadlock_told_ = deadlock_sent_ = false;
    }

    // What the instruction under way did to global memory, from Oclgrind's notices.
    struct Touch {
        bool any = false, atomic = false, wrote = false, changed = false;
        size_t address = 0, size = 0;
        const Memory *memory = nullptr;
        unsigned char before[8] = {};
    };
    static thread_local Touch touch_;

    // A store that changes memory moves the launch on; an atomic's change is seen once it is done.
    void touched(const Memory *m, const WorkItem *wi, size_t address, size_t size,
                 const uint8_t *data, bool atomic) {
        if (!schedule_.on() || !wi || m->getAddressSpace() != AddrSpaceGlobal) return;
        if (!m->isAddressValid(address, size)) return;
        const auto *now = static_cast<const unsigned char *>(m->getPointer(address));
        if (!touch_.any) {
            touch_.any = true;
            touch_.address = address;
            touch_.size = size;
            touch_.memory = m;
            if (atomic) std::memcpy(touch_.before, now, std::min<size_t>(size, 8));
        }
        touch_.atomic |= atomic;
        if (data) {
            touch_.wrote = true;
            touch_.changed |= std::memcmp(now, data, size) != 0;
        }
    }

    // The point an instruction is to the schedule: a store that changed memory, a fence, or a
    // poll (a load or atomic that decides a loop) that read what it read last time or not.
    void at_point(const WorkItem *wi, const llvm::Instruction *inst, const TypedValue &result,
                  bool fenced) {
        using P = hbcheck::Schedule::Point;
        const Touch t = touch_;
        bool changed = t.changed;
        if (t.atomic && t.memory)
            changed |= std::memcmp(t.memory->getPointer(t.address), t.before,
                                   std::min<size_t>(t.size, 8)) != 0;
        const bool poll = t.any && is_poll(inst);
        P p;
        if (changed) p = t.atomic || polled(t.address) ? P::Release : P::Write;
        else if (poll) p = same_as_last(wi, inst, t.address, result) ? P::StalePoll : P::Other;
        else if (t.atomic) p = P::Atomic;
        else if (fenced) p = P::Other;
        else return;
        if (changed && poll) same_as_last(wi, inst, t.address, result);  // remember it
        try {
            schedule_.point(group_of(wi), p, inst, t.address);
        } catch (const hbcheck::Deadlock &d) {
            stop(d);
        }
    }

    // Whether this work-item's poll at `inst` of `address` read what it read there last time.
    bool same_as_last(const WorkItem *wi, const llvm::Instruction *inst, size_t address,
                      const TypedValue &v) {
        std::uint64_t key = 1469598103934665603ULL, value = key;
        for (std::uint64_t part : {std::uint64_t(item_of(wi)), std::uint64_t(uintptr_t(inst)),
                                   std::uint64_t(address)})
            key = (key ^ part) * 1099511628211ULL;
        for (unsigned i = 0; v.data && i < v.size * v.num; ++i)
            value = (value ^ v.data[i]) * 1099511628211ULL;
        std::lock_guard<std::mutex> lock(polls_mu_);
        polled_.insert(address);
        const auto [at, added] = last_polls_.try_emplace(key, value);
        const bool same = !added && at->second == value;
        at->second = value;
        return same;
    }

    bool polled(size_t address) {
        std::lock_guard<std::mutex> lock(polls_mu_);
        return polled_.count(address) != 0;
    }

    // A deadlock: told once, with where each group waits; every worker then stops (Oclgrind
    // logs a fatal error per worker and ends the launch).
    [[noreturn]] void stop(const hbcheck::Deadlock &d) {
        if (!deadlock_told_.exchange(true)) {
            Context::Message msg(ERROR, m_context);
            msg << "Deadlock: every work-group that runs waits for a word that no running group "
                   "changes (schedule "
                << seed_ << ", launch " << launches_ << ")" << std::endl
                << msg.INDENT << "Kernel: " << msg.CURRENT_KERNEL << std::endl;
            for (const auto &[g, site] : d.waits)
                msg << std::endl
                    << "Group" << Size3(g, groups_) << " waits at "
                    << static_cast<const llvm::Instruction *>(site) << std::endl;
            if (d.not_started)
                msg << std::endl
                    << d.not_started << " group(s) never started: Oclgrind runs " << workers_
                    << " at once here" << std::endl;
            msg << "Fix: " << (d.not_started
                                   ? "the groups that wait need ones that never start: a wait "
                                     "between groups needs them all running at once (fewer "
                                     "groups, or occupancy discovery)"
                                   : "no group will ever write what they wait for: look for a "
                                     "lock never freed, an arrival no group counts or a release "
                                     "no group makes (a count reset after the release loses an "
                                     "early arrival)")
                << std::endl;
            msg.send();
            deadlock_sent_ = true;
        }
        // The other workers stop after the report (bounded: a report takes milliseconds).
        for (int i = 0; i < 5000 && !deadlock_sent_; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        throw FatalError("hbcheck: the launch stopped at the deadlock above", "hbcheck", 0);
    }

    std::size_t index_of(const Size3 &g) const { return g.x + groups_.x * (g.y + groups_.y * g.z); }

    Size3 global_id(std::size_t item) const {
        const std::size_t per = local_.x * local_.y * local_.z;
        const Size3 g(item / per, groups_), l(item % per, local_);
        return Size3(g.x * local_.x + l.x, g.y * local_.y + l.y, g.z * local_.z + l.z);
    }
    void entity(Context::Message &msg, const hbcheck::Access &a) const {
        const std::size_t per = local_.x * local_.y * local_.z;
        msg << "Global" << global_id(a.item) << " Local" << Size3(a.item % per, local_)
            << " Group" << Size3(a.item / per, groups_) << std::endl
            << static_cast<const llvm::Instruction *>(a.site) << std::endl;
    }
    void report(const hbcheck::Race &r) {
        {
            std::lock_guard<std::mutex> lock(reported_mu_);
            // One finding per pair of places, whichever group got there first.
            const auto pair = std::minmax(r.first.site, r.second.site);
            if (!reported_.insert({pair.first, pair.second}).second) return;
        }
        Context::Message msg(ERROR, m_context);
        msg << (r.first.write && r.second.write ? "Write-write" : "Read-write")
            << " unordered race at global memory address 0x" << std::hex << r.address << std::dec
            << ": work-items of two work-groups that no fence and atomic order (OpenCL memory "
               "model"
            << (r.cause == hbcheck::Cause::PlainAtomic ? "; a plain access against an atomic)" : ")")
            << std::endl
            << msg.INDENT << "Kernel: " << msg.CURRENT_KERNEL << std::endl
            << std::endl
            << "First entity:  ";
        // A plain access against an atomic: the atomic first, whichever ran first, so that the
        // labs tell one finding once, the plain line as the one to fix.
        const bool swap = r.cause == hbcheck::Cause::PlainAtomic && !r.first.atomic;
        entity(msg, swap ? r.second : r.first);
        msg << std::endl << "Second entity: ";
        entity(msg, swap ? r.first : r.second);
        msg << "Fix: " << hbcheck::fix(r) << std::endl;
        msg.send();
    }

    std::unique_ptr<hbcheck::Model> model_;
    bool announced_ = false;
    const KernelInvocation *inv_ = nullptr;
    Size3 local_, groups_;
    std::vector<std::vector<std::size_t>> members_;  // per group, filled by its own thread
    std::atomic<bool> order_{false};  // not a mutex: kernelEnd may free it for a stopped worker
    std::atomic<std::size_t> unordered_{0};
    std::mutex reported_mu_;
    std::set<std::pair<const void *, const void *>> reported_;
    std::mutex polls_mu_;
    std::map<const llvm::Instruction *, bool> polls_;  // loads seen, and whether each is a poll
    std::unordered_map<std::uint64_t, std::uint64_t> last_polls_;  // (item, load, address): value
    std::set<size_t> polled_;  // addresses a poll has read
    hbcheck::Schedule schedule_;
    std::uint64_t seed_ = 0, launch_seed_ = 0, launches_ = 0;
    unsigned workers_ = 1;
    bool scheduled_ = false;
    std::atomic<bool> deadlock_told_{false}, deadlock_sent_{false};
};

thread_local HbCheck::Pending HbCheck::pending_;
thread_local bool HbCheck::held_ = false;
thread_local HbCheck::Touch HbCheck::touch_;

std::mutex instances_mu;
std::map<Context *, HbCheck *> instances;  // one per Oclgrind context

}  // namespace

extern "C" {
void initializePlugins(Context *context) {
    auto *p = new HbCheck(context);
    {
        std::lock_guard<std::mutex> lock(instances_mu);
        instances[context] = p;
    }
    context->registerPlugin(p);
}
void releasePlugins(Context *context) {
    HbCheck *p = nullptr;
    {
        std::lock_guard<std::mutex> lock(instances_mu);
        auto it = instances.find(context);
        if (it == instances.end()) return;
        p = it->second;
        instances.erase(it);
    }
    context->unregisterPlugin(p);
    delete p;
}
}
