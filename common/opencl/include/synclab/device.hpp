// For everything that uses OpenCL (labs, grader, tests): device choice and listing, the context
// and profiling queue.
#pragma once
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "synclab/cl.hpp"

namespace synclab {

struct DeviceInfo {
    int platform_index = 0, device_index = 0;
    std::string platform, name, type, opencl_c;
    std::string platform_version, vendor;  // matched by --device too ("PoCL" is only in the version)
    cl_uint compute_units = 0;
    std::size_t max_wg = 0;
    cl_ulong local_mem = 0;
    bool subgroups = false;
    cl::Device device;

    std::string spec() const;        // "P:D"
    // Work-groups enough to fill the device: two per compute unit, at least 8 (on an H100 one
    // group hid a missing barrier in 20/20 trials; 132 groups showed it in 20/20).
    std::size_t fill_groups() const;
    bool is_oclgrind() const;
    bool is_pocl() const;
    bool is_cpu() const;
};

// Every device of every driver, Oclgrind's too (made visible to the ICD loader with no system
// file: a folder private to this process, fresh name and mode 0700, removed once the loader has
// read it; nothing is added when OCL_ICD_VENDORS is set).
std::vector<DeviceInfo> all_devices();
// For a process that opens one device (a lab's run): from now on, select_device's first call
// loads only the drivers its SPEC needs: POCL's CPU (SPEC empty or "pocl") no Oclgrind, "oclgrind"
// no other driver. The ICD loader reads its drivers once, so a later call in this process for a
// device outside that set throws UsageError; every other SPEC, and all_devices(), load them all.
void load_drivers_on_demand();
// Whether `ctx` is one that Envs share (see Env::context).
bool is_shared_context(const cl::Context &ctx);
void list_devices(std::ostream &os);

// SPEC: "P:D" indices or a case-insensitive substring of the platform or device name.
// Empty: SYNCLAB_DEVICE, else POCL's CPU device, else the first device.
// No match throws UsageError that lists what exists; a substring that matches several devices
// (and names none of them in full) throws UsageError that lists each match with its P:D.
DeviceInfo select_device(const std::string &spec);

// An in-order queue that remembers the kernel it was last given (running_kernel()), so that a
// run stopped by a watchdog can name the kernel that did not finish, and notes each launch as
// progress (last_progress()). Everything else is cl::CommandQueue's.
class Queue : public cl::CommandQueue {
public:
    Queue() = default;
    explicit Queue(const cl::CommandQueue &q) : cl::CommandQueue(q) {}
    cl_int enqueueNDRangeKernel(const cl::Kernel &kernel, const cl::NDRange &offset,
                                const cl::NDRange &global, const cl::NDRange &local = cl::NullRange,
                                const std::vector<cl::Event> *events = nullptr,
                                cl::Event *event = nullptr) const;
};

// The function name of the kernel a Queue of this process was last given ("" before any): the
// one running, or the last to run, when the host waits. Safe from any thread.
std::string running_kernel();
// The same name, readable in a signal handler (no lock, no allocation): "" before any launch.
const char *last_kernel_name();

// What this process last got done, for a watchdog that counts a hang from it: the time the host
// last gave a Queue a kernel (in order after the ones before it: the host moved on), or a program
// build began or ended (Building). A run of many kernels then takes as long as it needs, while
// one kernel that never finishes still stops the host in its wait. Safe from any thread.
std::chrono::steady_clock::time_point last_progress();
void note_progress();
// The file whose program is being built now ("" when none): a build that never ends is the
// compiler's, not a kernel's.
std::string building();
class Building {  // marks a build of `shown`, and its start and end as progress
public:
    explicit Building(const std::string &shown);
    ~Building();
    Building(const Building &) = delete;
    Building &operator=(const Building &) = delete;
};
// Called after each build and around the first launch of each kernel: the compiler a driver
// loads (POCL's LLVM) puts its own handlers on SIGABRT, SIGSEGV and more, which swallow an
// abort's first signal. The process's own handlers go back in place here. Safe from any thread.
void after_driver_code(void (*hook)());

// The errors and warnings Oclgrind has counted in this process, every context's together (its
// Logger's count, which OCLGRIND_MAX_ERRORS caps): 0 before Oclgrind is loaded, -1 where its
// library does not show the count.
long oclgrind_errors_counted();

// A device, its context and an in-order queue with profiling on.
struct Env {
    DeviceInfo info;
    // The Envs of one device share one context for the life of the process, so that a process
    // that makes several pays once for what an implementation loads per context (POCL: its
    // kernel library, about half a second) and builds each source once (build_program).
    // Oclgrind reads its settings when a context is made: each Env on it gets its own.
    cl::Context context;
    Queue queue;
    // On Oclgrind, the file its reports go to: the caller's OCLGRIND_LOG, else a private
    // temporary file removed with the Env. Empty on other devices.
    std::string oclgrind_log;
    // On Oclgrind, its race, uniform-write and uninitialised-value checks are turned on, except
    // those named in `oclgrind_off` ("uninitialized": OCLGRIND_UNINITIALIZED=0); a check the
    // environment already sets keeps the environment's setting.
    // With `memory_model`, Oclgrind also loads hbcheck (hbcheck/), which reports accesses of
    // different work-groups that no fence and atomic order.
    explicit Env(const DeviceInfo &d, const std::vector<std::string> &oclgrind_off = {},
                 bool memory_model = false);
    // On Oclgrind with `memory_model`: the plugin loaded, or "" and why not in hbcheck_missing.
    std::string hbcheck, hbcheck_missing;
    // On Oclgrind: the errors Oclgrind had counted in this process before this Env's context (its
    // cap counts every context's, oclgrind_errors_counted); the context's cap is that many more
    // than one run's own. -1: not known, so the cap is one run's alone. 0 on other devices.
    long oclgrind_errors_before = 0;
    ~Env();
    Env(const Env &) = delete;
    Env &operator=(const Env &) = delete;
    // What Oclgrind wrote to its log since the last call, after the queue has finished; empty
    // on other devices, and when the log is no regular file (OCLGRIND_LOG=/dev/stderr), which
    // is never opened. At most kMaxOclgrindLog bytes are read in all.
    std::string new_oclgrind_log();
    static constexpr std::uint64_t kMaxOclgrindLog = 64u << 20;

private:
    bool own_log_ = false;
    std::uint64_t log_read_ = 0;
};

}  // namespace synclab
