// For the lab scaffolding (Lab::program, run_lab) and the grader: stress schedules. A schedule
// builds the student's file behind a prelude that wraps OpenCL's atomics and fences, so that
// calls picked by a seed (which group, which call site, before or after, when) hold their group
// back while the other groups act (PCT-style), and random short delays. Protocols between work-groups
// whose window is a few instructions wide (a release before a reset, a generation read after
// arriving, a lock freed before its last write) then go wrong where plain runs never show it.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace synclab {

// Threads POCL's CPU device gets in a stress run (POCL_MAX_PTHREAD_COUNT, POCL_CPU_MAX_CU_COUNT)
// unless the caller set them: as many as the grader's dynamic runs get, and no more than the
// grading machine's two cores, so a held group's window is not closed by the operating system
// descheduling the others. The grader gives a stress run those cores first (tools/grade/cores.hpp).
constexpr unsigned kStressThreads = 2;

// The OpenCL C text put before the student's file. It ends with the wrapping macros; the
// student's #line directive follows, so every message keeps its file:line. One text, so one
// build, for every schedule of a process: a kernel reads the schedule's seed at run time from
// this process's memory (set_stress_schedule), which only POCL's CPU device, running kernels in
// the process itself, can; --stress is refused on every other device.
// Where fewer CPUs than kStressThreads are usable (cpus_shared), its holds last past a time slice.
std::string stress_prelude();

// Whether a stress run's threads must share CPUs: usable_cpus() < kStressThreads.
bool cpus_shared();

// The schedule the kernels built with stress_prelude() follow from their next launch on.
void set_stress_schedule(std::uint64_t seed);

// While one lives, kernels built with stress_prelude() run without delays: for given code that
// a lab launches in a stress run (lab 09's occupancy discovery), whose shaking tests nothing of
// the student's and costs a schedule its time, and a warm-up (--warm-up). Create it before the
// launch, and let it go only after the kernel has finished. Pauses nest.
struct StressPause {
    StressPause();
    ~StressPause();
    StressPause(const StressPause &) = delete;
    StressPause &operator=(const StressPause &) = delete;
};

// How many tries the command that repeats a schedule gives it (--repeat): a seed places the same
// delays at the same times, but the operating system interleaves the threads its own way, so one
// try of a schedule that failed in the grader failed again in 85 of 100 (docs/benchmarks-archive.md).
constexpr unsigned kRepeatTries = 3;

// The command that repeats stress schedule `seed` alone:
// `program ARGS --stress 1 --seed SEED --repeat 3`, each argument quoted for a shell where it
// needs it.
std::string stress_repeat_command(const std::string &program, const std::vector<std::string> &args,
                                  std::uint64_t seed);

// POCL's settings of every stress run, the grader's and a student's alike, so a repeat runs the
// code the grader ran: its threads (kStressThreads), and POCL's work-group specialisation on. A
// stress run launches its kernels at one work-group size, so a build specialised for it is
// compiled once, and in about two thirds of the time (lab 09's four barriers: 1.0 s of CPU, not
// 1.7). The grader sets them over its dynamic runs' environment (grade::stress_run_env).
std::vector<std::pair<std::string, std::string>> stress_environment();

// Sets stress_environment() where the caller's environment does not (a student's --stress run):
// call before the first OpenCL call of the process.
void set_stress_environment();

}  // namespace synclab
