// For the lab runtime's watchdog (and its tests): how long this process's threads waited for a core
// (Linux's /proc/self/task/*/schedstat: time on a core, time runnable in a run queue).
#pragma once
#include <map>
#include <string>

namespace synclab::core_wait {

// A hang's clock: each tick counts its length less the longest any thread of the process waited
// for a core in it, at most `cap` (a tick far longer than the watchdog's period is time the
// process was stopped or suspended, not time it hung). So a run blocked in a barrier counts its
// whole time, and one starved of cores counts none of the time it waited.
double counted(double tick_s, double waited_s, double cap_s);

class Meter {
public:
    // `task_dir`: the process's threads' folder (a test gives its own).
    explicit Meter(std::string task_dir = "/proc/self/task");
    // Whether the kernel reports run-queue waits here (Linux with schedstats).
    bool available() const { return available_; }
    // The most seconds any one thread waited for a core since the last call (0 the first time).
    double waited();

private:
    std::string dir_;
    bool available_ = false;
    std::map<std::string, double> last_;  // thread id -> its wait, seconds
};

}  // namespace synclab::core_wait
