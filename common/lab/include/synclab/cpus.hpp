// For the labs' stress runs and synclab-grade: the CPUs this process may use. A stress run
// holds its groups back for a time slice where POCL's threads must share a CPU; the grader
// runs as many labs at once.
#pragma once

namespace synclab {

// The CPUs this process may use: those its affinity allows (taskset, a container's cpuset), no
// more than its cgroup's CPU quota (cpu.max; cgroup v1's cfs quota) rounded up; at least 1.
unsigned usable_cpus();

}  // namespace synclab
