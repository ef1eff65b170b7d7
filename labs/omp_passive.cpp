// Linked into the executables whose host peers use OpenMP (labs/cpu_peers.cmake): their OpenMP
// threads sleep between loops (OMP_WAIT_POLICY=passive) unless the environment says otherwise.
// Spinning threads collapse under load: beside two busy loops on a 2-core machine lab 08's
// OpenMP sum read 0.1-0.4 GB/s spinning, 12-23 GB/s passive (docs/benchmarks-archive.md).
// libgomp reads the variable once, in its initialiser, before any of the executable's code; a
// variable set earlier (.preinit_array) is undone by libc's own initialiser. So the executable
// starts itself again with the variable set: exec keeps the process, its id, files and arguments.
#include <cstdlib>

#include <unistd.h>

namespace {
// glibc hands an initialiser main's arguments.
__attribute__((constructor)) void passive_openmp(int, char **argv, char **) {
    if (std::getenv("OMP_WAIT_POLICY")) return;  // the user's choice, or set before this exec
    setenv("OMP_WAIT_POLICY", "passive", 1);
    execv("/proc/self/exe", argv);
    unsetenv("OMP_WAIT_POLICY");  // no /proc: libgomp keeps its default, and the rows say so
}
}  // namespace
