// For a lab's report of an optional variant: whether the kernel file still holds a starter's
// unwritten part in the code its kernels run. A starter's part is the text between
// "---- your code ----" and "---- end of your code ----" (docs/adding-a-lab.md); it is unwritten
// while it still says TODO.
#pragma once
#include <string>
#include <vector>

namespace synclab {

// The first function (a kernel, or one a kernel calls, however deep) among `kernels` whose body
// holds an unwritten part of `text` (an OpenCL C file); "" when none does. Functions are found
// as the file's layout writes them: a definition starts in the first column and ends at the
// next "}" there.
std::string unwritten_part(const std::string &text, const std::vector<std::string> &kernels);

}  // namespace synclab
