#include "synclab/measure.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>

#include "synclab/bandwidth.hpp"
#include "synclab/errors.hpp"
#include "synclab/timing.hpp"

namespace synclab {

std::size_t max_elements(const DeviceInfo &dev, std::size_t bytes, std::size_t index_limit) {
    const cl_ulong max_alloc = dev.device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
    return std::min<cl_ulong>(max_alloc / bytes, index_limit);
}

void require_fits(const DeviceInfo &dev, const std::string &option, std::size_t value,
                  std::size_t per_value, std::size_t bytes, std::size_t index_limit) {
    const std::size_t most = max_elements(dev, bytes, index_limit) / std::max<std::size_t>(per_value, 1);
    if (value <= most) return;
    throw UsageError(option + " " + std::to_string(value) +
                     (per_value > 1 ? " (" + std::to_string(per_value) + " elements each)" : "") +
                     " does not fit one buffer on this device, or the kernels' indices: use " +
                     option + " " + std::to_string(most) + " or less");
}

std::string spread_flag(const Spread &ms) {
    return ms.wide() ? "spread wide: not a stable ratio" : "";
}

std::string gbps_spread(std::uint64_t bytes, const Spread &ms) {
    char s[120];
    std::snprintf(s, sizeof s, "median %.1f GB/s over %zu run%s, %.1f-%.1f GB/s", gb_per_s(bytes, ms.median),
                  ms.runs, ms.runs == 1 ? "" : "s", gb_per_s(bytes, ms.high), gb_per_s(bytes, ms.low));
    return s + (ms.wide() ? "; " + spread_flag(ms) : std::string());
}

std::string openmp_wait_policy() {
    const char *policy = std::getenv("OMP_WAIT_POLICY");
    if (policy && *policy) return std::string("OMP_WAIT_POLICY=") + policy;
    return "OpenMP's default wait policy (its threads spin between loops)";
}

void fill_nan(Env &env, const cl::Buffer &buffer, std::size_t floats) {
    const std::vector<float> nan(floats, std::numeric_limits<float>::quiet_NaN());
    env.queue.enqueueWriteBuffer(buffer, CL_TRUE, 0, floats * sizeof(float), nan.data());
}

cl::Buffer nan_buffer(Env &env, std::size_t floats) {
    cl::Buffer b(env.context, CL_MEM_READ_WRITE, floats * sizeof(float));
    fill_nan(env, b, floats);
    return b;
}

double median_of_launches(int trials, const std::function<double()> &launch) {
    launch();
    std::vector<double> ms;
    for (int t = 0; t < trials; ++t) ms.push_back(launch());
    return median(ms);
}

double fastest_of_launches(int trials, const std::function<double()> &launch) {
    launch();
    double best = 0;
    for (int t = 0; t < trials; ++t) {
        const double ms = launch();
        if (t == 0 || ms < best) best = ms;
    }
    return best;
}

Csv::Csv(std::ostream *out, std::vector<std::string> columns)
    : out_(out), columns_(std::move(columns)) {
    if (!out_) return;
    for (std::size_t i = 0; i < columns_.size(); ++i) *out_ << (i ? "," : "") << columns_[i];
    *out_ << "\n";
}

Csv &Csv::set(const std::string &column, const std::string &text) {
    if (std::find(columns_.begin(), columns_.end(), column) == columns_.end())
        throw std::logic_error("CSV column '" + column + "' is not in the table");
    std::string cell = text;
    std::replace(cell.begin(), cell.end(), ',', ';');  // a device name with a comma
    cells_[column] = cell;
    return *this;
}

void Csv::row() {
    if (out_) {
        for (std::size_t i = 0; i < columns_.size(); ++i) {
            const auto it = cells_.find(columns_[i]);
            *out_ << (i ? "," : "") << (it == cells_.end() ? "" : it->second);
        }
        *out_ << "\n";
    }
    cells_.clear();
}

}  // namespace synclab
