#include "synclab/kernels.hpp"

#include <algorithm>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "synclab/errors.hpp"

namespace fs = std::filesystem;

namespace synclab {

std::vector<std::string> kernel_search_path(const std::string &dir) {
    if (!dir.empty()) return {dir};  // asked for explicitly: nothing else is tried
    std::vector<std::string> out;
    if (const char *env = std::getenv("SYNCLAB_KERNELS"); env && *env) return {env};
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

std::string find_kernel_file(const std::string &file, const std::string &dir) {
    std::string tried;
    std::error_code ec;
    for (const auto &d : kernel_search_path(dir)) {
        const fs::path p = fs::path(d) / file;
        if (fs::is_regular_file(p, ec)) return p.lexically_normal().string();
        tried += (tried.empty() ? "" : ", ") + p.lexically_normal().string();
    }
    throw UsageError("kernel file " + file + " not found (tried " + tried +
                     "): give the folder with --kernels DIR or SYNCLAB_KERNELS");
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
    std::ifstream in(path, std::ios::binary);
    if (!in) throw UsageError("cannot read kernel file " + path + ": check its permissions");
    std::ostringstream text;
    text << in.rdbuf();
    std::string shown;
    for (char c : display_path(path)) {
        if (c == '"' || c == '\\') shown += '\\';
        shown += c;
    }
    return "#line 1 \"" + shown + "\"\n" + text.str();
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

static cl::Program build(const cl::Context &ctx, const cl::Device &dev, const std::string &source,
                         const std::string &shown, const std::string &options) {
    cl::Program prog(ctx, source);
    try {
        QuietStderr quiet;
        prog.build({dev}, options.c_str());
    } catch (const cl::Error &e) {
        if (e.err() != CL_BUILD_PROGRAM_FAILURE && e.err() != CL_COMPILE_PROGRAM_FAILURE) throw;
        std::string log = prog.getBuildInfo<CL_PROGRAM_BUILD_LOG>(dev);
        while (!log.empty() && (log.back() == '\n' || log.back() == ' ')) log.pop_back();
        // Oclgrind's compiler ignores the #line directive and says input.cl, one line late.
        static const std::regex unnamed(R"(input\.cl:(\d+):)");
        std::string fixed;
        auto it = log.cbegin();
        for (std::sregex_iterator m(log.begin(), log.end(), unnamed), end; m != end; ++m) {
            fixed.append(it, (*m)[0].first);
            fixed += shown + ":" + std::to_string(std::max(1, std::stoi((*m)[1]) - 1)) + ":";
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
                const std::string hint = known_cause(source, std::stoi(m[2].str()));
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
    return prog;
}

cl::Program build_program(const cl::Context &ctx, const cl::Device &dev, const std::string &file,
                          const std::string &dir, const std::string &options) {
    const std::string path = find_kernel_file(file, dir);
    return build(ctx, dev, read_with_line_directive(path), display_path(path), options);
}

cl::Program build_source(const cl::Context &ctx, const cl::Device &dev, const std::string &source,
                         const std::string &name) {
    return build(ctx, dev, "#line 1 \"" + name + "\"\n" + source, name, "");
}

void check_launch(const cl::Kernel &k, const cl::Device &dev, std::size_t wg,
                  std::size_t local_bytes) {
    const std::size_t dev_max = dev.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
    const std::size_t k_max = k.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(dev);
    const std::size_t max = std::min(dev_max, k_max);
    if (wg > max)
        throw UsageError("work-group size " + std::to_string(wg) + " is above this device's " +
                         "maximum of " + std::to_string(max) + " for kernel " +
                         k.getInfo<CL_KERNEL_FUNCTION_NAME>() + ": use --wg " +
                         std::to_string(max) + " or less");
    const cl_ulong local = dev.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
    const cl_ulong used = k.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(dev);
    if (local_bytes + used > local)
        throw UsageError(std::to_string(local_bytes) + " bytes of local memory per work-group " +
                         "do not fit in the device's " + std::to_string(local) +
                         ": use a smaller --wg");
}

}  // namespace synclab
