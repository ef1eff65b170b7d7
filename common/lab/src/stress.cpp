#include "synclab/stress.hpp"

#include "synclab/cpus.hpp"
#include "synclab/protocol.hpp"

#include <sys/mman.h>

#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>

namespace synclab {

namespace {

// The delays. A hold keeps one work-item of one group back while the other groups act: until
// they have made a number of atomics (1, 2, 4, 8 or 16, or as many as they make), ending early
// when none comes for kIdleTicks time-stamp ticks (they wait for the held one) and at most after
// kLongTicks (about 0.8 ms at 2.6 GHz). One group is held at a time, so the others run freely
// through the held one's window: a release before a reset, a generation read after arriving.
// Waiting on the others' atomics, not on a time, keeps a hold as short as the window it opens,
// so a schedule of many barrier steps stays cheap. Time is cut in slots of 2^kSlotShift ticks;
// for each (group, call site, before or after) the seed picks one slot in kSlotOneIn for a hold
// there. Only a group's first kLongItems work-items are held: they run its protocol (its
// master, group 0's watchers). A short delay (turns of a private volatile loop, about a
// microsecond) meets any call with probability 1/kShortOneIn.
constexpr unsigned kLongTicks = 1u << 21, kSlotShift = 18, kSlotOneIn = 2, kLongItems = 4;
constexpr unsigned kEventBits = 6, kIdleTicks = 1u << 17;
// Where the stress threads must share CPUs (a 1-vCPU container, taskset -c 0), the others act
// only once the operating system switches threads: a hold then waits past a time slice (about
// 1.6 ms idle, 6.4 ms at most), or the window it opens stays shut. On one core, with the short
// holds, two lab 09 protocol bugs passed 5 of 5 stress runs; with these, both failed 5 of 5.
constexpr unsigned kSharedIdleTicks = 1u << 22, kSharedLongTicks = 1u << 24;
constexpr unsigned kShortSpins = 1u << 10, kShortOneIn = 8;

// Wrapped by value (their result is passed on), loads (not counted as the others' atomics),
// without one (void), and fences (not counted either).
const char *const kValued[] = {
    "atomic_add", "atomic_sub", "atomic_xchg", "atomic_inc", "atomic_dec", "atomic_cmpxchg",
    "atomic_min", "atomic_max", "atomic_and", "atomic_or", "atomic_xor",
    "atom_add", "atom_sub", "atom_xchg", "atom_inc", "atom_dec", "atom_cmpxchg",
    "atom_min", "atom_max", "atom_and", "atom_or", "atom_xor",
    "atomic_exchange", "atomic_exchange_explicit",
    "atomic_compare_exchange_strong", "atomic_compare_exchange_strong_explicit",
    "atomic_compare_exchange_weak", "atomic_compare_exchange_weak_explicit",
    "atomic_fetch_add", "atomic_fetch_add_explicit", "atomic_fetch_sub",
    "atomic_fetch_sub_explicit", "atomic_fetch_or", "atomic_fetch_or_explicit",
    "atomic_fetch_xor", "atomic_fetch_xor_explicit", "atomic_fetch_and",
    "atomic_fetch_and_explicit", "atomic_fetch_min", "atomic_fetch_min_explicit",
    "atomic_fetch_max", "atomic_fetch_max_explicit", "atomic_flag_test_and_set",
    "atomic_flag_test_and_set_explicit"};
const char *const kLoads[] = {"atomic_load", "atomic_load_explicit"};
const char *const kVoid[] = {"atomic_store", "atomic_store_explicit", "atomic_flag_clear",
                             "atomic_flag_clear_explicit"};
const char *const kFences[] = {"mem_fence", "read_mem_fence", "write_mem_fence",
                               "atomic_work_item_fence"};

// The schedule's functions. Statement expressions and __typeof__ (clang's OpenCL C, as POCL and
// Oclgrind build it) let one macro wrap every overload of a built-in; inside its own expansion a
// macro's name is not expanded again, so the wrapped call is the built-in itself.
const char *const kFunctions = R"(
uint synclab_stress_mix(uint x) {
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    return x;
}
ulong synclab_stress_now(void) { return __builtin_readcyclecounter(); }
__attribute__((noinline)) void synclab_stress_delay(uint group, uint item, uint line, uint side,
                                                   uint seen, uint event) {
    if (SYNCLAB_STRESS_CELL[1]) return;  // paused: given code the schedules do not shake
    if (event) atomic_inc(SYNCLAB_STRESS_ATOMICS);
    const ulong seed = SYNCLAB_STRESS_CELL[0];
    const uint site = synclab_stress_mix((uint)seed ^ synclab_stress_mix(line * 2u + side));
    const uint pick = synclab_stress_mix(site ^ synclab_stress_mix(group ^ (uint)(seed >> 32)));
    const ulong now = synclab_stress_now();
    const uint slot = synclab_stress_mix(pick ^ (uint)(now >> SYNCLAB_STRESS_SLOT_SHIFT));
    if (item < SYNCLAB_STRESS_LONG_ITEMS && slot % SYNCLAB_STRESS_SLOT_ONE_IN == 0u &&
        atomic_cmpxchg(SYNCLAB_STRESS_HELD, 0u, 1u) == 0u) {
        // Held until the others have made `want` atomics; all of them: 0xffffffff.
        const uint bits = synclab_stress_mix(slot) % SYNCLAB_STRESS_EVENT_BITS;
        const uint want = bits + 1u == SYNCLAB_STRESS_EVENT_BITS ? 0xffffffffu : 1u << bits;
        const uint from = *SYNCLAB_STRESS_ATOMICS;
        uint last = from;
        ulong quiet = now, t;
        while ((t = synclab_stress_now()) - now < SYNCLAB_STRESS_LONG) {
            const uint e = *SYNCLAB_STRESS_ATOMICS;
            if (e - from >= want) break;
            if (e != last) { last = e; quiet = t; }
            else if (t - quiet > SYNCLAB_STRESS_IDLE) break;
        }
        atomic_xchg(SYNCLAB_STRESS_HELD, 0u);
        return;
    }
    if (synclab_stress_mix(pick ^ seen ^ item * 0x9e3779b9u ^ (uint)(now >> 10)) % SYNCLAB_STRESS_SHORT_ONE_IN == 0u)
        for (volatile uint k = 0; k < SYNCLAB_STRESS_SHORT; ++k) {}
}
#define SYNCLAB_STRESS_WHO \
    (uint)(get_group_id(0) + get_num_groups(0) * (get_group_id(1) + get_num_groups(1) * get_group_id(2))), \
    (uint)(get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)))
#define SYNCLAB_STRESSED_AS(call, event) ({ synclab_stress_delay(SYNCLAB_STRESS_WHO, __LINE__, 0u, 0u, 0u); \
    __typeof__(call) synclab_seen_ = (call); \
    synclab_stress_delay(SYNCLAB_STRESS_WHO, __LINE__, 1u, (uint)synclab_seen_, event); synclab_seen_; })
#define SYNCLAB_STRESSED(call) SYNCLAB_STRESSED_AS(call, 1u)
#define SYNCLAB_STRESSED_LOAD(call) SYNCLAB_STRESSED_AS(call, 0u)
#define SYNCLAB_STRESSED_VOID_AS(call, event) ({ synclab_stress_delay(SYNCLAB_STRESS_WHO, __LINE__, 0u, 0u, 0u); \
    (call); synclab_stress_delay(SYNCLAB_STRESS_WHO, __LINE__, 1u, 0u, event); })
#define SYNCLAB_STRESSED_VOID(call) SYNCLAB_STRESSED_VOID_AS(call, 1u)
#define SYNCLAB_STRESSED_FENCE(call) SYNCLAB_STRESSED_VOID_AS(call, 0u)
)";

// The macro that wraps built-in `name`. POCL renames its built-ins with object-like macros (its
// _builtin_renames.h: atomic_inc is _cl_atomic_inc), so the wrapper calls the renamed one there.
std::string wrap(const std::string &name, const char *with) {
    const std::string as = "#define " + name + "(...) " + with + "(";
    return "#ifdef " + name + "\n#undef " + name + "\n" + as + "_cl_" + name +
           "(__VA_ARGS__))\n#else\n" + as + name + "(__VA_ARGS__))\n#endif\n";
}

std::string define(const char *name, unsigned long long value) {
    return std::string("#define ") + name + " " + std::to_string(value) + "u\n";
}

// What the kernels read and count in: the schedule's seed, then whether its delays are paused;
// how many atomics (not loads, not fences) stressed kernels have made, then whether a group is
// held. The prelude names their address, so they sit at one address in every process where it
// is free (kCellsAddress, far from where Linux puts a program, its heap, its libraries and its
// stack): the prelude's text is then the same in every process, and POCL's cache serves a build
// made by another process (--warm-up, which the grader runs before a stress run). Where it is
// taken, the process's own cells: a build of its own.
struct Cells {
    volatile std::uint64_t schedule[2];
    volatile std::uint32_t hold[2];
};
constexpr std::uintptr_t kCellsAddress = 0x3e1ab0000000;

Cells &cells() {
    static Cells *const c = [] {
        void *const want = reinterpret_cast<void *>(kCellsAddress);
        void *const got = mmap(want, sizeof(Cells), PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (got == want) return new (got) Cells{};
        if (got != MAP_FAILED) munmap(got, sizeof(Cells));  // Linux before 4.17: a hint
        static Cells own{};
        return &own;
    }();
    return *c;
}

}  // namespace

void set_stress_schedule(std::uint64_t seed) { cells().schedule[0] = seed; }

// Pauses nest (a warm-up's, and lab 09's discovery inside it): the last one to end resumes.
StressPause::StressPause() { cells().schedule[1] = cells().schedule[1] + 1; }
StressPause::~StressPause() { cells().schedule[1] = cells().schedule[1] - 1; }

bool cpus_shared() { return usable_cpus() < kStressThreads; }

std::string stress_prelude() {
    std::string p = "#line 1 \"synclab-stress-prelude\"\n";
    char cell[96];
    std::snprintf(cell, sizeof cell, "#define SYNCLAB_STRESS_CELL ((volatile __global ulong *)0x%llxul)\n",
                  static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(cells().schedule)));
    p += cell;
    std::snprintf(cell, sizeof cell, "#define SYNCLAB_STRESS_ATOMICS ((volatile __global uint *)0x%llxul)\n",
                  static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(cells().hold)));
    p += cell;
    p += "#define SYNCLAB_STRESS_HELD (SYNCLAB_STRESS_ATOMICS + 1)\n";
    const bool shared = cpus_shared();
    p += define("SYNCLAB_STRESS_LONG", shared ? kSharedLongTicks : kLongTicks);
    p += define("SYNCLAB_STRESS_SLOT_SHIFT", kSlotShift);
    p += define("SYNCLAB_STRESS_SHORT", kShortSpins);
    p += define("SYNCLAB_STRESS_LONG_ITEMS", kLongItems);
    p += define("SYNCLAB_STRESS_SLOT_ONE_IN", kSlotOneIn);
    p += define("SYNCLAB_STRESS_SHORT_ONE_IN", kShortOneIn);
    p += define("SYNCLAB_STRESS_EVENT_BITS", kEventBits);
    p += define("SYNCLAB_STRESS_IDLE", shared ? kSharedIdleTicks : kIdleTicks);
    p += kFunctions;
    for (const char *f : kValued) p += wrap(f, "SYNCLAB_STRESSED");
    for (const char *f : kLoads) p += wrap(f, "SYNCLAB_STRESSED_LOAD");
    for (const char *f : kVoid) p += wrap(f, "SYNCLAB_STRESSED_VOID");
    for (const char *f : kFences) p += wrap(f, "SYNCLAB_STRESSED_FENCE");
    return p;
}

std::string stress_repeat_command(const std::string &program, const std::vector<std::string> &args,
                                  std::uint64_t seed) {
    std::string out = program;
    for (const auto &a : args) out += " " + protocol::shell_quote(a);
    return out + " --stress 1 --seed " + std::to_string(seed) + " --repeat " +
           std::to_string(kRepeatTries);
}

std::vector<std::pair<std::string, std::string>> stress_environment() {
    const std::string n = std::to_string(kStressThreads);
    return {{"POCL_MAX_PTHREAD_COUNT", n},  // POCL 3 (Debian 12's 3.1); 4 and later too
            {"POCL_CPU_MAX_CU_COUNT", n},   // POCL 4 and later
            {"POCL_WORK_GROUP_SPECIALIZATION", "1"}};
}

void set_stress_environment() {
    for (const auto &[name, value] : stress_environment()) {
        const char *set = std::getenv(name.c_str());
        if (!set || !*set) setenv(name.c_str(), value.c_str(), 1);
    }
}

}  // namespace synclab
