// For synclab-grade's main: the grading settings (devices, limits, race check, sandbox) and the
// grader's private folder for its children.
#pragma once
#include <string>
#include <vector>

#include "labs.hpp"
#include "settings.hpp"
#include "options.hpp"

namespace grade {

// Devices, seed, time and memory limits. `icd_vendors`: the user's own OCL_ICD_VENDORS, read
// before any device lookup. A bad --device SPEC throws (one line, exit 2).
Settings device_settings(const Options &o, const std::string &bin, const std::string &icd_vendors);

// The race check (--quick, --no-oclgrind; is Oclgrind there? asked of the executable `lab`),
// said in a note when missing. A signal while asking returns at once (the grader then stops).
void check_race(Settings &s, const Options &o, const std::string &lab, const volatile int *stop);

// Where Oclgrind is not installed and the race check was not turned off, a lab among `labs` whose
// groups meet (oclgrind-groups: 07 to 10) could not be judged: throws UsageError (one line, exit
// 2) naming the labs and the fix. With --no-oclgrind or --quick such a lab is graded and never
// passes (judge_row). Call after check_race.
void check_oclgrind(const Settings &s, const std::vector<const Recipe *> &labs);

// hbcheck, the fence check between work-groups, for the labs among `labs` whose groups meet
// (their declaration's oclgrind-groups) when the race check runs. Where it is missing such a
// grading is refused: throws UsageError (one line, exit 2) naming the labs and the fix; with
// --no-hbcheck a note says those labs fail as not checked (grade_lab fails any lab whose race
// check says so). Call after check_race.
void check_hbcheck(const Settings &s, const Options &o, const std::vector<const Recipe *> &labs);

// The sandbox (--no-sandbox, or SYNCLAB_GRADE_SANDBOX=off: none), said in a note when missing.
// A class is not graded without one unless --no-sandbox says so: throws UsageError (one line,
// exit 2) naming what is missing and what grading without it exposes. Call before the records
// are opened, after device_settings (the folders the children read).
void check_sandbox(Settings &s, const Options &o);

// The children's private folder, locked while we live so a later grader can tell a stale one
// (left by a SIGKILL) from ours; removed at the end. A stale one is removed first.
class WorkFolder {
public:
    // `for_others`: the children run as another user (Sandbox::drops_privilege), who must pass
    // through it to their own folders (but not list it). Throws UsageError when none can be made.
    explicit WorkFolder(bool for_others = false);
    ~WorkFolder();
    WorkFolder(const WorkFolder &) = delete;
    WorkFolder &operator=(const WorkFolder &) = delete;
    const std::string &path() const { return path_; }

private:
    std::string path_;
    int lock_ = -1;
};

}  // namespace grade
