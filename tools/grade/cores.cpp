// Who gets a core (cores.hpp).
#include "cores.hpp"

#include <algorithm>
#include <chrono>
#include <string>

#include "grade.hpp"
#include "settings.hpp"
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
