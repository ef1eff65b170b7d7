// For the lab scaffolding and the grader: the one program text every check of a graded run
// compiles. A lab run by the grader (SYNCLAB_PROFILE set) preprocesses the student's file itself,
// with clang's OpenCL preprocessor, under a profile of the macros real implementations define,
// and builds that text: no macro that names an implementation or the grader is visible to it.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "synclab/cl.hpp"

namespace synclab {

// The macros a kind of implementation defines: what a kernel may test and see differ.
struct Profile {
    std::string name;   // "opencl-1.2": SYNCLAB_PROFILE's value
    std::string says;   // "OpenCL 1.2 (Oclgrind 21.10, NVIDIA's driver)"
    int version;        // __OPENCL_VERSION__, and the highest OpenCL C it builds
    std::vector<std::string> extensions;  // cl_khr_... macros
    std::vector<std::string> features;    // OpenCL C 3.0's __opencl_c_... (built as CL3.0)
};

// Every profile; the grader judges the first and each other one under which the text differs.
const std::vector<Profile> &profiles();
const Profile *find_profile(const std::string &name);

// SYNCLAB_PROFILE's profile; null when unset (a student's own run: the file is built as it is).
// Throws UsageError for a name no profile has.
const Profile *active_profile();

// The most __local memory a kernel's own arrays may declare: what real GPUs give a work-group.
constexpr std::size_t kLocalLimit = 48 * 1024;

// The text of `path` (a kernel file) preprocessed for a build with `options` (its -D, -U and
// -cl-std) under `profile`: #line directives keep every message's file:line in the student's
// files, and every identifier left that a compiler could still expand as an implementation's
// macro is #undef'd first. Throws BuildError when the file does not preprocess, includes a
// file that is not beside it, or a kernel declares more than `local_limit` bytes of __local
// arrays (used or not); UsageError when clang is missing.
std::string program_text(const std::string &path, const std::string &options,
                         const Profile &profile, std::size_t local_limit = kLocalLimit);

// The profiles other than the active one under which a build of this process gave another text
// (each then needs judging too); filled by program_text's callers through note_other_profiles.
std::vector<std::string> differing_profiles();

// Preprocesses `path` under every profile but the active one that can build `options` and notes
// those whose text differs from `text`; forget_differing_profiles starts again (a new verdict).
void note_other_profiles(const std::string &path, const std::string &options,
                         const std::string &text);
void forget_differing_profiles();

// The -cl-std under which `dev` builds OpenCL C 2.0 atomics ("-cl-std=CL2.0" or CL3.0), or ""
// for an OpenCL 1.x device or an active profile of OpenCL 1.x.
std::string c11_std(const cl::Device &dev);

}  // namespace synclab
