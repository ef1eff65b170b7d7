// For synclab-grade's main: the grading settings (devices, limits, race check, sandbox) and the
// grader's private folder for its children.
#pragma once
#include <string>

#include "grade.hpp"
#include "options.hpp"

namespace grade {

// Devices, seed, time and memory limits. `icd_vendors`: the user's own OCL_ICD_VENDORS, read
// before any device lookup. A bad --device SPEC throws (one line, exit 2).
Settings device_settings(const Options &o, const std::string &bin, const std::string &icd_vendors);

// The race check (--quick, --no-oclgrind; is Oclgrind there? asked of the executable `lab`),
// said in a note when missing. A signal while asking returns at once (the grader then stops).
void check_race(Settings &s, const Options &o, const std::string &lab, const volatile int *stop);

// The sandbox (SYNCLAB_GRADE_SANDBOX=off: none), said in a note when missing.
void check_sandbox(Settings &s);

// The children's private folder, locked while we live so a later grader can tell a stale one
// (left by a SIGKILL) from ours; removed at the end. A stale one is removed first.
class WorkFolder {
public:
    WorkFolder();  // throws UsageError when none can be made
    ~WorkFolder();
    WorkFolder(const WorkFolder &) = delete;
    WorkFolder &operator=(const WorkFolder &) = delete;
    const std::string &path() const { return path_; }

private:
    std::string path_;
    int lock_ = -1;
};

}  // namespace grade
