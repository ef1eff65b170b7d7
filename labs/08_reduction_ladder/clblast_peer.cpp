#include "clblast_peer.hpp"

#include "synclab/bandwidth.hpp"
#include "synclab/measure.hpp"
#include "synclab/timing.hpp"

#ifdef SYNCLAB_HAVE_CLBLAST
#include <clblast_c.h>
#endif

namespace synclab {

#ifdef SYNCLAB_HAVE_CLBLAST
LibraryPeer time_clblast_sum(Env &env, const cl::Buffer &x, std::size_t n, int trials) {
    LibraryPeer p;
    cl::Buffer sum(env.context, CL_MEM_READ_WRITE, sizeof(float));
    cl_command_queue queue = env.queue();
    CLBlastStatusCode status = CLBlastSuccess;
    p.ms = median_of_launches(trials, [&] {
        if (status != CLBlastSuccess) return 0.0;
        // The marker ends when the work before it does; CLBlast's kernels, queued behind a fill
        // that is still running, start right after it. So the span is all of CLBlast's passes.
        const float zero = 0;
        env.queue.enqueueFillBuffer(sum, zero, 0, sizeof(float));
        cl::Event before, last;
        env.queue.enqueueMarkerWithWaitList(nullptr, &before);
        cl_event ev = nullptr;
        status = CLBlastSsum(n, sum(), 0, x(), 0, 1, &queue, &ev);
        if (status != CLBlastSuccess) return 0.0;
        last = cl::Event(ev);  // takes ownership
        last.wait();
        const auto end = last.getProfilingInfo<CL_PROFILING_COMMAND_END>();
        cl_ulong start = 0;
        try {
            start = before.getProfilingInfo<CL_PROFILING_COMMAND_END>();
        } catch (const cl::Error &) {
            p.last_kernel_only = true;  // a driver that does not time markers
        }
        if (start == 0 || end <= start) {
            p.last_kernel_only = true;
            return event_ms(last);
        }
        return static_cast<double>(end - start) * 1e-6;
    });
    if (status != CLBlastSuccess) {
        p.why_not = "CLBlastSsum returned status " + std::to_string(int(status));
        return p;
    }
    float value = 0;
    env.queue.enqueueReadBuffer(sum, CL_TRUE, 0, sizeof(float), &value);
    p.ran = true;
    p.value = value;
    p.gbps = gb_per_s(reduce_bytes(n), p.ms);
    return p;
}
#else
LibraryPeer time_clblast_sum(Env &, const cl::Buffer &, std::size_t, int) {
    LibraryPeer p;
    p.why_not = "not built in (CMake found no CLBlast: apt-get install libclblast-dev, then "
                "configure again)";
    return p;
}
#endif

}  // namespace synclab
