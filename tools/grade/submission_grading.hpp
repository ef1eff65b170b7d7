// For the grader's stages and its tests: grading several labs of one submission together, and
// which labs the runner (synclab-labs) can run in one process.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "grade.hpp"
#include "labs.hpp"
#include "settings.hpp"

namespace grade {

// Grades several labs of one submission, in the order given. The labs the runner can run whose
// dynamic-run environment is the same share one process for their dynamic runs, and with it
// what an OpenCL implementation loads once per context (POCL: its kernel library, about half a
// second a process). A lab's runs count from a shared process when it passed there, when it was
// that process's first lab, or when they end in its own wrong answer, build error or a run the
// device cannot make; a crash, hang or error after another lab of the same process is run again
// as the first of a new one, and only that counts. The race check and the rest are grade_lab's,
// lab by lab; but the stress schedules of the labs that share the runner go last, together: their
// builds in one process behind everything, their schedules in one process holding the cores.
std::vector<Result> grade_labs(const std::vector<const Recipe *> &recipes, const std::string &student,
                               const std::string &kernels_dir, const Settings &settings,
                               const volatile int *stop, const std::string &job_dir);

// Which of `labs` the runner describes exactly as their executables do (--describe through it,
// with `folder` for its batch file); none when it is missing or fails.
std::set<std::string> runner_labs(const std::vector<Recipe> &labs, const Settings &s,
                                  const std::string &folder, const volatile int *stop = nullptr);

}  // namespace grade
