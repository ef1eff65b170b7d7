#include "synclab/kernels.hpp"

#include <algorithm>
#include <cstdio>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <tuple>
#include <sstream>

#include "synclab/device.hpp"
#include "synclab/environment.hpp"
#include "synclab/errors.hpp"

namespace fs = std::filesystem;

namespace synclab {

std::vector<std::string> kernel_search_path(const std::string &dir) {
    if (!dir.empty()) return {dir};  // asked for explicitly: nothing else is tried
    std::vector<std::string> out;
    if (const char *env = std::getenv(env::kKernels); env && *env) return {env};
    // build/bin/labNN -> build/kernels, then <source>/kernels: a build folder copied beside
    // the source tree (or to another machine) still finds it.
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        fs::path p = exe.parent_path();
        for (int up = 0; up < 4 && !p.empty(); ++up, p = p.parent_path()) {
            out.push_back((p / "kernels").string());
            if (p == p.root_path()) break;
        }
    }
    const std::string baked = std::string(SYNCLAB_SOURCE_DIR) + "/kernels";
    if (std::find(out.begin(), out.end(), baked) == out.end()) out.push_back(baked);
    return out;
}

// What a path is when it is no regular file: "a FIFO", "a folder", ...
static const char *what_it_is(mode_t mode) {
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

static UsageError not_a_kernel_file(const std::string &path, mode_t mode) {
    return UsageError(path + " is " + what_it_is(mode) +
                      ", not a kernel file: hand in a regular .cl file");
}

std::string find_kernel_file(const std::string &file, const std::string &dir) {
    std::string tried;
    for (const auto &d : kernel_search_path(dir)) {
        const std::string p = (fs::path(d) / file).lexically_normal().string();
        // stat, never open: opening a FIFO would wait for a writer.
        struct stat st {};
        if (stat(p.c_str(), &st) == 0) {
            if (!S_ISREG(st.st_mode)) throw not_a_kernel_file(p, st.st_mode);
            if (st.st_size == 0)
                throw UsageError(p + " is empty: hand in the .cl file with its kernels in it");
            return p;
        }
        struct stat ds {};
        if (!dir.empty() && stat(d.c_str(), &ds) == 0 && !S_ISDIR(ds.st_mode))
            throw UsageError("--kernels " + d + " is " +
                             (S_ISREG(ds.st_mode) ? std::string("a file") : what_it_is(ds.st_mode)) +
                             ", not a folder: give the folder that holds " + file);
        tried += (tried.empty() ? "" : ", ") + p;
    }
    throw UsageError("kernel file " + file + " not found (tried " + tried +
                     "): give the folder with --kernels DIR or " + std::string(env::kKernels));
}

std::string display_path(const std::string &path) {
    std::error_code ec;
    const fs::path abs = fs::absolute(path, ec);
    const fs::path cwd = fs::current_path(ec);
    const fs::path rel = abs.lexically_normal().lexically_relative(cwd);
    if (!rel.empty() && *rel.begin() != "..") return rel.string();
    return abs.lexically_normal().string();
}

std::string read_with_line_directive(const std::string &path) {
    // O_NONBLOCK and a check of what was opened: a path swapped for a FIFO after
    // find_kernel_file() looked is still never waited on.
    const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) throw UsageError("cannot read kernel file " + path + ": check its permissions");
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        throw not_a_kernel_file(path, st.st_mode);
    }
    std::string text;
    char buf[65536];
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) != 0;) {
        if (n < 0) {
            if (errno == EINTR) continue;
            close(fd);
            throw UsageError("cannot read kernel file " + path + ": " + std::strerror(errno));
        }
        text.append(buf, static_cast<std::size_t>(n));
    }
    close(fd);
    if (text.empty()) throw UsageError(path + " is empty: hand in the .cl file with its kernels in it");
    std::string shown;
    for (char c : display_path(path)) {
        if (c == '"' || c == '\\') shown += '\\';
        shown += c;
    }
    return "#line 1 \"" + shown + "\"\n" + text;
}

// POCL's compiler writes "N errors generated." to stderr itself; the build log holds everything,
// and a lab's error stays one line.
struct QuietStderr {
    int saved = -1;
    QuietStderr() {
        std::fflush(stderr);
        saved = dup(2);
        const int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, 2);
            close(null);
        }
    }
    ~QuietStderr() {
        if (saved < 0) return;
        std::fflush(stderr);
        dup2(saved, 2);
        close(saved);
    }
};

// The hint for a first error whose cause the compiler does not name, from the source line it
// is on (`line` of the file; the source starts with our #line directive); "" when none.
static std::string known_cause(const std::string &source, int line) {
    std::istringstream in(source);
    std::string text;
    for (int n = 0; n <= line; ++n)
        if (!std::getline(in, text)) return "";
    // A variable named half: "cannot combine with previous 'int' declaration specifier".
    static const std::regex half_variable(R"(\bhalf\s*([=;,\[\]+*/<>-]|$))"),
        half_cast(R"(\(\s*half\s*\))");
    if (std::regex_search(text, half_variable) && !std::regex_search(text, half_cast))
        return "half is a type name in OpenCL C: rename the variable, e.g. to halfSize";
    return "";
}

// Where line `n` of `text` comes from by its #line directives, "" before any.
static std::string line_origin(const std::string &text, int n) {
    static const std::regex directive(R"re(^\s*#\s*line\s+(\d+)\s+"((?:[^"\\]|\\.)*)")re");
    std::istringstream in(text);
    std::string file;
    long next = 0;
    int physical = 0;
    for (std::string l; std::getline(in, l) && ++physical <= n;) {
        std::smatch m;
        if (std::regex_search(l, m, directive)) {
            file = m[2];
            next = std::stol(m[1]);
        } else if (physical == n) {
            return file.empty() ? "" : file + ":" + std::to_string(next);
        } else {
            ++next;
        }
    }
    return "";
}

// `original`: the file's own text behind its #line directive, for hints read from its lines.
static cl::Program build(const cl::Context &ctx, const cl::Device &dev, const std::string &source,
                         const std::string &shown, const std::string &options,
                         const std::string &original) {
    // A shared context keeps what was built in it: the same text with the same options is the
    // same program. (Another context would be kept alive by its programs.)
    using Key = std::tuple<cl_context, cl_device_id, std::string, std::string>;
    static std::mutex built_mutex;
    static auto *built = new std::map<Key, cl::Program>();  // never released, as the context
    const bool keep = is_shared_context(ctx);
    const Key key{ctx(), dev(), source, options};
    if (keep) {
        std::lock_guard<std::mutex> lock(built_mutex);
        if (auto it = built->find(key); it != built->end()) return it->second;
    }
    cl::Program prog(ctx, source);
    try {
        QuietStderr quiet;
        Building now(shown);
        prog.build({dev}, options.c_str());
    } catch (const cl::Error &e) {
        if (e.err() != CL_BUILD_PROGRAM_FAILURE && e.err() != CL_COMPILE_PROGRAM_FAILURE) throw;
        std::string log = prog.getBuildInfo<CL_PROGRAM_BUILD_LOG>(dev);
        while (!log.empty() && (log.back() == '\n' || log.back() == ' ')) log.pop_back();
        // Oclgrind's compiler ignores #line directives and says input.cl: the text's own line.
        static const std::regex unnamed(R"(input\.cl:(\d+):)");
        std::string fixed;
        auto it = log.cbegin();
        for (std::sregex_iterator m(log.begin(), log.end(), unnamed), end; m != end; ++m) {
            fixed.append(it, (*m)[0].first);
            const std::string from = line_origin(source, std::stoi((*m)[1]));
            fixed += (from.empty() ? shown + ":" + (*m)[1].str() : from) + ":";
            it = (*m)[0].second;
        }
        fixed.append(it, log.cend());
        log = fixed;
        // The first error, for the machine-readable verdict. POCL writes "error: file:line:col:
        // text", clang (Oclgrind) "file:line:col: error: text".
        static const std::regex pocl(R"(^error: (.+?):(\d+):\d+: (.*)$)"),
            clang(R"(^(.+?):(\d+):\d+: error: (.*)$)"), count(R"( *\d+ errors? generated\.?)");
        std::string where, what;
        int errors = 0;
        std::istringstream lines(log);
        for (std::string l; std::getline(lines, l);) {
            std::smatch m;
            if (!std::regex_match(l, m, pocl) && !std::regex_match(l, m, clang)) continue;
            if (errors++) continue;
            where = m[1].str() + ":" + m[2].str();
            what = std::regex_replace(m[3].str(), count, "");
            if (m[1].str() == shown) {
                const std::string hint = known_cause(original, std::stoi(m[2].str()));
                if (!hint.empty()) what += " (" + hint + ")";
            }
        }
        if (!where.empty()) {
            const std::string more =
                errors > 1 ? " (and " + std::to_string(errors - 1) + " more; fix this one first)" : "";
            throw BuildError(where + ": error: " + what + more, where, what, log);
        }
        throw BuildError("building " + shown + " failed; the compiler said:\n" + log, "", "", log);
    }
    if (keep) {
        std::lock_guard<std::mutex> lock(built_mutex);
        built->emplace(key, prog);
    }
    return prog;
}

cl::Program build_program(const cl::Context &ctx, const cl::Device &dev, const std::string &file,
                          const std::string &dir, const std::string &options,
                          const std::string &prelude) {
    const std::string path = find_kernel_file(file, dir);
    const std::string text = read_with_line_directive(path);
    return build(ctx, dev, prelude + text, display_path(path), options, text);
}

cl::Program build_program_text(const cl::Context &ctx, const cl::Device &dev, const std::string &path,
                               const std::string &text, const std::string &options,
                               const std::string &prelude) {
    return build(ctx, dev, prelude + text, display_path(path), options, read_with_line_directive(path));
}

cl::Program build_source(const cl::Context &ctx, const cl::Device &dev, const std::string &source,
                         const std::string &name) {
    const std::string text = "#line 1 \"" + name + "\"\n" + source;
    return build(ctx, dev, text, name, "", text);
}

WorkGroupFit work_group_fit(std::size_t wg, std::size_t device_max, std::size_t kernel_reported) {
    if (wg > device_max) return WorkGroupFit::AboveDevice;
    if (wg > kernel_reported) return WorkGroupFit::AboveKernelReport;
    return WorkGroupFit::Fits;
}

void check_launch(const cl::Kernel &k, const cl::Device &dev, std::size_t wg,
                  std::size_t local_bytes) {
    const std::size_t dev_max = dev.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
    const std::size_t k_max = k.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(dev);
    switch (work_group_fit(wg, dev_max, k_max)) {
        case WorkGroupFit::AboveDevice:
            throw Unsupported("work-group size " + std::to_string(wg) + " is above this device's " +
                              "maximum of " + std::to_string(dev_max) + ": use --wg " +
                              std::to_string(dev_max) + " or less" +
                              (k_max < dev_max ? " (kernel " + k.getInfo<CL_KERNEL_FUNCTION_NAME>() +
                                                     " reports " + std::to_string(k_max) + ")"
                                               : std::string()));
        case WorkGroupFit::AboveKernelReport:
            note_kernel_limit(k.getInfo<CL_KERNEL_FUNCTION_NAME>(), k_max);
            break;
        case WorkGroupFit::Fits: break;
    }
    // The kernel's own __local arrays (its arguments' are not set yet) plus what the launch
    // gives it per work-group.
    const cl_ulong local = dev.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
    const cl_ulong own = k.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(dev);
    const cl_ulong need = local_bytes + own;
    if (need <= local) return;
    const std::string name = k.getInfo<CL_KERNEL_FUNCTION_NAME>();
    std::string parts = std::to_string(local_bytes) + " for --wg " + std::to_string(wg);
    if (own) parts += " and " + std::to_string(own) + " the kernel declares itself";
    const std::string says = "kernel " + name + " needs " + std::to_string(need) +
                             " bytes of local memory per work-group (" + parts +
                             "), more than this device's " + std::to_string(local) + ": ";
    // The largest power of two below wg that fits, if the part that grows with wg is the
    // trouble; the kernel's own arrays do not shrink with --wg.
    const cl_ulong per_item = wg ? local_bytes / wg : 0;
    std::size_t fits = 0;
    if (per_item && own < local)
        for (std::size_t w = 1; w < wg && w * per_item + own <= local; w *= 2) fits = w;
    if (fits)
        throw UsageError(says + "use --wg " + std::to_string(fits) + " or less");
    throw UsageError(says + "make the kernel's own __local arrays smaller (--wg does not change "
                            "them), or size them from get_local_size(0) through a __local argument");
}

}  // namespace synclab
