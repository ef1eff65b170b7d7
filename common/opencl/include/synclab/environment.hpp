// For the OpenCL layer, hbcheck's plugin, the labs and the grader: the environment variables the
// OpenCL layer reads. It knows nothing of labs, so their names live here, below
// synclab/protocol.hpp, which names them for the grader's children with the protocol's own.
#pragma once

namespace synclab::env {

constexpr const char *kKernels = "SYNCLAB_KERNELS";  // the kernels' folder when --kernels is not given
constexpr const char *kDevice = "SYNCLAB_DEVICE";    // the device when --device is not given
constexpr const char *kHbcheck = "SYNCLAB_HBCHECK";  // hbcheck's plugin file ("off": none)
// hbcheck's seed on Oclgrind (--schedule): the plugin reads it at each launch; 0: off.
constexpr const char *kSchedule = "SYNCLAB_SCHEDULE";

}  // namespace synclab::env
