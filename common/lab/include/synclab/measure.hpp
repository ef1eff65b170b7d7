// For every lab's main(): the measuring and reporting code labs share — fits-one-buffer checks,
// NaN-filled buffers, timed launches (warm-up, median of events) and CSV rows by column name.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "synclab/device.hpp"
#include "synclab/timing.hpp"

namespace synclab {

// The kernels index with int (or uint): no buffer of theirs holds more than this.
constexpr std::size_t kMaxIndex = 0x7fffffff;

// The most elements of `bytes` each that one buffer on the device holds and an index reaches.
std::size_t max_elements(const DeviceInfo &dev, std::size_t bytes, std::size_t index_limit = kMaxIndex);

// Throws UsageError when `value` (the option's value) times `per_value` elements of `bytes` each
// do not fit one buffer: "<option> <value> ... do not fit one buffer on this device: use
// <option> <largest> or less".
void require_fits(const DeviceInfo &dev, const std::string &option, std::size_t value,
                  std::size_t per_value, std::size_t bytes, std::size_t index_limit = kMaxIndex);

// A device buffer of `floats` floats, all NaN (written from the host: Oclgrind counts
// clEnqueueFillBuffer's output as uninitialised). A group that never writes its slot shows up.
cl::Buffer nan_buffer(Env &env, std::size_t floats);
void fill_nan(Env &env, const cl::Buffer &buffer, std::size_t floats);

// One untimed warm-up call of `launch` (a device may finish compiling at its first launch),
// then `trials` timed ones; `launch` returns its time in ms (from its events). The median.
double median_of_launches(int trials, const std::function<double()> &launch);
// The same, but the fastest trial: what a bandwidth probe reports, so that the bound it gives is
// the most the memory did in this run, and a kernel's median cannot honestly exceed it.
double fastest_of_launches(int trials, const std::function<double()> &launch);

// A peer's rate as its runs gave it, for `bytes` moved in each of the times (ms): "median 19.0
// GB/s over 5 runs, 12.0-24.6 GB/s", and "; spread wide: not a stable ratio" after it when ms.wide().
std::string gbps_spread(std::uint64_t bytes, const Spread &ms);
// The flag alone: "spread wide: not a stable ratio" when ms.wide(), else "".
std::string spread_flag(const Spread &ms);

// How OpenMP's threads wait between loops, for a host peer's row: "OMP_WAIT_POLICY=passive"
// (labs/omp_passive.cpp sets it in the labs' executables), or "OpenMP's default wait policy ...".
std::string openmp_wait_policy();

// A CSV table whose columns are named once; cells are set by name, so a row cannot put a
// value in the wrong column. Without a stream it does nothing.
class Csv {
public:
    Csv(std::ostream *out, std::vector<std::string> columns);
    template <class T> Csv &operator()(const std::string &column, const T &value) {
        std::ostringstream s;
        s << value;
        return set(column, s.str());
    }
    Csv &operator()(const std::string &column, bool value) { return set(column, value ? "1" : "0"); }
    void row();  // writes the row (empty cells for columns not set) and starts the next
    explicit operator bool() const { return out_ != nullptr; }

private:
    Csv &set(const std::string &column, const std::string &text);
    std::ostream *out_;
    std::vector<std::string> columns_;
    std::map<std::string, std::string> cells_;
};

}  // namespace synclab
