// For lab 08: the library a user would pick to sum a float buffer on an OpenCL device, CLBlast's
// Xsum, run on the lab's own buffer and queue and timed as the rungs are. Built in where CMake
// found CLBlast (SYNCLAB_HAVE_CLBLAST); elsewhere it says so and the lab goes on without it.
#pragma once
#include <string>

#include "synclab/device.hpp"

namespace synclab {

struct LibraryPeer {
    bool ran = false;
    std::string why_not;  // when it did not run: "not built in", or CLBlast's status code
    double value = 0;     // the last trial's sum
    double ms = 0;        // median, from the marker before the call to the end of its last kernel
    double gbps = 0;      // gb_per_s(reduce_bytes(n), ms)
    bool last_kernel_only = false;  // the driver gave no marker time: its last kernel alone
};

// CLBlastSsum over the n floats in x: one warm-up (CLBlast compiles its kernels at first use),
// then the median of `trials`.
LibraryPeer time_clblast_sum(Env &env, const cl::Buffer &x, std::size_t n, int trials);

}  // namespace synclab
