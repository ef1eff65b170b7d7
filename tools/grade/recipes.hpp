// How each lab is graded: the one table to extend when a lab becomes gradable.
#pragma once
#include <string>
#include <vector>

namespace grade {

struct Recipe {
    std::string id;           // what --labs names: "01"
    std::string executable;   // beside synclab-grade (build/bin/)
    std::string kernel_file;  // the file a student hands in, named as in kernels/
    // The student's variants; the lab's demonstrations (lab 01's nosync) are never graded.
    std::vector<std::string> variants;
    // Dynamic runs on the chosen device, each with fresh inputs; the first is the --quick one.
    std::vector<std::vector<std::string>> runs;
    // Arguments of the race check on Oclgrind (with --device oclgrind); empty: no race check.
    std::vector<std::string> oclgrind;
};

// A lab is gradable when its kernel file is in the project's kernels/ and its executable
// is built; the rest of the table is skipped.
inline const std::vector<Recipe> &recipes() {
    static const std::vector<Recipe> table = {
        // --groups 0 fills the device: a GPU shows a missing barrier only with many groups.
        {"01", "lab01_workgroup_reduce", "01_workgroup_reduce.cl", {"sync"},
         {{"--trials", "5", "--groups", "0"}, {"--trials", "5", "--groups", "4", "--wg", "64"}},
         {"--wg", "64"}},
        {"02", "lab02_host_final_sum", "02_host_final_sum.cl", {"host"},
         {{"-n", "1000003", "--trials", "2"}, {"-n", "1000", "--wg", "64", "--trials", "2"}},
         {"-n", "1000", "--wg", "64"}},
        // Oclgrind 21.10 calls a buffer written by an earlier kernel uninitialised: no race
        // check for the multi-kernel lab until it tells the two apart.
        {"03", "lab03_multikernel_reduce", "03_multikernel_reduce.cl", {"device"},
         {{"-n", "1000003", "--wg", "64", "--trials", "2"}, {"-n", "3000017", "--wg", "16"}},
         {}},
        // reduceSubgroup needs a device with sub-groups, so only the barrier finish is graded.
        {"04", "lab04_subgroup_finish", "04_subgroup_finish.cl", {"barrier"},
         {{"--trials", "5", "--groups", "0"}, {"--trials", "5", "--groups", "4", "--wg", "64"}},
         {"--wg", "64"}},
        {"05", "lab05_divergence", "05_divergence.cl", {"evenodd", "kway", "expensive"},
         {{"-n", "8192", "--iters", "64"}, {"-n", "4096", "--iters", "32", "-k", "5"}},
         {}},
        // Oclgrind's uninitialised-value check crashes on v7's float4 loads: no race check.
        {"08", "lab08_reduction_ladder", "08_reduction_ladder.cl",
         {"v1", "v2", "v3", "v4", "v5", "v6", "v7"},
         {{"-n", "1000003", "--trials", "1"}, {"-n", "1000", "--wg", "64", "--trials", "1"}},
         {}},
    };
    return table;
}

}  // namespace grade
