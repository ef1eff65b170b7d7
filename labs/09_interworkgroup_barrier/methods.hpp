// For lab 09: the methods a run compares (kernels built once, c11 only where the device offers
// OpenCL C 2.0/3.0 device-scope atomics), and the measurement sweeps behind --sweep.
#pragma once
#include <string>
#include <vector>

#include "steps.hpp"

namespace synclab {

struct Method {
    std::string variant;      // the declaration's variant
    std::string name;         // the CSV's method: relaunch_wait, relaunch_queue, centralized, ...
    std::string kernel_name;
    std::string label;        // the table's first column
    How how = How::InKernel;
    bool discovered = false;
    cl::Kernel kernel;
    std::string skipped;      // why it cannot run here (c11); empty when it can
};

struct Methods {
    Methods(Lab &lab, const Workload &w);
    std::vector<Method> list;  // the selected variants, relaunch as two rows
    cl::Kernel discovery;
    const Method *find(const std::string &name) const;
};

// One method run `trials` times (stopping at the first that is not ok), with the median time.
Outcome run_median(Steps &steps, const Method &mm, std::size_t groups, const Workload &w,
                   int trials);

// --sweep groups|steps|occupancy: prints a table, writes CSV rows, returns the exit code (1 when
// any run inside the resident groups gave up or was wrong).
int run_sweep(Lab &lab, Methods &m, Steps &steps, const Workload &w, std::size_t occ,
              const std::string &sweep);

}  // namespace synclab
