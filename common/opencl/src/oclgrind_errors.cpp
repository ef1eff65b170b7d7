// How many errors Oclgrind has counted in this process (device.hpp): the count its report cap
// (OCLGRIND_MAX_ERRORS) is compared with, kept once for every context of the process.
#include "synclab/device.hpp"

#include <dlfcn.h>
#include <filesystem>
#include <link.h>
#include <string>

namespace fs = std::filesystem;

namespace synclab {

long oclgrind_errors_counted() {
    // Oclgrind's library, loaded by its ICD (or not yet): its Logger keeps one count for the
    // whole process and exports it.
    std::string lib;
    dl_iterate_phdr(
        [](dl_phdr_info *info, std::size_t, void *out) {
            const std::string name = info->dlpi_name ? info->dlpi_name : "";
            if (fs::path(name).filename().string().rfind("liboclgrind", 0) != 0) return 0;
            *static_cast<std::string *>(out) = name;
            return 1;
        },
        &lib);
    if (lib.empty()) return 0;
    void *handle = dlopen(lib.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (!handle) return -1;
    // oclgrind::Logger::m_numErrors (Oclgrind 21.10), found in the library or those it loads.
    const auto *count = static_cast<const unsigned *>(dlsym(handle, "_ZN8oclgrind6Logger11m_numErrorsE"));
    const long out = count ? static_cast<long>(*count) : -1;
    dlclose(handle);
    return out;
}

}  // namespace synclab
