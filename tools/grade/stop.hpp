// For synclab-grade's main and its run stage: a signal stops the grader cleanly and kills every
// child of ours.
#pragma once
#include <csignal>

namespace grade {

extern volatile sig_atomic_t g_stop;  // the signal that stopped us (0: none)
extern volatile int g_stop_flag;      // what grade_lab() polls

// Async-signal-safe: kills the process group of every child of ours (run_process puts each
// child in its own group, so a terminal's Ctrl-C does not reach it).
void kill_children();

// SIGPIPE and SIGXFSZ ignored (a failed write is told instead).
void ignore_write_signals();

// From the first child on, SIGINT, SIGTERM and SIGHUP stop the grader and kill the children;
// so does SIGALRM, which says the time budget ran out (--budget arms it, `timeout -s ALRM`
// may send it): the grading then ends with what it finished.
void catch_stop_signals();

// SIGALRM in `seconds` (at once when none are left).
void arm_budget(double seconds);

}  // namespace grade
