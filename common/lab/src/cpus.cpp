#include "synclab/cpus.hpp"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace synclab {
namespace {

// The CPU quota of this process's cgroup, in CPUs (rounded up), or 0 when there is none.
unsigned cgroup_quota() {
    auto read_two = [](const std::string &path, std::string &a, std::string &b) {
        std::ifstream in(path);
        return static_cast<bool>(in >> a >> b);
    };
    std::string quota, period;
    // cgroup v2: the process's own group, from /proc/self/cgroup ("0::/path").
    std::ifstream self("/proc/self/cgroup");
    std::vector<std::string> groups{"/sys/fs/cgroup/cpu.max"};
    for (std::string line; std::getline(self, line);)
        if (line.rfind("0::", 0) == 0) groups.insert(groups.begin(), "/sys/fs/cgroup" + line.substr(3) + "/cpu.max");
    for (const auto &g : groups)
        if (read_two(g, quota, period)) break;
    if (quota.empty()) {  // cgroup v1
        std::ifstream q("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"), p("/sys/fs/cgroup/cpu/cpu.cfs_period_us");
        if (!(q >> quota) || !(p >> period)) return 0;
    }
    char *end = nullptr;
    const double qv = std::strtod(quota.c_str(), &end), pv = std::strtod(period.c_str(), nullptr);
    if (quota == "max" || qv <= 0 || pv <= 0) return 0;
    return static_cast<unsigned>(std::max(1.0, std::ceil(qv / pv)));
}

}  // namespace

unsigned usable_cpus() {
    unsigned n = std::max(1u, std::thread::hardware_concurrency());
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) n = std::max(1, CPU_COUNT(&set));
    if (const unsigned quota = cgroup_quota()) n = std::min(n, quota);
    return n;
}


}  // namespace synclab
