#include "synclab/device.hpp"
#include "synclab/oclgrind.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "synclab/environment.hpp"
#include "synclab/errors.hpp"

namespace fs = std::filesystem;

namespace synclab {

static std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

std::string DeviceInfo::spec() const {
    return std::to_string(platform_index) + ":" + std::to_string(device_index);
}
std::size_t DeviceInfo::fill_groups() const {
    return std::max<std::size_t>(8, 2 * static_cast<std::size_t>(compute_units));
}

bool DeviceInfo::is_oclgrind() const { return lower(platform).find("oclgrind") != std::string::npos; }
bool DeviceInfo::is_pocl() const {
    return lower(platform).find("portable computing language") != std::string::npos ||
           lower(platform_version).find("pocl") != std::string::npos;
}
bool DeviceInfo::is_cpu() const { return type == "CPU"; }

// ocl-icd reads OCL_ICD_VENDORS (a folder of .icd files) in place of /etc/OpenCL/vendors. We
// make such a folder: the system's .icd files plus one for Oclgrind's ICD library. A Khronos
// ICD loader that comes first (CUDA's libOpenCL, say) may not read that folder, but it loads the
// libraries OCL_ICD_FILENAMES lists (':' between them): we list the folder's there too. ocl-icd
// (2.3.1 tried) reads only the folder once OCL_ICD_VENDORS is set; the Khronos loader loads a
// library named twice once (the same dlopen handle), so neither lists a platform twice. The
// folder is private to this process (mkdtemp: a fresh name, mode 0700) and removed once the
// loader has read it: a folder of a known name could be made first by another local user, who
// would then choose the driver library that every lab loads (as root, when grading as root).
static const char *kOclgrindIcd = "zz-synclab-oclgrind.icd";

namespace {
struct IcdFolder {
    std::string path;
    pid_t owner = 0;
    void remove() {
        if (path.empty() || getpid() != owner) return;  // a forked child leaves it to its parent
        std::error_code ec;
        fs::remove_all(path, ec);
        path.clear();
    }
    ~IcdFolder() { remove(); }  // at exit, if no platform was ever asked for
};
IcdFolder icd_folder;
bool icd_env_ours = false;  // OCL_ICD_VENDORS was set by us, not by the user
bool icd_files_ours = false;  // OCL_ICD_FILENAMES too

std::string make_private_folder() {
    const char *tmp = std::getenv("TMPDIR");
    for (std::string base : {std::string(tmp && *tmp ? tmp : "/tmp"), std::string("/tmp")}) {
        std::string templ = base + "/synclab-icd-XXXXXX";
        if (mkdtemp(templ.data())) return templ;  // made by us, mode 0700
    }
    return "";
}
}  // namespace

// With `alone`, the folder holds Oclgrind's file only: a process that asks for Oclgrind by name
// loads no other driver (POCL's start-up is most of a small Oclgrind run's).
static void register_icds(bool alone) {
    static bool done = false;
    if (done) return;
    done = true;
    if (std::getenv("OCL_ICD_VENDORS")) return;  // the user chose; leave it
    std::string lib = SYNCLAB_OCLGRIND_ICD;
    std::error_code ec;
    if (lib.empty() || !fs::exists(lib, ec)) {
        for (const char *p : {"/usr/lib/oclgrind/liboclgrind-rt-icd.so",
                              "/usr/local/lib/oclgrind/liboclgrind-rt-icd.so",
                              "/usr/lib/x86_64-linux-gnu/liboclgrind-rt-icd.so"})
            if (fs::exists(p, ec)) { lib = p; break; }
    }
    if (lib.empty() || !fs::exists(lib, ec)) return;

    const char *vp = std::getenv("OPENCL_VENDOR_PATH");
    const fs::path system_dir = vp && *vp ? vp : "/etc/OpenCL/vendors";
    const std::string dir = make_private_folder();
    if (dir.empty()) return;  // no Oclgrind, but the system's devices still work
    icd_folder.path = dir;
    icd_folder.owner = getpid();
    std::string libraries;  // for OCL_ICD_FILENAMES
    auto put = [&](const std::string &name, const std::string &text) {
        std::ofstream(fs::path(dir) / name) << text << "\n";
        if (!text.empty() && text.find(':') == std::string::npos)
            libraries += (libraries.empty() ? "" : ":") + text;
    };
    for (const auto &e : fs::directory_iterator(alone ? fs::path() : system_dir, ec)) {
        if (e.path().extension() != ".icd" || e.path().filename() == kOclgrindIcd) continue;
        std::ifstream in(e.path());
        std::string text((std::istreambuf_iterator<char>(in)), {});
        while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
        put(e.path().filename().string(), text);
    }
    put(kOclgrindIcd, lib);
    setenv("OCL_ICD_VENDORS", dir.c_str(), 1);
    icd_env_ours = true;
    if (!std::getenv("OCL_ICD_FILENAMES")) {  // the user's own list is left as it is
        setenv("OCL_ICD_FILENAMES", libraries.c_str(), 1);
        icd_files_ours = true;
    }
}

// The loader reads the folder once, at the first platform query: then it goes, and child
// processes make their own.
static void release_oclgrind_icd() {
    if (icd_files_ours) unsetenv("OCL_ICD_FILENAMES");
    icd_files_ours = false;
    if (!icd_env_ours) return;
    icd_env_ours = false;
    unsetenv("OCL_ICD_VENDORS");
    icd_folder.remove();
}

static std::string type_name(cl_device_type t) {
    if (t & CL_DEVICE_TYPE_GPU) return "GPU";
    if (t & CL_DEVICE_TYPE_CPU) return "CPU";
    if (t & CL_DEVICE_TYPE_ACCELERATOR) return "ACCELERATOR";
    return "OTHER";
}

static bool has_subgroups(const cl::Device &d) {
    const std::string ext = d.getInfo<CL_DEVICE_EXTENSIONS>();
    if (ext.find("cl_khr_subgroups") != std::string::npos) return true;
    // OpenCL 3.0 devices may offer subgroups as an optional feature instead.
    cl_uint max_sg = 0;
    if (clGetDeviceInfo(d(), 0x105C /* CL_DEVICE_MAX_NUM_SUB_GROUPS */, sizeof max_sg, &max_sg,
                        nullptr) == CL_SUCCESS)
        return max_sg > 0;
    return false;
}

namespace {
// Which drivers the ICD loader was given. It reads them at a process's first platform query and
// never again: every later query sees that set.
enum class Drivers { None, All, NoOclgrind, OclgrindAlone };
Drivers loaded = Drivers::None;
bool on_demand = false;  // load_drivers_on_demand()

const char *drivers_name(Drivers d) {
    return d == Drivers::NoOclgrind ? "without Oclgrind" : "with Oclgrind alone";
}

// Whether the system's driver folder names POCL's driver (Debian's pocl.icd).
bool system_has_pocl() {
    const char *vp = std::getenv("OPENCL_VENDOR_PATH");
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(vp && *vp ? vp : "/etc/OpenCL/vendors", ec))
        if (e.path().extension() == ".icd" &&
            lower(e.path().filename().string()).find("pocl") != std::string::npos)
            return true;
    return false;
}

// The drivers a run's usual devices need, no more: POCL by default or by name loads no Oclgrind,
// and Oclgrind by name no other driver. Oclgrind calls itself "Oclgrind", "Oclgrind Simulator",
// "University of Bristol" and "OpenCL 1.2 (Oclgrind V)": "pocl" is in none of them, so leaving
// it out changes no match. Indices (P:D) and every other name see every driver.
Drivers drivers_for(const std::string &spec) {
    const std::string want = lower(spec);
    if (want == "oclgrind") return Drivers::OclgrindAlone;
    // With no POCL the default device may be another driver's, or Oclgrind itself.
    if ((want.empty() || want == "pocl") && system_has_pocl()) return Drivers::NoOclgrind;
    return Drivers::All;
}

std::vector<DeviceInfo> devices_of(Drivers want, const std::string &asked) {
    if (loaded == Drivers::None) {
        loaded = want;
        if (want == Drivers::All) register_icds(false);
        else if (want == Drivers::OclgrindAlone) register_icds(true);
        // NoOclgrind: the system's folder as it is.
    } else if (loaded != Drivers::All && loaded != want) {
        throw UsageError("this process loaded its OpenCL drivers " + std::string(drivers_name(loaded)) +
                         " for its first run, and the ICD loader reads them once: run " + asked +
                         " in a process of its own");
    }
    std::vector<cl::Platform> platforms;
    try {
        cl::Platform::get(&platforms);
    } catch (const cl::Error &) {
        platforms.clear();
    }
    release_oclgrind_icd();
    // The loader puts platforms with GPUs first, and Oclgrind calls itself a GPU: list it
    // last so that P:D indices of the real devices do not depend on whether it is installed.
    std::stable_partition(platforms.begin(), platforms.end(), [](const cl::Platform &p) {
        return lower(p.getInfo<CL_PLATFORM_NAME>()).find("oclgrind") == std::string::npos;
    });
    std::vector<DeviceInfo> out;
    for (std::size_t p = 0; p < platforms.size(); ++p) {
        std::vector<cl::Device> devs;
        try {
            platforms[p].getDevices(CL_DEVICE_TYPE_ALL, &devs);
        } catch (const cl::Error &) {
            continue;  // a platform with no devices
        }
        for (std::size_t d = 0; d < devs.size(); ++d) {
            DeviceInfo i;
            i.platform_index = static_cast<int>(p);
            i.device_index = static_cast<int>(d);
            i.platform = platforms[p].getInfo<CL_PLATFORM_NAME>();
            i.platform_version = platforms[p].getInfo<CL_PLATFORM_VERSION>();
            i.vendor = devs[d].getInfo<CL_DEVICE_VENDOR>();
            i.name = devs[d].getInfo<CL_DEVICE_NAME>();
            i.type = type_name(devs[d].getInfo<CL_DEVICE_TYPE>());
            i.opencl_c = devs[d].getInfo<CL_DEVICE_OPENCL_C_VERSION>();
            i.compute_units = devs[d].getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
            i.max_wg = devs[d].getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
            i.local_mem = devs[d].getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
            i.subgroups = has_subgroups(devs[d]);
            i.device = devs[d];
            out.push_back(i);
        }
    }
    if (out.empty())
        throw UsageError("no OpenCL device found: install POCL (sudo apt-get install "
                         "pocl-opencl-icd) or a GPU's OpenCL driver");
    return out;
}
}  // namespace

std::vector<DeviceInfo> all_devices() { return devices_of(Drivers::All, "a list of every device"); }
void load_drivers_on_demand() { on_demand = true; }

void list_devices(std::ostream &os) {
    const auto devs = all_devices();
    int cw = 10;
    for (const auto &d : devs) cw = std::max(cw, static_cast<int>(d.opencl_c.size()) + 2);
    os << std::left << std::setw(6) << "spec" << std::setw(8) << "type" << std::setw(6) << "CUs"
       << std::setw(8) << "max wg" << std::setw(11) << "local KiB" << std::setw(cw) << "OpenCL C"
       << std::setw(11) << "subgroups" << "platform / device\n";
    for (const auto &d : devs)
        os << std::left << std::setw(6) << d.spec() << std::setw(8) << d.type << std::setw(6)
           << d.compute_units << std::setw(8) << d.max_wg << std::setw(11) << d.local_mem / 1024
           << std::setw(cw) << d.opencl_c << std::setw(11) << (d.subgroups ? "yes" : "no")
           << d.platform << " / " << d.name << "\n";
}

DeviceInfo select_device(const std::string &spec_in) {
    std::string spec = spec_in;
    if (spec.empty()) {
        const char *env = std::getenv(env::kDevice);
        if (env) spec = env;
    }
    const auto devs = devices_of(on_demand ? drivers_for(spec) : Drivers::All,
                                 "--device '" + spec + "'");
    if (spec.empty()) {
        for (const auto &d : devs)
            if (d.is_pocl() && d.is_cpu()) return d;
        for (const auto &d : devs)
            if (!d.is_oclgrind()) return d;
        return devs.front();
    }
    const auto colon = spec.find(':');
    if (colon != std::string::npos && colon > 0 &&
        spec.find_first_not_of("0123456789:") == std::string::npos) {
        for (const auto &d : devs)
            if (d.spec() == spec) return d;
    } else {
        // Every device the name could mean; one that a field names in full wins over those that
        // only contain it.
        const std::string want = lower(spec);
        std::vector<const DeviceInfo *> some, whole;
        for (const auto &d : devs) {
            bool contains = false, equals = false;
            for (const std::string &field : {d.platform, d.name, d.platform_version, d.vendor}) {
                contains |= lower(field).find(want) != std::string::npos;
                equals |= lower(field) == want;
            }
            if (contains) some.push_back(&d);
            if (equals) whole.push_back(&d);
        }
        if (some.size() == 1) return *some.front();
        if (whole.size() == 1) return *whole.front();
        if (!some.empty()) {
            std::ostringstream msg;
            msg << "--device '" << spec << "' matches " << some.size() << " devices:";
            for (const auto *d : some) msg << " [" << d->spec() << " " << d->platform << " / " << d->name << "]";
            msg << ": use --device P:D to choose one";
            throw UsageError(msg.str());
        }
    }
    std::ostringstream msg;
    msg << "no device matches '" << spec << "': use --device with one of";
    for (const auto &d : devs) msg << " [" << d.spec() << " " << d.platform << " / " << d.name << "]";
    throw UsageError(msg.str());
}

// Oclgrind reports every error only up to OCLGRIND_MAX_ERRORS (1000 by default) in a whole
// process: a demonstration's reports could use them up before the next variant runs.
static constexpr long kOclgrindMaxErrors = 10000;

namespace {
std::mutex shared_mutex;
std::map<cl_device_id, cl::Context> &shared_contexts() {
    static auto *made = new std::map<cl_device_id, cl::Context>();  // never released: see Env
    return *made;
}
cl::Context shared(const cl::Device &device) {
    std::lock_guard<std::mutex> lock(shared_mutex);
    auto &made = shared_contexts();
    auto it = made.find(device());
    if (it == made.end()) it = made.emplace(device(), cl::Context(device)).first;
    return it->second;
}
}  // namespace

bool is_shared_context(const cl::Context &ctx) {
    std::lock_guard<std::mutex> lock(shared_mutex);
    for (const auto &[device, context] : shared_contexts())
        if (context() == ctx()) return true;
    return false;
}

Env::Env(const DeviceInfo &d, const std::vector<std::string> &oclgrind_off, bool memory_model)
    : info(d) {
    // Oclgrind reads its settings when a context is made: set them for that moment only, so
    // that they never leak into a later Env or a child process.
    std::vector<std::string> ours;
    auto set = [&](const std::string &name, const std::string &value) {
        if (std::getenv(name.c_str())) return;  // the caller's setting wins
        setenv(name.c_str(), value.c_str(), 1);
        ours.push_back(name);
    };
    if (d.is_oclgrind()) {
        for (std::string check : oclgrind_off) {
            std::transform(check.begin(), check.end(), check.begin(),
                           [](unsigned char c) { return c == '-' ? '_' : std::toupper(c); });
            set("OCLGRIND_" + check, "0");
        }
        for (const char *check : {"OCLGRIND_DATA_RACES", "OCLGRIND_UNIFORM_WRITES",
                                  "OCLGRIND_UNINITIALIZED"})
            set(check, "1");
        // Each context's cap lies one run's errors past what earlier runs of this process counted,
        // so a run reports as much as it would alone.
        oclgrind_errors_before = oclgrind_errors_counted();
        set("OCLGRIND_MAX_ERRORS", std::to_string(std::max(0L, oclgrind_errors_before) + kOclgrindMaxErrors));
        if (memory_model) {
            const std::string plugin = hbcheck_plugin();
            const char *others = std::getenv("OCLGRIND_PLUGINS");
            if (plugin.empty()) {
                hbcheck_missing = std::getenv(env::kHbcheck)
                    ? env::kHbcheck + ("=" + std::string(std::getenv(env::kHbcheck))) +
                          " names no plugin file: unset it to use the built one"
                    : "hbcheck, the fence check, was not built: install the Debian packages "
                      "liboclgrind-dev and llvm-14-dev and build again";
            } else if (!others || !*others) {
                set("OCLGRIND_PLUGINS", plugin);
                hbcheck = plugin;
            } else if (std::string(others).find(plugin) != std::string::npos) {
                hbcheck = plugin;
            } else {
                hbcheck_missing = "OCLGRIND_PLUGINS names other plugins: hbcheck was not loaded";
            }
        }
        const char *given = std::getenv("OCLGRIND_LOG");
        struct stat st {};
        if (given && *given && stat(given, &st) == 0 && S_ISFIFO(st.st_mode))
            throw UsageError(std::string("OCLGRIND_LOG=") + given + " is a FIFO, which Oclgrind "
                             "would wait on for a reader: give a regular file");
        if (given && *given) {
            oclgrind_log = given;
        } else {
            // Oclgrind quotes source text one line off (it indexes our #line-prefixed source),
            // so its raw reports go to a file and the lab tells them in one line each.
            const char *tmp = std::getenv("TMPDIR");
            std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/synclab-oclgrind-XXXXXX";
            const int fd = mkstemp(path.data());
            if (fd >= 0) {
                close(fd);
                oclgrind_log = path;
                own_log_ = true;
                setenv("OCLGRIND_LOG", path.c_str(), 1);
                ours.push_back("OCLGRIND_LOG");
            }
        }
    }
    try {
        context = d.is_oclgrind() ? cl::Context(d.device) : shared(d.device);
    } catch (...) {
        for (const auto &name : ours) unsetenv(name.c_str());
        if (own_log_) unlink(oclgrind_log.c_str());
        throw;
    }
    for (const auto &name : ours) unsetenv(name.c_str());
    queue = Queue(cl::CommandQueue(context, d.device, CL_QUEUE_PROFILING_ENABLE));
}

Env::~Env() {
    if (own_log_) {
        std::error_code ec;
        fs::remove(oclgrind_log, ec);
    }
}

std::string Env::new_oclgrind_log() {
    if (oclgrind_log.empty()) return "";
    queue.finish();
    // O_NONBLOCK and the check for a regular file: a FIFO or a terminal is never waited on.
    const int fd = open(oclgrind_log.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return "";
    struct stat st {};
    std::string text;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        const auto size = static_cast<std::uint64_t>(st.st_size);
        if (size < log_read_) log_read_ = 0;  // the caller's file was started again
        const std::uint64_t limit = std::min(size, kMaxOclgrindLog);
        const std::uint64_t want = limit > log_read_ ? limit - log_read_ : 0;
        text.resize(want);
        std::size_t got = 0;
        while (got < want) {
            const ssize_t n = pread(fd, text.data() + got, want - got,
                                    static_cast<off_t>(log_read_ + got));
            if (n <= 0) break;
            got += static_cast<std::size_t>(n);
        }
        text.resize(got);
        // Only whole lines: a report still being written is read next time.
        const auto end = text.rfind('\n');
        text.resize(end == std::string::npos ? 0 : end + 1);
        log_read_ += text.size();
    }
    close(fd);
    return text;
}

}  // namespace synclab
