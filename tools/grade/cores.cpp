// Who gets a core (cores.hpp).
#include "cores.hpp"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "grade.hpp"
#include "synclab/protocol.hpp"
#include "synclab/stress.hpp"

namespace grade {

bool StressGate::enter(const volatile int *stop) {
    std::unique_lock<std::mutex> lock(m_);
    ++waiting_;
    while (!free_ || beside_) {
        if (stop && *stop) break;
        cv_.wait_for(lock, std::chrono::milliseconds(100));
    }
    --waiting_;
    if (stop && *stop) {
        cv_.notify_all();  // children beside that waited behind this one
        return false;
    }
    --free_;
    return true;
}

void StressGate::leave() {
    {
        std::lock_guard<std::mutex> lock(m_);
        ++free_;
    }
    cv_.notify_all();
}

bool StressGate::enter_beside(const volatile int *stop) {
    std::unique_lock<std::mutex> lock(m_);
    while (free_ < slots_ || waiting_) {
        if (stop && *stop) return false;
        cv_.wait_for(lock, std::chrono::milliseconds(100));
    }
    if (stop && *stop) return false;
    ++beside_;
    return true;
}

void StressGate::leave_beside() {
    {
        std::lock_guard<std::mutex> lock(m_);
        --beside_;
    }
    cv_.notify_all();
}

namespace {

// The CPU quota of this process's cgroup, in CPUs (rounded up), or 0 when there is none.
unsigned cgroup_quota() {
    auto read_two = [](const std::string &path, std::string &a, std::string &b) {
        std::ifstream in(path);
        return static_cast<bool>(in >> a >> b);
    };
    std::string quota, period;
    // cgroup v2: the process's own group, from /proc/self/cgroup ("0::/path").
    std::ifstream self("/proc/self/cgroup");
    std::vector<std::string> groups{"/sys/fs/cgroup/cpu.max"};
    for (std::string line; std::getline(self, line);)
        if (line.rfind("0::", 0) == 0) groups.insert(groups.begin(), "/sys/fs/cgroup" + line.substr(3) + "/cpu.max");
    for (const auto &g : groups)
        if (read_two(g, quota, period)) break;
    if (quota.empty()) {  // cgroup v1
        std::ifstream q("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"), p("/sys/fs/cgroup/cpu/cpu.cfs_period_us");
        if (!(q >> quota) || !(p >> period)) return 0;
    }
    char *end = nullptr;
    const double qv = std::strtod(quota.c_str(), &end), pv = std::strtod(period.c_str(), nullptr);
    if (quota == "max" || qv <= 0 || pv <= 0) return 0;
    return static_cast<unsigned>(std::max(1.0, std::ceil(qv / pv)));
}

}  // namespace

unsigned usable_cpus() {
    unsigned n = std::max(1u, std::thread::hardware_concurrency());
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) n = std::max(1, CPU_COUNT(&set));
    if (const unsigned quota = cgroup_quota()) n = std::min(n, quota);
    return n;
}

bool holds_cores(const Settings &s, const synclab::Declaration &lab) {
    return s.stress && synclab::groups_wait(lab);
}

Place::Place(const Settings &s, Role role, const volatile int *stop) {
    if (!s.stress_gate) return;
    gate_ = s.stress_gate.get();
    beside_ = role != Role::Stress;
    entered_ = beside_ ? gate_->enter_beside(stop) : gate_->enter(stop);
}

Place::~Place() {
    if (gate_ && entered_) beside_ ? gate_->leave_beside() : gate_->leave();
}

std::map<std::string, std::string> dynamic_run_env(const synclab::Declaration &lab) {
    const char *kGradingComputeUnits = "2";  // why: cores.hpp
    return {{"POCL_WORK_GROUP_SPECIALIZATION", synclab::pocl_work_group_specialization(lab)},
            {"POCL_CPU_MAX_CU_COUNT", kGradingComputeUnits},   // POCL 4 and later
            {"POCL_MAX_PTHREAD_COUNT", kGradingComputeUnits},  // POCL 3 (Debian 12's 3.1); 4+ too
            // POCL takes the larger of the maximum and a minimum: none of the caller's minimums.
            {"POCL_CPU_MIN_CU_COUNT", ""},
            {"POCL_PTHREAD_MIN_THREADS", ""}};
}

std::map<std::string, std::string> stress_run_env(const synclab::Declaration &lab) {
    auto env = dynamic_run_env(lab);
    for (const auto &[name, value] : synclab::stress_environment()) env[name] = value;
    return env;
}

}  // namespace grade
