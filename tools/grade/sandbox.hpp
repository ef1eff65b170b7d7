// For the grader and its tests: a submission is hostile input. Staging copies its own regular
// files into a private folder (symlinks, FIFOs, devices and huge files refused; what a kernel
// includes the lab's preprocessor decides); the sandbox runs each lab inside bubblewrap.
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
// link, a FIFO or a device, an empty or oversized `needed`. Other .cl/.h/.clh files beside it
// are copied too (a kernel may include them); an #include of anything else is refused by the
// lab's own preprocessor (synclab/program_text.hpp), never by a reading of the text here.
Staged stage_submission(const std::string &from, const std::string &to, const std::string &needed);

// The user a grader running as root runs its children as: nobody. Inside a user namespace
// bubblewrap's --uid maps back to the caller's real uid, and the kernel checks files by that
// outside uid, so the change of user happens before bubblewrap (setpriv), outside it.
constexpr unsigned kChildUid = 65534, kChildGid = 65534;

class Sandbox {
public:
    // Finds bubblewrap (and, for a grader running as root, setpriv) and checks it can start
    // here as the children's user (it needs user namespaces or setuid); `disabled` turns it off
    // on purpose, said as "turned off by " + `off_by`.
    static Sandbox detect(bool disabled = false,
                          const std::string &off_by = "SYNCLAB_GRADE_SANDBOX=off");
    bool available() const { return !bwrap_.empty(); }
    const std::string &why_not() const { return why_not_; }  // when not available
    // Whether the children run as another user than the grader (kChildUid): a grader running
    // as root. Then what they read must be readable by that user (needs) and their private
    // folder is handed to it (wrap).
    bool drops_privilege() const { return !setpriv_.empty(); }
    // Turns the sandbox off, why_not naming the folder and the fix, when the children's user
    // cannot read a folder of `read` (bound read-only: the labs, lib/) or pass through one of
    // `pass` (holding the children's private folders). Nothing to check when it is the grader.
    void needs(const std::vector<std::string> &read, const std::vector<std::string> &pass);
    // The command that runs `argv` inside the sandbox: a read-only /usr, of /etc only what a
    // lab reads (the ICD vendor list, the loader's cache, the distribution's name), /sys, no
    // network, a fresh /tmp, the GPU device nodes, `ro` folders read-only and `work` (the staged
    // submission, the child's TMPDIR and POCL's cache) writable; the only folders of the machine
    // it sees. It starts in `cwd` (inside work; "" = work). When the grader is root the child
    // runs as kChildUid (with no group but those of GPU nodes others may not use), and `work`
    // and what is in it (made by the grader: call wrap once it is all there, before each child)
    // are handed to that user first (but links, and files with other names elsewhere, which
    // stay as they are). Unchanged argv when the sandbox is not available.
    std::vector<std::string> wrap(const std::vector<std::string> &argv, const std::string &work,
                                  const std::vector<std::string> &ro,
                                  const std::string &cwd = "") const;

private:
    std::string bwrap_, setpriv_, why_not_;
    std::vector<std::string> devices_;  // device nodes a GPU driver needs, found at start
    std::string groups_;  // their groups a child running as nobody keeps ("1,2"; "": none)
};

}  // namespace grade
