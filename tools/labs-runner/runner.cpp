// synclab-labs: for synclab-grade alone. It runs the lines of a --batch file in this one process,
// in order; each line names a lab and gives that lab's arguments:
//     01_workgroup_reduce<TAB>--kernels<TAB>DIR<TAB>...
// A line that does not exit 0 ends its lab's lines (protocol::next_line); the next lab's lines
// go on. It exits as the last line it ran did.
// Each lab is a module in modules/ beside this program (modules/lab01_workgroup_reduce.so,
// labs/CMakeLists.txt).
// The scaffolding the modules call is this program's own (it exports it), so every lab of a
// submission shares one context per device, and with it what POCL loads per context (its kernel
// library, about half a second): a submission's labs pay for it once, not once a lab.
// Each run begins with its marker on both streams (synclab/protocol.hpp): the grader splits the
// output, and the time, by run.
#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "synclab/errors.hpp"
#include "synclab/protocol.hpp"

namespace fs = std::filesystem;

namespace {

using Entry = int (*)(int, char **);

int usage(const std::string &why) {
    std::fprintf(stderr, "synclab-labs: %s\n", why.c_str());
    return 2;
}

int run(const std::string &batch) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::vector<std::string>> lines;
    try {
        lines = synclab::protocol::read_batch(batch);
    } catch (const synclab::UsageError &e) {
        return usage(e.what());
    }
    static const std::regex lab_name(R"([0-9][0-9]_[A-Za-z0-9_]+)");
    for (std::size_t i = 0; i < lines.size(); ++i)
        if (!std::regex_match(lines[i][0], lab_name))
            return usage("line " + std::to_string(i + 1) + " names no lab (" +
                         lines[i][0].substr(0, 80) + "): begin each line with a lab's folder name");

    std::error_code ec;
    const fs::path here = fs::read_symlink("/proc/self/exe", ec).parent_path();
    if (ec || here.empty()) return usage("cannot find its own folder (/proc/self/exe): mount /proc");
    std::map<std::string, Entry> loaded;
    int rc = 0;
    for (std::size_t i = 0; i < lines.size(); i = synclab::protocol::next_line(lines, i, rc != 0)) {
        const std::string &lab = lines[i][0];
        std::string shown = " lab" + lab;
        for (std::size_t a = 1; a < lines[i].size(); ++a) shown += " " + lines[i][a];
        Entry &entry = loaded[lab];
        if (!entry) {
            const std::string path = (here / "modules" / ("lab" + lab + ".so")).string();
            void *module = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
            if (module) entry = reinterpret_cast<Entry>(dlsym(module, "synclab_module_main"));
            if (!entry) {
                const char *why = dlerror();
                return usage("cannot load lab " + lab + " (" + (why ? why : path) +
                             "): build it again (cmake --build build)");
            }
        }
        // On both streams: the grader gives each run its own part of each.
        synclab::protocol::mark_run(i, lines.size(), shown,
                                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        std::vector<char *> args;
        std::string name = "lab" + lab;
        args.push_back(name.data());
        for (std::size_t a = 1; a < lines[i].size(); ++a) args.push_back(lines[i][a].data());
        args.push_back(nullptr);
        rc = entry(static_cast<int>(args.size() - 1), args.data());
        std::fflush(stdout);
        std::fflush(stderr);
    }
    return rc;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 3 || std::string(argv[1]) != "--batch")
        return usage("use: synclab-labs --batch FILE (for synclab-grade: each line a lab's folder "
                     "name and its arguments, tab-separated)");
    try {
        return run(argv[2]);
    } catch (const std::exception &e) {
        return usage(e.what());
    }
}
