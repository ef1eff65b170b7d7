// The progress a process makes, for its watchdog (device.hpp): the kernel a Queue was last given,
// its name for a crash handler, the time of the last launch or build.
#include "synclab/device.hpp"

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>

namespace synclab {

namespace {

// The kernel last enqueued, retained so that its name can be read after its owner let it go.
std::mutex g_running_mutex;
cl_kernel g_running = nullptr;
// Its name, for a crash handler (two buffers: one is whole while the other is written).
char g_running_names[2][128];
std::atomic<int> g_running_name{-1};

std::atomic<std::chrono::steady_clock::rep> g_progress{std::chrono::steady_clock::now().time_since_epoch().count()};
std::mutex g_building_mutex;
std::string g_building;
std::atomic<void (*)()> g_after_driver{nullptr};

void driver_returned() {
    if (auto hook = g_after_driver.load()) hook();
}

}  // namespace

cl_int Queue::enqueueNDRangeKernel(const cl::Kernel &kernel, const cl::NDRange &offset,
                                   const cl::NDRange &global, const cl::NDRange &local,
                                   const std::vector<cl::Event> *events, cl::Event *event) const {
    bool first = false;
    {
        std::lock_guard<std::mutex> lock(g_running_mutex);
        if (g_running != kernel()) {
            first = true;
            clRetainKernel(kernel());
            if (g_running) clReleaseKernel(g_running);
            g_running = kernel();
            const int next = g_running_name.load() == 0 ? 1 : 0;
            char *name = g_running_names[next];
            if (clGetKernelInfo(g_running, CL_KERNEL_FUNCTION_NAME, sizeof g_running_names[0] - 1,
                                name, nullptr) != CL_SUCCESS)
                name[0] = '\0';
            name[sizeof g_running_names[0] - 1] = '\0';
            g_running_name.store(next);
        }
    }
    if (first) driver_returned();  // and after: POCL may compile in the launch
    const cl_int rc = cl::CommandQueue::enqueueNDRangeKernel(kernel, offset, global, local, events, event);
    if (first) driver_returned();
    note_progress();  // not at each kernel's end: an event and a callback a launch cost 3x the launch on an H200
    return rc;
}

std::chrono::steady_clock::time_point last_progress() {
    return std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(g_progress.load()));
}

void note_progress() { g_progress.store(std::chrono::steady_clock::now().time_since_epoch().count()); }

std::string building() {
    std::lock_guard<std::mutex> lock(g_building_mutex);
    return g_building;
}

// The name first, then the progress: a watchdog that sees the progress reads the name with it.
Building::Building(const std::string &shown) {
    {
        std::lock_guard<std::mutex> lock(g_building_mutex);
        g_building = shown;
    }
    note_progress();
}

Building::~Building() {
    {
        std::lock_guard<std::mutex> lock(g_building_mutex);
        g_building.clear();
    }
    driver_returned();
    note_progress();
}

void after_driver_code(void (*hook)()) { g_after_driver.store(hook); }

std::string running_kernel() {
    std::lock_guard<std::mutex> lock(g_running_mutex);
    if (!g_running) return "";
    char name[256] = {0};
    if (clGetKernelInfo(g_running, CL_KERNEL_FUNCTION_NAME, sizeof name - 1, name, nullptr) != CL_SUCCESS)
        return "";
    return name;
}

const char *last_kernel_name() {
    const int i = g_running_name.load();
    return i < 0 ? "" : g_running_names[i];
}

}  // namespace synclab
