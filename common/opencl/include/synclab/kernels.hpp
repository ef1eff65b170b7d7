// For everything that builds kernels (labs, tests): finding and building the .cl files students edit; errors name real files and lines.
#pragma once
#include <string>
#include <vector>

#include "synclab/cl.hpp"

namespace synclab {

// Folders tried, in order: `dir` (from --kernels), SYNCLAB_KERNELS, a `kernels/` beside or
// above the running executable, then the source tree's kernels/ baked in at configure time.
std::vector<std::string> kernel_search_path(const std::string &dir);

// The first folder in the search path holding `file`; throws UsageError naming every path tried.
std::string find_kernel_file(const std::string &file, const std::string &dir);

// The file's text behind a #line directive, so messages say e.g. kernels/01_x.cl:12.
std::string read_with_line_directive(const std::string &path);

// How a path is shown to the user: relative to the working directory when it lies below it.
std::string display_path(const std::string &path);

// Builds `file` (found as above) for the env's device. A failed build throws UsageError
// whose text is the device's build log. In a context that Envs share, the same text built
// with the same options before is not built again (nor by build_source); a file it #includes
// is not part of that text, so a process must not change one between builds. `prelude`: OpenCL C
// put before the file (a stress schedule's wrappers); not on Oclgrind, whose build messages count
// lines from the source's first.
cl::Program build_program(const cl::Context &ctx, const cl::Device &dev, const std::string &file,
                          const std::string &dir, const std::string &options = "",
                          const std::string &prelude = "");

// As build_program, for the kernel file at `path` (found as above) built as `text`: the graded
// program text (synclab/program_text.hpp), whose #line directives name the file's lines.
cl::Program build_program_text(const cl::Context &ctx, const cl::Device &dev, const std::string &path,
                               const std::string &text, const std::string &options = "",
                               const std::string &prelude = "");

// Builds an in-memory source (the project's own helper kernels).
cl::Program build_source(const cl::Context &ctx, const cl::Device &dev, const std::string &source,
                         const std::string &name);

// A launch's work-group size against the device's largest (above it: Unsupported, no kernel
// could run it here) and its local memory: `local_bytes` for the kernel's __local arguments at
// this wg plus the __local arrays it declares itself. Call before setting the __local arguments.
// Throws UsageError with the total and the hint "use --wg W or less" when a smaller wg fits,
// else naming the kernel's own arrays. A wg above what the kernel reports
// (CL_KERNEL_WORK_GROUP_SIZE) but within the device's is left to the launch: a driver may report
// less than it runs (the H100's reports 256 for every kernel, even one of 10 registers, and runs
// 1024); a refused launch then names what the kernel reported (note_kernel_limit).
void check_launch(const cl::Kernel &k, const cl::Device &dev, std::size_t wg,
                  std::size_t local_bytes);

// check_launch's decision on the sizes alone.
enum class WorkGroupFit { Fits, AboveKernelReport, AboveDevice };
WorkGroupFit work_group_fit(std::size_t wg, std::size_t device_max, std::size_t kernel_reported);

}  // namespace synclab
