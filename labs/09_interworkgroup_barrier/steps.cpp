// For lab 09: the host reference, and one method launched, timed and checked (steps.hpp).
#include "steps.hpp"

#include "synclab/second_try.hpp"
#include "synclab/stress.hpp"

#include <chrono>

namespace synclab {

namespace {
constexpr std::size_t kCtlWords = 5;  // GAVE_UP, COUNT, GEN, POLL, PARTS (the kernel file's)
constexpr std::size_t kParts = 4;
constexpr std::size_t kGaveUp = 0;
// The hierarchical barrier's counters: one for every per_counter() groups (the kernel file's).
std::size_t counters(std::size_t groups) {
    std::size_t per = 1;
    while (per * per < groups) ++per;
    return (groups + per - 1) / per;
}
// Words of the flags buffer for `groups`: the decentralized barrier's in[] and out[], or the
// hierarchical barrier's counters and release words, one 32-word (128-byte) line each.
std::size_t flag_words(std::size_t groups) { return 2 * std::max(groups, counters(groups) * 32); }

cl_uint mix(cl_uint x, unsigned work) {
    for (unsigned k = 0; k < work; ++k) x = x * 1664525u + 1013904223u;
    return x;
}
}  // namespace

cl_uint step_value(const cl_uint *x, std::size_t n, std::size_t i, unsigned s, unsigned work) {
    const cl_uint l = x[i == 0 ? n - 1 : i - 1], r = x[i + 1 == n ? 0 : i + 1];
    return mix(3u * x[i] + (l ^ r) + x[(i + n / 2) % n] + s, work);
}

std::vector<cl_uint> reference(std::vector<cl_uint> x, unsigned steps, unsigned work) {
    const std::size_t n = x.size();
    std::vector<cl_uint> y(n);
    for (unsigned s = 0; s < steps; ++s) {
        for (std::size_t i = 0; i < n; ++i) y[i] = step_value(x.data(), n, i, s, work);
        x.swap(y);
    }
    return x;
}

std::string Outcome::text() const {
    if (gave_up && arrived >= parts)  // all came, and still a wait ran out: the protocol lost one
        return "barrier gave up at step " + std::to_string(stuck_step + 1) + ": all " +
               std::to_string(parts) + " groups arrived, yet a wait ran out - the barrier lost an "
               "arrival or a release";
    if (gave_up)
        return "barrier gave up at step " + std::to_string(stuck_step + 1) + ": " +
               std::to_string(arrived) + " of " + std::to_string(parts) + " groups arrived - " +
               (stuck_step == 0 ? "the others were never resident"
                                : "the others had run and never arrived (a barrier let one through?)");
    if (wrong)
        return "WRONG: " + std::to_string(wrong) + " elements, first x[" + std::to_string(first) +
               "] = " + std::to_string(got) + ", host " + std::to_string(want);
    if (!stalled_before.empty())
        return synclab::verified_on_second_try(stalled_before);
    return "verified";
}

std::size_t sync_bytes(const std::string &method, std::size_t groups) {
    const std::size_t word = sizeof(cl_uint);
    if (method.rfind("relaunch", 0) == 0) return 0;  // the queue is the barrier
    if (method == "centralized" || method == "nofence" || method == "c11")
        return 3 * word;                              // gave-up, count, generation
    if (method == "generation") return 2 * word;      // gave-up, count with its flip bit
    if (method == "hierarchical")  // gave-up, the top count, two lines per counter
        return (2 + 2 * 32 * counters(groups)) * word;
    if (method == "decentralized") return (1 + 2 * groups) * word;  // gave-up, in[], out[]
    return (3 + 2 * groups) * word;                   // discovered: + the poll, the count
}

Steps::Steps(Env &env, std::size_t n, std::mt19937_64 &rng) : env_(env), n_(n) {
    input_.resize(n);
    stale_.resize(n);
    for (auto &v : input_) v = static_cast<cl_uint>(rng());
    for (auto &v : stale_) v = static_cast<cl_uint>(rng());
    const auto rw = CL_MEM_READ_WRITE;
    a_ = cl::Buffer(env.context, rw, n * sizeof(cl_uint));
    b_ = cl::Buffer(env.context, rw, n * sizeof(cl_uint));
    ctl_ = cl::Buffer(env.context, rw, kCtlWords * sizeof(cl_uint));
}

const std::vector<cl_uint> &Steps::want(unsigned steps, unsigned work) {
    for (auto &[key, v] : cache_)
        if (key == std::make_pair(steps, work)) return v;
    cache_.push_back({{steps, work}, reference(input_, steps, work)});
    return cache_.back().second;
}

void Steps::zero(const cl::Buffer &b, std::size_t words) {
    const std::vector<cl_uint> z(words, 0);
    env_.queue.enqueueWriteBuffer(b, CL_TRUE, 0, words * sizeof(cl_uint), z.data());
}

std::size_t Steps::discover(cl::Kernel &k, std::size_t launched, const Workload &w) {
    // A registered group whose wait ran out of budget (its master descheduled on a busy host)
    // leaves, and frees its place for one more: the count is then too high. Such a try is not
    // trusted; after three, none counts (0). Given code, not shaken by a stress schedule: under
    // its delays, 192 probing masters cost a schedule about 0.25 s of POCL's CPU.
    const StressPause calm;
    discovery_tries = 0;
    while (discovery_tries < 3) {
        ++discovery_tries;
        zero(ctl_, kCtlWords);
        k.setArg(0, ctl_);
        k.setArg(1, cl_uint(w.grace));
        k.setArg(2, cl_uint(w.budget));
        cl::Event ev;
        env_.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(launched * w.wg),
                                        cl::NDRange(w.wg), nullptr, &ev);
        cl_uint ctl[kCtlWords];
        env_.queue.enqueueReadBuffer(ctl_, CL_TRUE, 0, sizeof ctl, ctl);
        discovery_ms = event_ms(ev);
        if (!ctl[kGaveUp]) return ctl[kParts];
    }
    return 0;
}

Outcome Steps::run(cl::Kernel &k, How how, std::size_t groups, const Workload &w,
                   bool discovered) {
    // Untimed first: a device may compile the kernel for this group size at its first launch.
    if (warm_.insert(k()).second) {
        Workload one = w;
        one.steps = 1;
        run_once(k, how, 1, one, discovered);
    }
    // A give-up counts only when a second try gives up too (why: synclab/second_try.hpp).
    return synclab::tried_twice([&] { return run_once(k, how, groups, w, discovered); },
                                [](const Outcome &first) { return first.text(); });
}

Outcome Steps::run_once(cl::Kernel &k, How how, std::size_t groups, const Workload &w,
                        bool discovered) {
    auto &q = env_.queue;
    const std::size_t bytes = n_ * sizeof(cl_uint);
    q.enqueueWriteBuffer(a_, CL_TRUE, 0, bytes, input_.data());
    q.enqueueWriteBuffer(b_, CL_TRUE, 0, bytes, stale_.data());  // not the answer of any step
    Outcome o;
    o.launched = o.parts = groups;
    const cl::NDRange global(groups * w.wg), local(w.wg);
    using clock = std::chrono::steady_clock;
    clock::time_point t0;
    if (how != How::InKernel) {
        k.setArg(2, cl_uint(n_));
        k.setArg(4, cl_uint(w.work));
        t0 = clock::now();
        for (unsigned s = 0; s < w.steps; ++s) {
            k.setArg(0, s & 1 ? b_ : a_);
            k.setArg(1, s & 1 ? a_ : b_);
            k.setArg(3, cl_uint(s));
            q.enqueueNDRangeKernel(k, cl::NullRange, global, local);
            if (how == How::RelaunchWait) q.finish();  // the host is the barrier
        }
        q.finish();
    } else {
        if (flag_groups_ < groups) {
            flags_ = cl::Buffer(env_.context, CL_MEM_READ_WRITE, flag_words(groups) * sizeof(cl_uint));
            seen_ = cl::Buffer(env_.context, CL_MEM_READ_WRITE, groups * sizeof(cl_uint));
            flag_groups_ = groups;
        }
        zero(ctl_, kCtlWords);
        zero(flags_, flag_words(groups));
        zero(seen_, groups);
        const cl_uint args[] = {cl_uint(n_), w.steps, w.work, w.skew, w.budget, w.grace};
        k.setArg(0, a_);
        k.setArg(1, b_);
        for (int i = 0; i < 6; ++i) k.setArg(2 + i, args[i]);
        k.setArg(8, ctl_);
        k.setArg(9, flags_);
        k.setArg(10, seen_);
        t0 = clock::now();
        q.enqueueNDRangeKernel(k, cl::NullRange, global, local);
        q.finish();
    }
    o.ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    if (how == How::InKernel) {
        cl_uint ctl[kCtlWords];
        q.enqueueReadBuffer(ctl_, CL_TRUE, 0, sizeof ctl, ctl);
        if (discovered) o.parts = ctl[kParts];
        if (ctl[0]) {
            o.gave_up = true;
            std::vector<cl_uint> seen(groups);
            q.enqueueReadBuffer(seen_, CL_TRUE, 0, groups * sizeof(cl_uint), seen.data());
            cl_uint most = 0;
            for (cl_uint s : seen) most = std::max(most, s);
            for (cl_uint s : seen) o.arrived += s == most && most > 0;
            o.stuck_step = most ? most - 1 : 0;
            return o;  // nothing to verify
        }
    }
    std::vector<cl_uint> got(n_);
    q.enqueueReadBuffer(w.steps % 2 ? b_ : a_, CL_TRUE, 0, bytes, got.data());
    const std::vector<cl_uint> &ref = want(w.steps, w.work);
    for (std::size_t i = 0; i < n_; ++i)
        if (got[i] != ref[i] && o.wrong++ == 0) {
            o.first = i;
            o.got = got[i];
            o.want = ref[i];
        }
    return o;
}

}  // namespace synclab
