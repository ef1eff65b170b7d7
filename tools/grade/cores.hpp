// For the grader's stages: who gets a core. Every rule on niceness, the stress gate and POCL's
// threads a child runs with is here; a lab's side of it (a watchdog that counts the time it had a
// core) is in synclab/runtime.hpp, joined by synclab/protocol.hpp's names.
#pragma once
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>

#include "synclab/declaration.hpp"
#include "synclab/process.hpp"

namespace grade {

struct Settings;

// Stress runs are given the cores first. A schedule holds one group back while the others act
// (synclab/stress.hpp): that works only while the others are on a core, not waiting for a time
// slice that another of the grader's children holds. So in a grading with stress schedules a
// stress run waits until no other child of the grader runs, and no child starts while one runs or
// waits (StressGate); at most one stress run per kStressThreads jobs runs at once, as two on two
// cores would deschedule each other's groups. Every child runs at the grader's own niceness: a
// child niced behind the stress runs would be behind every other process on the machine too, and
// beside two busy loops a class took tens of times as long. Work that is not the grader's takes
// the cores from a stress run all the same (grade on a machine of its own).
class StressGate {
public:
    explicit StressGate(unsigned slots) : slots_(slots ? slots : 1), free_(slots_) {}
    // A stress run: waits for a slot, and for no child beside (below) to be running; false (and
    // no slot) once *stop is non-zero.
    bool enter(const volatile int *stop);
    void leave();
    // Any other child: runs beside others of its kind, never beside a stress run, nor ahead of
    // one waiting. False once *stop is non-zero.
    bool enter_beside(const volatile int *stop);
    void leave_beside();

private:
    std::mutex m_;
    std::condition_variable cv_;
    unsigned slots_, free_;
    unsigned beside_ = 0, waiting_ = 0;  // children beside; stress runs waiting for a slot
};

// What a child process does in a grading: a check (dynamic runs, a race check), a stress run, or
// a stress run's build (--warm-up), which grades nothing.
enum class Role { Check, Stress, WarmUp };

// A child's place at the gate (StressGate): made before the child runs, kept while it runs (the
// gate's slot is left at the end of its scope).
class Place {
public:
    // Waits at the gate: a stress run for the cores alone, any other child beside the others.
    Place(const Settings &s, Role role, const volatile int *stop);
    ~Place();
    Place(const Place &) = delete;
    Place &operator=(const Place &) = delete;
    bool entered() const { return entered_; }  // false: stopped while waiting; do not run

private:
    StressGate *gate_ = nullptr;
    bool beside_ = false, entered_ = true;
};

// Whether a lab's groups wait for one another in a grading with stress schedules: such labs
// share a process only among themselves (grade_labs), so one process holds either labs that spin
// or labs that do not.
bool holds_cores(const Settings &s, const synclab::Declaration &lab);

// The environment the grader adds for a lab's dynamic runs. On POCL, each kernel is compiled once
// for every work-group size (POCL_WORK_GROUP_SPECIALIZATION=0): the same source at the same
// optimisation, without the size as a constant, as a GPU compiles it; where each build meets one
// size (build_per_size: -D WG) POCL specialises. POCL's CPU device gets two compute units
// (threads), whatever the host has: a kernel's grade depends far less on the grading machine's
// core count, and -j N lab processes on N cores put two threads on a core. The price: a spin
// barrier is graded over two groups.
std::map<std::string, std::string> dynamic_run_env(const synclab::Declaration &lab);

// The environment of a lab's stress schedules: as its dynamic runs', with the stress settings
// a student's --stress run sets too (synclab::stress_environment).
std::map<std::string, std::string> stress_run_env(const synclab::Declaration &lab);

}  // namespace grade
