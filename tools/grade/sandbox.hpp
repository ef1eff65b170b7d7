// For the grader and its tests: a submission is hostile input. Staging copies its own regular
// files into a private folder (symlinks, FIFOs, devices, huge files and #include of anything
// else refused); the sandbox runs each lab inside bubblewrap when the machine has it.
#pragma once
#include <string>
#include <vector>

namespace grade {

// What staging found: refused (a one-line reason naming the file and the fix) or staged.
struct Staged {
    std::string refused;  // "" when the submission was copied
    std::vector<std::string> files;  // file names copied into the folder
};

// The largest file a submission may hold.
constexpr std::size_t kMaxSubmissionFile = 1 << 20;

// Copies the regular files directly in `from` (a student's folder, or its kernels/) into `to`
// (made fresh). `needed` is the kernel file the lab reads: it must be there (else the result's
// `refused` is empty and `files` lacks it: the lab is "missing"). Anything that is not a plain
// file of the submission is refused with a reason: `from` itself or `needed` being a symbolic
// link, a FIFO or a device, an empty or oversized `needed`, and an #include (or any other way
// of reading another file) that names something outside the submission.
Staged stage_submission(const std::string &from, const std::string &to, const std::string &needed);

// "" when the kernel source only includes files in `allowed` (by plain name, in quotes);
// otherwise one line saying which directive is refused and why.
std::string check_includes(const std::string &source, const std::string &file,
                           const std::vector<std::string> &allowed);

class Sandbox {
public:
    // Finds bubblewrap and checks it can start here (it needs user namespaces or setuid);
    // `disabled` (SYNCLAB_GRADE_SANDBOX=off) turns it off on purpose.
    static Sandbox detect(bool disabled = false);
    bool available() const { return !bwrap_.empty(); }
    const std::string &why_not() const { return why_not_; }  // when not available
    // The command that runs `argv` inside the sandbox: a read-only system, no network, a fresh
    // /tmp, the GPU device nodes, `ro` folders read-only and `work` (the staged submission, the
    // child's TMPDIR and POCL's cache) writable; the only folders of the machine it sees.
    // It starts in `cwd` (inside work; "" = work). Unchanged argv when the sandbox is not
    // available.
    std::vector<std::string> wrap(const std::vector<std::string> &argv, const std::string &work,
                                  const std::vector<std::string> &ro,
                                  const std::string &cwd = "") const;

private:
    std::string bwrap_, why_not_;
    std::vector<std::string> devices_;  // device nodes a GPU driver needs, found at start
};

}  // namespace grade
