#include "synclab/program_text.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <atomic>
#include <cstdint>
#include <iterator>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>
#include <unistd.h>

#include "synclab/errors.hpp"
#include "synclab/protocol.hpp"
#include "synclab/kernels.hpp"
#include "synclab/process.hpp"

#include "ir_rules.hpp"
#include "local_arrays.hpp"
#include "text_cache.hpp"

#ifndef SYNCLAB_CLANG
#define SYNCLAB_CLANG "/usr/bin/clang-14"
#endif

namespace fs = std::filesystem;
using synclab::text_cache::cached;
using synclab::text_cache::keep;

namespace synclab {

namespace {

// OpenCL 1.2's common extensions: every profile has them.
const std::vector<std::string> kBaseExtensions{
    "cl_khr_byte_addressable_store",      "cl_khr_global_int32_base_atomics",
    "cl_khr_global_int32_extended_atomics", "cl_khr_local_int32_base_atomics",
    "cl_khr_local_int32_extended_atomics", "cl_khr_int64_base_atomics",
    "cl_khr_int64_extended_atomics",      "cl_khr_fp64"};

std::vector<std::string> with(std::vector<std::string> v, const std::vector<std::string> &more) {
    v.insert(v.end(), more.begin(), more.end());
    return v;
}

}  // namespace

const std::vector<Profile> &profiles() {
    // POCL 3.1's CPU device: its extensions and OpenCL C 3.0 features as clinfo lists them.
    static const std::vector<Profile> all{
        {"opencl-3.0", "OpenCL 3.0 (POCL on a CPU)", 300, with(kBaseExtensions, {"cl_khr_3d_image_writes"}),
         {"__opencl_c_3d_image_writes", "__opencl_c_images", "__opencl_c_atomic_order_acq_rel",
          "__opencl_c_atomic_order_seq_cst", "__opencl_c_atomic_scope_device",
          "__opencl_c_read_write_images", "__opencl_c_int64", "__opencl_c_fp64"}},
        {"opencl-1.2", "OpenCL 1.2 (Oclgrind 21.10, NVIDIA's driver)", 120, kBaseExtensions, {}},
    };
    return all;
}

const Profile *find_profile(const std::string &name) {
    for (const auto &p : profiles())
        if (p.name == name) return &p;
    return nullptr;
}

const Profile *active_profile() {
    const char *name = std::getenv(protocol::kProfile);
    if (!name || !*name) return nullptr;
    if (const Profile *p = find_profile(name)) return p;
    std::string names;
    for (const auto &p : profiles()) names += (names.empty() ? "" : ", ") + p.name;
    throw UsageError(protocol::kProfile + ("=" + std::string(name)) + " names no profile: use one of " + names);
}

namespace {

// What a build's options say to the preprocessor.
struct BuildOptions {
    int c_version = 120;  // -cl-std, else OpenCL C 1.2 (what every device builds by default)
    std::vector<std::string> defines;  // -D and -U, as clang takes them
};

BuildOptions parse_options(const std::string &options) {
    BuildOptions b;
    std::istringstream in(options);
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string &w = words[i];
        if ((w == "-D" || w == "-U") && i + 1 < words.size()) {
            b.defines.push_back(w + words[++i]);
        } else if (w.rfind("-D", 0) == 0 || w.rfind("-U", 0) == 0) {
            b.defines.push_back(w);
        } else if (w.rfind("-cl-std=CL", 0) == 0) {
            const std::string v = w.substr(10);  // "2.0"
            b.c_version = static_cast<int>(std::atof(v.c_str()) * 100 + 0.5);
        } else if (w == "-cl-fast-relaxed-math") {
            b.defines.push_back("-D__FAST_RELAXED_MATH__=1");
        }
    }
    return b;
}

std::string clang_path() {
    const char *env = std::getenv("SYNCLAB_CLANG");
    return env && *env ? env : SYNCLAB_CLANG;
}

// clang's arguments for the profile's macros and nothing else: no predefined macro of clang's
// own, no header, no system include folder.
std::vector<std::string> macro_arguments(const Profile &p, const BuildOptions &b) {
    const int c = b.c_version;
    std::vector<std::string> a{"-x", "cl", "-undef", "-nostdinc", "-cl-no-stdinc",
                               "-cl-std=CL" + std::to_string(c / 100) + "." + std::to_string(c / 10 % 10)};
    a.push_back("-D__OPENCL_VERSION__=" + std::to_string(p.version));
    for (int v : {200, 210, 220, 300})
        if (v > p.version) a.push_back("-UCL_VERSION_" + std::to_string(v / 100) + "_" + std::to_string(v / 10 % 10));
    a.push_back("-D__IMAGE_SUPPORT__=1");
    for (const char *clangs : {"__GCC_HAVE_DWARF2_CFI_ASM", "__STDC_HOSTED__", "__STDC_UTF_16__",
                               "__STDC_UTF_32__"})
        a.push_back(std::string("-U") + clangs);
    for (const auto &e : p.extensions) a.push_back("-D" + e + "=1");
    if (c >= 300)
        for (const auto &f : p.features) a.push_back("-D" + f + "=1");
    a.insert(a.end(), b.defines.begin(), b.defines.end());
    return a;
}

ProcessResult run_clang(std::vector<std::string> args) {
    args.insert(args.begin(), clang_path());
    if (access(args.front().c_str(), X_OK) != 0)
        throw UsageError("graded runs preprocess kernels with clang, and " + args.front() +
                         " is missing: install clang-14 (sudo apt-get install clang-14) or set "
                         "SYNCLAB_CLANG");
    ProcessLimits limits;
    limits.timeout_s = 60;
    limits.max_output = 16 << 20;
    return run_process(args, {{"LC_ALL", "C"}}, limits);
}

// The first error clang wrote, as a BuildError naming file:line.
BuildError first_error(const std::string &err, const std::string &fallback) {
    static const std::regex error(R"(^(.+?):(\d+):\d+: (?:fatal )?error: (.*)$)");
    std::istringstream in(err);
    for (std::string l; std::getline(in, l);) {
        std::smatch m;
        if (!std::regex_match(l, m, error)) continue;
        const std::string where = m[1].str() + ":" + m[2].str();
        return BuildError(where + ": error: " + m[3].str(), where, m[3].str(), "");
    }
    return BuildError(fallback, "", fallback, "");
}

// Whether `name` (as an #include names it, from a file in `from`) is a file directly in `folder`.
bool beside(const std::string &name, const fs::path &folder, const fs::path &from) {
    std::error_code ec;
    const fs::path p = fs::path(name).is_absolute() ? fs::path(name) : fs::absolute(from / name, ec);
    const fs::path rel = fs::weakly_canonical(p, ec).lexically_relative(folder);
    return !ec && !rel.empty() && rel.is_relative() && *rel.begin() != ".." && rel.parent_path().empty();
}

// Every file clang opened (-H), each one a file handed in beside the kernel, or the refusal.
void check_included(const std::string &err, const std::string &shown, const fs::path &folder) {
    static const std::regex opened(R"(^\.+ (.*)$)");
    std::istringstream in(err);
    for (std::string l; std::getline(in, l);) {
        std::smatch m;
        if (!std::regex_match(l, m, opened)) continue;
        if (beside(m[1].str(), folder, "")) continue;
        const std::string what = shown + ": error: #include of " + m[1].str() +
                                 " is refused: a kernel may include only a file handed in beside it";
        throw RefusedSource(what, shown, "#include of " + m[1].str() + " is refused: a kernel may include only a file handed in beside it", "");
    }
}

bool keep_reserved(const std::string &id) {
    static const std::set<std::string> keywords{
        "__kernel", "__global", "__local", "__constant", "__private", "__generic", "__read_only",
        "__write_only", "__read_write", "__attribute__", "__restrict", "__inline", "__const",
        "__volatile", "__signed", "__alignof__", "__typeof__"};
    return keywords.count(id) || id.rfind("__builtin_", 0) == 0 || id.rfind("__opencl_c_", 0) == 0;
}

bool starts_nocase(const std::string &id, const char *prefix) {
    for (std::size_t i = 0; prefix[i]; ++i)
        if (i >= id.size() || std::tolower(static_cast<unsigned char>(id[i])) != prefix[i]) return false;
    return true;
}

// An identifier some compiler may define as a macro of its own, or the grader's machinery may:
// reserved names, an implementation's or the grader's prefix, extension names.
bool implementation_name(const std::string &id) {
    if (id == "defined") return false;
    if (id.size() > 1 && id[0] == '_' && (id[1] == '_' || std::isupper(static_cast<unsigned char>(id[1]))))
        return !keep_reserved(id);
    for (const char *prefix : {"pocl", "synclab", "cl_", "oclgrind", "nv_", "amd_", "intel_"})
        if (starts_nocase(id, prefix)) return true;
    return id == "linux" || id == "unix" || id == "i386" || id.rfind("FP_FAST_FMA", 0) == 0;
}

// clang -E's output as program text: line markers as #line directives, and #undef first for
// every identifier left that a compiler could still expand.
std::string as_program(const std::string &pre) {
    std::string body;
    std::set<std::string> hidden;
    static const std::regex marker(R"re(^# (\d+) ("(?:[^"\\]|\\.)*")(.*)$)re");
    bool builtin = false;
    std::istringstream in(pre);
    for (std::string l; std::getline(in, l);) {
        std::smatch m;
        if (std::regex_match(l, m, marker)) {
            builtin = m[2].str().rfind("\"<", 0) == 0;
            if (!builtin) body += "#line " + m[1].str() + " " + m[2].str() + "\n";
            continue;
        }
        if (builtin) continue;
        if (l.rfind("#", 0) != 0) {  // code: its identifiers, outside literals
            char quote = 0;
            for (std::size_t i = 0; i < l.size(); ++i) {
                const char c = l[i];
                if (quote) {
                    if (c == '\\') ++i;
                    else if (c == quote) quote = 0;
                } else if (c == '"' || c == '\'') {
                    quote = c;
                } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
                    std::size_t j = i;
                    while (j < l.size() && (std::isalnum(static_cast<unsigned char>(l[j])) || l[j] == '_')) ++j;
                    const bool number = i > 0 && (std::isdigit(static_cast<unsigned char>(l[i - 1])) || l[i - 1] == '.');
                    const std::string id = l.substr(i, j - i);
                    if (!number && implementation_name(id)) hidden.insert(id);
                    i = j - 1;
                }
            }
        }
        body += l + "\n";
    }
    // Contraction off, as every check's compiler then rounds a * b + c the same way (ir_rules
    // refuses a text that turns it on again).
    std::string head = "#pragma OPENCL FP_CONTRACT OFF\n";
    for (const auto &id : hidden) head += "#undef " + id + "\n";
    return head + body;
}

// The text's LLVM IR at -O0 (nothing the kernel wrote folded away), with lines: what a graded
// kernel may not compute (ir_rules.hpp), and its __local arrays against the limit.
void check_ir(const std::string &text, const BuildOptions &b, const std::string &shown,
              std::size_t limit) {
    const char *tmp = std::getenv("TMPDIR");
    std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/synclab-text-XXXXXX.cl";
    std::vector<char> name(path.begin(), path.end());
    name.push_back('\0');
    const int fd = mkstemps(name.data(), 3);
    if (fd < 0) throw BuildError(shown + ": error: no temporary file for the kernel's IR (" +
                                     std::strerror(errno) + "): set TMPDIR to a writable folder",
                                 shown, "no temporary file for the kernel's IR", "");
    close(fd);
    std::ofstream(name.data(), std::ios::binary) << text;
    const int c = b.c_version;
    const ProcessResult ir = run_clang(
        {"-x", "cl", "-cl-std=CL" + std::to_string(c / 100) + "." + std::to_string(c / 10 % 10),
         "-Xclang", "-fdeclare-opencl-builtins", "-Xclang", "-finclude-default-header",
         "-target", "spir64", "-O0", "-gline-tables-only", "-emit-llvm", "-S", "-w", "-o", "-",
         name.data()});
    unlink(name.data());
    // A text clang cannot build is never run unchecked: its first error, file:line.
    if (!ir.exited || ir.exit_code != 0) {
        const BuildError e = first_error(ir.err, shown + ": error: the kernel does not build (" + ir.describe() + ")");
        throw BuildError(e.what(), e.where, e.first_error, ir.err);
    }
    ir_rules::check(ir.out, shown);
    if (local_arrays::may_declare(text) && !local_arrays::plainly_within(text, limit))
        local_arrays::check_ir(ir.out, shown, limit);
}

std::string preprocess(const std::string &path, const BuildOptions &b, const Profile &p) {
    const std::string shown = display_path(path);
    std::vector<std::string> args = macro_arguments(p, b);
    // The macros whose value is the moment or the place of the build: one value for every check.
    const std::string file = "\"" + fs::path(path).filename().string() + "\"";
    for (const std::string &d : std::vector<std::string>{"__DATE__=\"Jan  1 2000\"", "__TIME__=\"00:00:00\"",
                                 "__TIMESTAMP__=\"Sat Jan  1 00:00:00 2000\"", "__FILE__=" + file,
                                 "__BASE_FILE__=" + file, "__FILE_NAME__=" + file})
        args.push_back("-D" + d);
    args.insert(args.end(), {"-Wno-builtin-macro-redefined", "-E", "-H", "-fno-color-diagnostics",
                             "-ferror-limit=1", shown});
    const ProcessResult r = run_clang(args);
    std::error_code ec;
    const fs::path folder = fs::weakly_canonical(fs::absolute(path).parent_path(), ec);
    check_included(r.err, shown, folder);
    if (r.timed_out) throw BuildError(shown + ": error: preprocessing took over a minute", shown, "preprocessing took over a minute", "");
    // A file outside the folder that is not there (or not visible in the sandbox) is refused
    // all the same: whether it exists is no business of a kernel's.
    static const std::regex missing(R"(^(.+?):(\d+):\d+: fatal error: '(.+)' file not found$)");
    std::smatch m;
    std::istringstream err(r.err);
    for (std::string l; std::getline(err, l);)
        if (std::regex_match(l, m, missing) && !beside(m[3], folder, fs::path(m[1].str()).parent_path()))
            throw RefusedSource(m[1].str() + ":" + m[2].str() + ": error: #include of " + m[3].str() +
                                    " is refused: a kernel may include only a file handed in beside it",
                                m[1].str() + ":" + m[2].str(),
                                "#include of " + m[3].str() + " is refused: a kernel may include only a file handed in beside it", "");
    if (!r.exited || r.exit_code != 0 || r.dropped)
        throw first_error(r.err, r.dropped ? shown + ": error: the preprocessed text is over 16 MiB"
                                           : shown + ": error: the preprocessor failed (" + r.describe() + ")");
    return as_program(r.out);
}

std::array<std::atomic<bool>, 8> differs{};

// What a build's text depends on besides its options: the kernel file and every file beside it
// that it may include, by name and content.
std::string folder_key(const std::string &path) {
    std::error_code ec;
    std::vector<std::string> names;
    const fs::path folder = fs::absolute(path, ec).parent_path();
    for (const auto &e : fs::directory_iterator(folder, ec)) {
        const std::string ext = e.path().extension().string();
        if ((ext == ".cl" || ext == ".h" || ext == ".clh") && e.is_regular_file(ec))
            names.push_back(e.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    std::string key = fs::absolute(path, ec).string();
    for (const auto &n : names) {
        std::ifstream in(folder / n, std::ios::binary);
        key += '\0' + n + '\0' + std::string(std::istreambuf_iterator<char>(in), {});
    }
    return key;
}

}  // namespace

std::string program_text(const std::string &path, const std::string &options, const Profile &profile,
                         std::size_t local_limit) {
    // A process builds the same file with the same options more than once, and the children of
    // one grading build the same ones: preprocess each once. (A file it includes must not change
    // between builds, as for build_program.)
    static std::mutex m;
    static std::map<std::string, std::string> done;
    const std::string key = folder_key(path) + '\0' + options + '\0' + profile.name + '\0' +
                            std::to_string(local_limit);
    {
        std::lock_guard<std::mutex> lock(m);
        if (auto it = done.find(key); it != done.end()) return it->second;
    }
    std::string text;
    if (!cached("text", key, text)) {
        const BuildOptions b = parse_options(options);
        text = preprocess(path, b, profile);
        // The same text under another profile or in another process is judged once.
        const std::string judged = std::to_string(b.c_version) + '\0' + std::to_string(local_limit) + '\0' + text;
        std::string none;
        if (!cached("ir-ok", judged, none)) {
            check_ir(text, b, display_path(path), local_limit);
            keep("ir-ok", judged, "");
        }
        keep("text", key, text);
    }
    std::lock_guard<std::mutex> lock(m);
    return done.emplace(key, text).first->second;
}

namespace {

// The macro names whose definition under `p` differs from `other`'s for a build with `b`.
std::set<std::string> differing_macros(const Profile &p, const Profile &other, const BuildOptions &b) {
    auto by_name = [&](const Profile &q) {
        std::map<std::string, std::string> m;  // name -> its -D/-U argument
        for (const auto &a : macro_arguments(q, b))
            if (a.rfind("-D", 0) == 0 || a.rfind("-U", 0) == 0)
                m[a.substr(2, a.find('=') == std::string::npos ? std::string::npos : a.find('=') - 2)] = a;
        return m;
    };
    const auto mine = by_name(p), theirs = by_name(other);
    std::set<std::string> names;
    for (const auto &[n, a] : mine)
        if (!theirs.count(n) || theirs.at(n) != a) names.insert(n);
    for (const auto &[n, a] : theirs)
        if (!mine.count(n)) names.insert(n);
    return names;
}

// Whether the files a kernel may include (every file beside it) could test one of `names`: a
// macro is seen only through its name in the text once lines are spliced, unless the text pastes
// tokens (## or %:%:), spells # or the backslash as trigraphs, uses universal character names,
// or cannot be read whole. A yes is only "maybe": the other profile's text is then made and
// compared.
bool may_test(const std::string &path, const std::string &options, const std::set<std::string> &names) {
    if (names.empty()) return false;
    std::vector<std::string> texts{options};
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(fs::absolute(path, ec).parent_path(), ec)) {
        if (!e.is_regular_file(ec)) continue;
        if (e.file_size(ec) > (4u << 20) || ec) return true;
        std::ifstream in(e.path(), std::ios::binary);
        if (!in) return true;
        texts.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    if (ec) return true;
    static const std::regex splice(R"(\\[ \t\f\v\r]*\n)");
    for (const auto &raw : texts) {
        const std::string t = std::regex_replace(raw, splice, "");
        for (const char *risky : {"##", "%:%:", "?\?=", "?\?/", "\\u", "\\U"})
            if (t.find(risky) != std::string::npos) return true;
        for (const auto &n : names)
            if (t.find(n) != std::string::npos) return true;
    }
    return false;
}

}  // namespace

void note_other_profiles(const std::string &path, const std::string &options, const std::string &text) {
    const Profile *active = active_profile();
    const BuildOptions b = parse_options(options);
    // Each build's answer is kept: a process builds the same text again from its cache.
    static std::mutex m;
    static std::map<std::string, std::string> known;
    const std::string key = folder_key(path) + '\0' + options + '\0' + (active ? active->name : "") +
                            '\0' + text;
    std::lock_guard<std::mutex> lock(m);
    auto &seen = known[key];  // one '0' or '1' a profile
    if (seen.empty() && !cached("differs", key, seen)) {
        for (const Profile &p : profiles())
            // A profile that cannot build this OpenCL C never meets this build; one whose macros
            // the files never name gives the same text.
            seen += &p != active && p.version >= b.c_version &&
                            (!active || may_test(path, options, differing_macros(*active, p, b))) &&
                            preprocess(path, b, p) != text
                        ? '1'
                        : '0';
        keep("differs", key, seen);
    }
    for (std::size_t i = 0; i < seen.size() && i < differs.size(); ++i)
        if (seen[i] == '1') differs[i] = true;
}

void forget_differing_profiles() {
    for (auto &d : differs) d = false;
}

std::vector<std::string> differing_profiles() {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < profiles().size() && i < differs.size(); ++i)
        if (differs[i]) out.push_back(profiles()[i].name);
    return out;
}

std::string c11_std(const cl::Device &dev) {
    const std::string v = dev.getInfo<CL_DEVICE_VERSION>();  // "OpenCL 3.0 ..."
    const Profile *p = active_profile();
    if (p && p->version < 200) return "";
    if (v.rfind("OpenCL 2.", 0) == 0) return "-cl-std=CL2.0";
    if (v.rfind("OpenCL 3.", 0) == 0) return "-cl-std=CL3.0";
    return "";
}

}  // namespace synclab
