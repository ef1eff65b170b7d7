#include "synclab/core_wait.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace synclab::core_wait {

double counted(double tick_s, double waited_s, double cap_s) {
    return std::clamp(tick_s - std::max(waited_s, 0.0), 0.0, cap_s);
}

Meter::Meter(std::string task_dir) : dir_(std::move(task_dir)) {
    available_ = true;
    waited();
    available_ = !last_.empty();  // no thread's schedstat read: the kernel keeps none
}

double Meter::waited() {
    if (!available_) return 0;
    std::map<std::string, double> now;
    double most = 0;
    std::error_code ec;
    for (const auto &t : fs::directory_iterator(dir_, ec)) {
        std::ifstream in(t.path() / "schedstat");
        unsigned long long run_ns = 0, wait_ns = 0;
        if (!(in >> run_ns >> wait_ns)) continue;  // a thread that just ended
        const std::string id = t.path().filename().string();
        const double wait = static_cast<double>(wait_ns) * 1e-9;
        now[id] = wait;
        const auto before = last_.find(id);
        most = std::max(most, wait - (before == last_.end() ? 0.0 : before->second));
    }
    last_ = std::move(now);
    return most;
}

}  // namespace synclab::core_wait
