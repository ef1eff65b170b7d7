// The helper layer on its own: errors, tolerances, paths, devices, processes, Oclgrind logs.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "support.hpp"
#include "synclab/errors.hpp"
#include "synclab/kernels.hpp"
#include "synclab/lab.hpp"
#include "synclab/reference.hpp"
#include "synclab/protocol.hpp"

using namespace synclab;

TEST_SUITE("unit") {

TEST_CASE("OpenCL errors are named with a hint where one is obvious") {
    CHECK(cl_error_name(CL_INVALID_WORK_GROUP_SIZE) == "CL_INVALID_WORK_GROUP_SIZE");
    CHECK(cl_error_name(CL_BUILD_PROGRAM_FAILURE) == "CL_BUILD_PROGRAM_FAILURE");
    CHECK(cl_error_name(-9999) == "CL_ERROR(-9999)");
    const std::string d = describe(cl::Error(CL_INVALID_WORK_GROUP_SIZE, "clEnqueueNDRangeKernel"));
    CHECK(d.find("clEnqueueNDRangeKernel failed: CL_INVALID_WORK_GROUP_SIZE") == 0);
    CHECK(d.find("--wg") != std::string::npos);
    CHECK(describe(cl::Error(-1001, "clGetPlatformIDs")).find("pocl-opencl-icd") != std::string::npos);
    CHECK(describe(cl::Error(CL_INVALID_VALUE, "clFoo")).find("(") == std::string::npos);
}

TEST_CASE("guarded_main turns every exception into exit code 2") {
    CHECK(guarded_main("t", [] { return 0; }) == 0);
    CHECK(guarded_main("t", [] { return 1; }) == 1);
    CHECK(guarded_main("t", []() -> int { throw UsageError("bad"); }) == 2);
    CHECK(guarded_main("t", []() -> int { throw cl::Error(CL_OUT_OF_RESOURCES, "x"); }) == 2);
    CHECK(guarded_main("t", []() -> int { throw 42; }) == 2);
    // A kernel's crash surfaces at the next wait: exit 1, the student's kernel is at fault.
    CHECK(guarded_main("t", []() -> int { throw cl::Error(CL_OUT_OF_RESOURCES, "clEnqueueReadBuffer"); }) == 1);
    CHECK(guarded_main("t", []() -> int { throw cl::Error(CL_OUT_OF_RESOURCES, "clCreateBuffer"); }) == 2);
    CHECK_FALSE(kernel_failed(cl::Error(CL_INVALID_VALUE, "clFinish")));
}

// A float tree reduction of the products, as a work-group computes it.
static float tree_sum(std::vector<float> v) {
    for (std::size_t stride = v.size() / 2; stride > 0; stride >>= 1)
        for (std::size_t i = 0; i < stride; ++i) v[i] += v[i + stride];
    return v[0];
}

TEST_CASE("the tolerance accepts a float tree sum and rejects the plausible constant n/4") {
    std::mt19937_64 rng(1234);
    for (std::size_t n : {std::size_t(64), std::size_t(256), std::size_t(4096), std::size_t(1) << 20}) {
        for (int trial = 0; trial < 5; ++trial) {
            const auto a = uniform(n, rng), b = uniform(n, rng);
            std::vector<float> prod(n);
            for (std::size_t i = 0; i < n; ++i) prod[i] = a[i] * b[i];
            const Sum ref = dot_ref(a, b, 0, n);
            const double tol = tolerance(n, ref.abs_sum);
            CAPTURE(n);
            CHECK(within(tree_sum(prod), ref.value, tol));
            // The expected value of a sum of n U(0,1) products is n/4: a kernel returning it
            // without adding anything must fail.
            CHECK_FALSE(within(n / 4.0, ref.value, tol));
            CHECK_FALSE(within(0.0, ref.value, tol));
            // Half the products missing (a typical race) must fail too.
            CHECK_FALSE(within(tree_sum(std::vector<float>(prod.begin(), prod.begin() + n / 2)),
                              ref.value, tol));
        }
    }
}

TEST_CASE("a sequential float sum passes when the tolerance is told its serial length") {
    std::mt19937_64 rng(99);
    const std::size_t n = 4096;
    const auto a = uniform(n, rng), b = uniform(n, rng);
    float seq = 0;
    for (std::size_t i = 0; i < n; ++i) seq += a[i] * b[i];
    const Sum ref = dot_ref(a, b, 0, n);
    CHECK(within(seq, ref.value, tolerance(n, ref.abs_sum, n)));
}

TEST_CASE("within() is false for NaN and check_partials finds every wrong group") {
    CHECK_FALSE(within(NAN, 1.0, 1e9));
    CHECK(within(1.0, 1.0, 0.0));
    std::vector<Sum> want(4);
    for (auto &w : want) { w.value = 10; w.abs_sum = 10; }
    const PartialCheck c = check_partials({10.f, 3.f, 10.f, NAN}, want, 16);
    CHECK(c.wrong == 2);
    CHECK(c.first_wrong == 1);
    CHECK(check_partials({10.f, 10.f, 10.f, 10.f}, want, 16).wrong == 0);
    CHECK(check_partials({10.f}, want, 16).wrong == 3);  // missing partials count as wrong
}

TEST_CASE("power-of-two check") {
    CHECK(is_power_of_two(1));
    CHECK(is_power_of_two(256));
    CHECK_FALSE(is_power_of_two(0));
    CHECK_FALSE(is_power_of_two(100));
}

TEST_CASE("kernel folders: --kernels alone then the environment then beside the executable") {
    CHECK(kernel_search_path("/x") == std::vector<std::string>{"/x"});
    unsetenv(synclab::protocol::kKernels);
    const auto path = kernel_search_path("");
    REQUIRE(path.size() >= 2);
    CHECK(path.front().find("kernels") != std::string::npos);
    CHECK(std::find(path.begin(), path.end(), test::source("kernels")) != path.end());
    setenv(synclab::protocol::kKernels, "/from/env", 1);
    CHECK(kernel_search_path("") == std::vector<std::string>{"/from/env"});
    CHECK(kernel_search_path("/x") == std::vector<std::string>{"/x"});
    unsetenv(synclab::protocol::kKernels);
}

TEST_CASE("a missing kernel file names every path tried and the fix") {
    try {
        find_kernel_file("99_nothing.cl", "");
        FAIL("expected UsageError");
    } catch (const UsageError &e) {
        const std::string m = e.what();
        for (const auto &d : kernel_search_path("")) CHECK(m.find(d) != std::string::npos);
        CHECK(m.find("--kernels") != std::string::npos);
        CHECK(m.find('\n') == std::string::npos);
    }
    CHECK(find_kernel_file("01_workgroup_reduce.cl", test::source("solutions")) ==
          test::source("solutions/01_workgroup_reduce.cl"));
}

TEST_CASE("kernel source carries a #line directive with the real file") {
    const std::string text = read_with_line_directive(test::source("kernels/01_workgroup_reduce.cl"));
    CHECK(text.rfind("#line 1 \"", 0) == 0);
    CHECK(text.find("01_workgroup_reduce.cl\"\n") != std::string::npos);
}

TEST_CASE("devices: listing and choosing by index or name and a clear error for no match") {
    const auto devs = all_devices();
    REQUIRE_FALSE(devs.empty());
    const DeviceInfo def = select_device("");
    bool have_pocl_cpu = false;
    for (const auto &d : devs) have_pocl_cpu |= d.is_pocl() && d.is_cpu();
    if (have_pocl_cpu) CHECK((def.is_pocl() && def.is_cpu()));
    CHECK(select_device(devs.back().spec()).name == devs.back().name);
    CHECK(select_device("0:0").spec() == "0:0");
    if (have_pocl_cpu) {
        CHECK(select_device("PoRtAbLe").is_pocl());
        CHECK(select_device("pocl").is_pocl());
    }
    if (test::have_oclgrind()) CHECK(select_device("oclgrind").is_oclgrind());
    try {
        select_device("no-such-device");
        FAIL("expected UsageError");
    } catch (const UsageError &e) {
        const std::string m = e.what();
        CHECK(m.find("no-such-device") != std::string::npos);
        CHECK(m.find(devs.front().name) != std::string::npos);  // lists what exists
    }
    CHECK_THROWS_AS(select_device("7:7"), UsageError);
    std::ostringstream listing;
    list_devices(listing);
    for (const auto &d : devs) CHECK(listing.str().find(d.name) != std::string::npos);
    CHECK(listing.str().find("subgroups") != std::string::npos);
}

TEST_CASE("a build error is one line naming file:line, and carries the compiler's log") {
    Env env(select_device(""));
    try {
        build_source(env.context, env.info.device,
                     "__kernel void k() {\n  int x = ;\n  int y = ;\n}\n", "broken.cl");
        FAIL("expected BuildError");
    } catch (const BuildError &e) {
        const std::string what = e.what();
        CHECK(what.rfind("broken.cl:2: error: ", 0) == 0);
        CHECK(what.find("(and 1 more") != std::string::npos);
        CHECK(what.find('\n') == std::string::npos);
        CHECK(e.where == "broken.cl:2");
        CHECK_FALSE(e.first_error.empty());
        CHECK(e.log.find("broken.cl:3") != std::string::npos);
    }
}

TEST_CASE("processes: exit codes and signals and timeouts are reported and never waited on forever") {
    auto r = run_process({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"});
    CHECK(r.exited);
    CHECK(r.exit_code == 3);
    CHECK(r.out == "out\n");
    CHECK(r.err == "err\n");
    r = run_process({"/bin/sh", "-c", "kill -SEGV $$"});
    CHECK_FALSE(r.exited);
    CHECK(r.signal == SIGSEGV);
    ProcessLimits quick;
    quick.timeout_s = 0.5;
    // A child that outlasts its timeout: killed, its whole group with it, not waited for (it
    // would say "slept" at its end).
    r = run_process({"/bin/sh", "-c", "sleep 30; echo slept"}, {}, quick);
    CHECK(r.timed_out);
    CHECK(r.out.empty());
    r = run_process({"/bin/sh", "-c", "echo $SYNCLAB_X"}, {{"SYNCLAB_X", "42"}});
    CHECK(r.out == "42\n");
    r = run_process({"/no/such/program"});
    CHECK(r.exit_code == 127);
    // A huge timeout is clamped, not overflowed into "already late".
    ProcessLimits forever;
    forever.timeout_s = 1e300;
    r = run_process({"/bin/sh", "-c", "exit 4"}, {}, forever);
    CHECK_FALSE(r.timed_out);
    CHECK(r.exit_code == 4);
}

TEST_CASE("the test binary starts, lists and runs its tests where Oclgrind is missing") {
    // The tests' decorators once asked doctest to report before main, and it crashed there,
    // listing included, on every machine without Oclgrind. The child gets a private vendor
    // folder holding this machine's drivers but Oclgrind's (the labs leave a caller's
    // OCL_ICD_VENDORS as it is, and then add no Oclgrind of their own).
    namespace fs = std::filesystem;
    std::string made = (fs::temp_directory_path() / "synclab-no-oclgrind-XXXXXX").string();
    REQUIRE(mkdtemp(made.data()) != nullptr);
    const fs::path vendors = made;
    const char *given = std::getenv("OCL_ICD_VENDORS");
    const char *vendor_path = std::getenv("OPENCL_VENDOR_PATH");
    const fs::path from = given ? given : vendor_path ? vendor_path : "/etc/OpenCL/vendors";
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(from, ec)) {
        std::ifstream in(e.path());
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (text.find("oclgrind") == std::string::npos) fs::copy(e.path(), vendors / e.path().filename(), ec);
    }
    const std::string self = fs::read_symlink("/proc/self/exe").string();
    const std::map<std::string, std::string> env{{"OCL_ICD_VENDORS", vendors.string()},
                                                 {"OCL_ICD_FILENAMES", ""},
                                                 {"SYNCLAB_REQUIRE_OCLGRIND", ""}};
    const auto list = synclab::run_process({self, "--list-test-cases"}, env);
    CAPTURE(list.err);
    CHECK(list.describe() == "exit 0");
    // A test that asks for Oclgrind first (-tc splits at commas: its name up to one, then *).
    const std::string test = "lab06 Oclgrind reports no barrier and a local-fence-only barrier";
    CHECK(list.out.find(test + ", and the solution is clean") != std::string::npos);
    const auto skipped = synclab::run_process({self, "-tc=" + test + "*"}, env);
    CAPTURE(skipped.out);
    CHECK(skipped.describe() == "exit 0");
    CHECK(skipped.out.find("test cases: 1 | 1 passed") != std::string::npos);
    if (skipped.out.find("Oclgrind not installed") == std::string::npos) {
        // A loader that reads no OCL_ICD_VENDORS (CUDA's libOpenCL) found Oclgrind anyway.
        MESSAGE("this machine's OpenCL loader found Oclgrind without the vendor folder: only the start was checked");
    } else {
        auto required = env;
        required["SYNCLAB_REQUIRE_OCLGRIND"] = "1";
        const auto failed = synclab::run_process({self, "-tc=" + test + "*"}, required);
        CAPTURE(failed.out);
        CHECK(failed.describe() == "exit 1");
        CHECK(failed.out.find("Oclgrind is required") != std::string::npos);
    }
    fs::remove_all(vendors, ec);
}

TEST_CASE("processes: a child gets none of our files, parent_pipe gives it fd 3 while we live") {
    // A file of ours without O_CLOEXEC (as a report another thread writes) never reaches a child.
    const int null = open("/dev/null", O_RDONLY);
    const int leak = fcntl(null, F_DUPFD, 40);  // past fd 3 and the pipes
    ::close(null);
    REQUIRE(leak >= 40);
    const std::string has_leak = "test -e /proc/$$/fd/" + std::to_string(leak) + " && echo leaked; ";
    ProcessLimits plain;
    plain.timeout_s = 30;
    auto r = run_process({"/bin/sh", "-c", has_leak + "echo \"[$SYNCLAB_PARENT_FD]\""}, {}, plain);
    CHECK(r.out == "[]\n");
    ProcessLimits piped = plain;
    piped.parent_pipe = true;
    // The write end stays with this call until the child ends, so the child's `cat <&3` would
    // wait for ever: it reads without waiting, which fails (1) on an open pipe with nothing in
    // it and reads nothing (0) at its end.
    r = run_process({"/bin/sh", "-c", "echo \"[$SYNCLAB_PARENT_FD]\"; test -e /proc/$$/fd/3 && "
                                      "echo open; dd if=/dev/fd/3 iflag=nonblock count=1 "
                                      "status=none 2>/dev/null; echo \"dd $?\""},
                    {}, piped);
    CHECK(r.out == "[3]\nopen\ndd 1\n");  // open, nothing to read, not at its end
    r = run_process({"/bin/sh", "-c", has_leak + "echo done"}, {}, piped);
    CHECK(r.out == "done\n");
    ::close(leak);
}

TEST_CASE("processes: endless output is kept to its head and tail") {
    ProcessLimits small;
    small.max_output = 1 << 16;
    small.timeout_s = 30;
    const auto r = run_process({"/bin/sh", "-c", "echo first; yes | head -c 20000000; echo; echo last"},
                               {}, small);
    CHECK(r.exit_code == 0);
    CHECK(r.out.size() < 200000);
    CHECK(r.dropped > 19000000);
    CHECK(r.out.rfind("first\n", 0) == 0);
    CHECK(r.out.find("last\n") != std::string::npos);
}

TEST_CASE("processes: a stop flag kills the child at once") {
    static volatile int stop = 0;
    ProcessLimits limits;
    limits.timeout_s = 60;
    limits.stop = &stop;
    // Raised once the child runs (its $0 names it in /proc): a child that never ends by itself
    // before its timeout.
    const std::string name = "synclab-stop-test-" + std::to_string(getpid());
    std::thread raiser([&] {
        test::wait_until([&] { return test::running_with(name); }, 30, "the child runs");
        stop = 1;
    });
    const auto r = run_process({"/bin/sh", "-c", "sleep 50; echo slept", name}, {}, limits);
    raiser.join();
    CHECK(r.interrupted);
    CHECK_FALSE(r.timed_out);
    CHECK_FALSE(r.exited);
    CHECK(r.out.empty());  // killed in its sleep, not waited for
}

static const char *kRaceLog =
    "Read-write data race at local memory address 0x1000000000004\n"
    "\tKernel: reduceWithSync\n"
    "\t\n"
    "\tFirst entity:  Global(128,0,0) Local(128,0,0) Group(0,0,0)\n"
    "\t  store float %mul, float addrspace(3)* %arrayidx6, align 4, !dbg !42\n"
    "\tAt line 7 (column 17) of kernels/01_workgroup_reduce.cl:\n"
    "\t  const int i = get_global_id(0);\n"
    "\t\n"
    "\tSecond entity: Global(0,0,0) Local(0,0,0) Group(0,0,0)\n"
    "\t  %3 = load float, float addrspace(3)* %arrayidx13, align 4, !dbg !58\n"
    "\tAt line 10 (column 28) of kernels/01_workgroup_reduce.cl:\n"
    "\t  if (id < stride)\n"
    "\t\n"
    "\n"
    "Read-write data race at local memory address 0x1000000000008\n"
    "\tKernel: reduceWithSync\n"
    "\tFirst entity:  Global(129,0,0) Local(129,0,0) Group(0,0,0)\n"
    "\t  store float %mul, float addrspace(3)* %arrayidx6, align 4, !dbg !42\n"
    "\tAt line 7 (column 17) of kernels/01_workgroup_reduce.cl:\n"
    "\tSecond entity: Global(1,0,0) Local(1,0,0) Group(0,0,0)\n"
    "\t  %3 = load float, float addrspace(3)* %arrayidx13, align 4, !dbg !58\n"
    "\tAt line 10 (column 28) of kernels/01_workgroup_reduce.cl:\n"
    "\n"
    "Work-group divergence detected (barrier)\n"
    "\tKernel:     reduceWithSync\n"
    "\tWork-group: (0,0,0)\n"
    "\tOnly 128 out of 256 work-items executed barrier\n"
    "\t  tail call spir_func void @_Z7barrierj(i32 noundef 1) #5, !dbg !62\n"
    "\tAt line 12 (column 13) of kernels/01_workgroup_reduce.cl:\n"
    "\t  scratch[id] += scratch[id + stride];\n";

TEST_CASE("Oclgrind's log is read into findings each told in one friendly line") {
    const auto all = parse_oclgrind_log(kRaceLog);
    REQUIRE(all.size() == 3);
    CHECK(all[0].kind == "data-race");
    CHECK(all[0].kernel == "reduceWithSync");
    CHECK(all[0].file == "kernels/01_workgroup_reduce.cl");
    CHECK(all[0].lines == std::vector<int>{7, 10});
    CHECK(all[2].kind == "barrier-divergence");
    CHECK(all[2].line == 12);
    CHECK(all[2].reached == 128);
    const auto d = distinct(all);
    REQUIRE(d.size() == 2);
    CHECK(d[0].count == 2);
    const std::string race = d[0].friendly();
    CHECK(race.find("work-item 0 reads local memory at kernels/01_workgroup_reduce.cl:10") !=
          std::string::npos);
    CHECK(race.find("work-item 128 writes at line 7") != std::string::npos);
    CHECK(race.find("barrier(CLK_LOCAL_MEM_FENCE)") != std::string::npos);
    CHECK(d[1].friendly().find("kernels/01_workgroup_reduce.cl:12: only 128 of 256") !=
          std::string::npos);
    CHECK(parse_oclgrind_log("").empty());
    CHECK(parse_oclgrind_log("Invalid write of size 4 at global memory address 0x9\n"
                             "\tKernel: k\n\tAt line 3 of f.cl:\n")[0].kind == "out-of-bounds");
}

TEST_CASE("a race between an atomic and a plain access is told to make the plain one atomic, not to add a barrier") {
    synclab::OclgrindFinding f;
    f.kind = "data-race";
    f.kernel = "countdown";
    f.file = "07_atomics.cl";
    f.headline = "Read-write data race at global memory address 0x10";
    f.entities = {{3, 0, "0,0,0", "updates", 140}, {5, 0, "0,0,0", "reads", 142}};
    const std::string mixed = f.friendly();
    CAPTURE(mixed);
    CHECK(mixed.find("make the plain one atomic too") != std::string::npos);
    CHECK(mixed.find("barrier(") == std::string::npos);
    // Its twin, two plain accesses of one group: a barrier is the fix there.
    f.entities[0].access = "writes";
    CHECK(f.friendly().find("put barrier(CLK_GLOBAL_MEM_FENCE) between the two") != std::string::npos);
}

// Captured from real runs of lab 01 on Oclgrind 21.10 (OCLGRIND_LOG), the early return's
// kernel folder renamed kernels/; kCappedLog ran with OCLGRIND_MAX_ERRORS=3.
static const char *kEarlyReturnLog =
    "\n"
    "Work-group divergence detected (barrier)\n"
    "\tKernel:     reduceWithSync\n"
    "\tWork-group: (0,0,0)\n"
    "\tOnly 4 out of 8 work-items executed barrier\n"
    "\t  tail call spir_func void @_Z7barrierj(i32 noundef 1) #5, !dbg !58\n"
    "\tAt line 13 (column 9) of kernels/01_workgroup_reduce.cl:\n"
    "\t  scratch[id] += scratch[id + stride];\n"
    "\t\n"
    "\n"
    "Work-group divergence detected (barrier)\n"
    "\tKernel:     reduceWithSync\n"
    "\tWork-group: (0,0,0)\n"
    "\tOnly 2 out of 8 work-items executed barrier\n"
    "\t  tail call spir_func void @_Z7barrierj(i32 noundef 1) #5, !dbg !58\n"
    "\tAt line 13 (column 9) of kernels/01_workgroup_reduce.cl:\n"
    "\t  scratch[id] += scratch[id + stride];\n"
    "\t\n"
    "\n"
    "Work-group divergence detected (barrier)\n"
    "\tKernel:     reduceWithSync\n"
    "\tWork-group: (0,0,0)\n"
    "\tOnly 1 out of 8 work-items executed barrier\n"
    "\t  tail call spir_func void @_Z7barrierj(i32 noundef 1) #5, !dbg !58\n"
    "\tAt line 13 (column 9) of kernels/01_workgroup_reduce.cl:\n"
    "\t  scratch[id] += scratch[id + stride];\n"
    "\t\n";
static const char *kEarlyReturnSource =
    "// An early return: the work-items that have nothing left to add leave the kernel.\n"
    "__kernel void reduceWithSync(__global const float *a, __global const float *b,\n"
    "                             __global float *dot, __local float *scratch)\n"
    "{\n"
    "    const int id = get_local_id(0);\n"
    "    const int i = get_global_id(0);\n"
    "    scratch[id] = a[i] * b[i];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (int stride = get_local_size(0) / 2; stride > 0; stride >>= 1) {\n"
    "        if (id >= stride)\n"
    "            return;\n"
    "        scratch[id] += scratch[id + stride];\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "    if (id == 0)\n"
    "        dot[get_group_id(0)] = scratch[0];\n"
    "}\n";
static const char *kCappedLog =
    "\n"
    "Uninitialized value written to local memory address 0x1000000000000\n"
    "\tKernel: reduceWithSync\n"
    "\tEntity: Global(0,0,0) Local(0,0,0) Group(0,0,0)\n"
    "\t  store float %add16, float addrspace(3)* %arrayidx6, align 4, !dbg !59, !tbaa !35\n"
    "\tAt line 10 (column 25) of tests/fixtures/submissions/missing_first_barrier/01_workgroup_reduce.cl:\n"
    "\t  if (id < stride)\n"
    "\t\n"
    "\n"
    "Uninitialized value written to local memory address 0x1000000000004\n"
    "\tKernel: reduceWithSync\n"
    "\tEntity: Global(1,0,0) Local(1,0,0) Group(0,0,0)\n"
    "\t  store float %add16, float addrspace(3)* %arrayidx6, align 4, !dbg !59, !tbaa !35\n"
    "\tAt line 10 (column 25) of tests/fixtures/submissions/missing_first_barrier/01_workgroup_reduce.cl:\n"
    "\t  if (id < stride)\n"
    "\t\n"
    "\n"
    "Uninitialized value written to local memory address 0x1000000000008\n"
    "\tKernel: reduceWithSync\n"
    "\tEntity: Global(2,0,0) Local(2,0,0) Group(0,0,0)\n"
    "\t  store float %add16, float addrspace(3)* %arrayidx6, align 4, !dbg !59, !tbaa !35\n"
    "\tAt line 10 (column 25) of tests/fixtures/submissions/missing_first_barrier/01_workgroup_reduce.cl:\n"
    "\t  if (id < stride)\n"
    "\t\n"
    "\n"
    "Oclgrind: 3 errors generated - suppressing further errors\n"
    "\n";
static const char *kSameValueWritesLog =
    "\n"
    "Write-write data race at global memory address 0x3000000000000\n"
    "\tKernel: reduceWithSync\n"
    "\t\n"
    "\tFirst entity:  Global(1,0,0) Local(1,0,0) Group(0,0,0)\n"
    "\t  store float %2, float addrspace(1)* %arrayidx17, align 4, !dbg !53, !tbaa !34\n"
    "\tAt line 15 (column 26) of tests/fixtures/submissions/all_items_write/01_workgroup_reduce.cl:\n"
    "\t  }\n"
    "\t\n"
    "\tSecond entity: Global(0,0,0) Local(0,0,0) Group(0,0,0)\n"
    "\t  store float %2, float addrspace(1)* %arrayidx17, align 4, !dbg !53, !tbaa !34\n"
    "\tAt line 15 (column 26) of tests/fixtures/submissions/all_items_write/01_workgroup_reduce.cl:\n"
    "\t  }\n"
    "\t\n";
static const char *kUninitializedGlobalLog =
    "\n"
    "Uninitialized value written to global memory address 0x3000000000000\n"
    "\tKernel: reduceWithSync\n"
    "\tEntity: Global(0,0,0) Local(0,0,0) Group(0,0,0)\n"
    "\t  store float %5, float addrspace(1)* %arrayidx22, align 4, !dbg !69, !tbaa !35\n"
    "\tAt line 14 (column 30) of tests/fixtures/submissions/missing_first_barrier/01_workgroup_reduce.cl:\n"
    "\t  if (id == 0)\n"
    "\t\n"
    "\n";

TEST_CASE("an early return before a barrier is named at the return, read from the kernel's source") {
    auto found = distinct(parse_oclgrind_log(kEarlyReturnLog));
    REQUIRE(found.size() == 1);
    OclgrindFinding f = found[0];
    CHECK(f.kind == "barrier-divergence");
    CHECK(f.line == 13);
    // Without the source: the barrier's line, as before.
    CHECK(f.where() == "kernels/01_workgroup_reduce.cl:13");
    f.see_source(kEarlyReturnSource);
    CHECK(f.return_line == 11);
    CHECK(f.where() == "kernels/01_workgroup_reduce.cl:11");
    const std::string m = f.message();
    CHECK(m.find("work-items that return at kernels/01_workgroup_reduce.cl:11 never reach the "
                 "barrier at line 13 (only 4 of 8 reach it)") != std::string::npos);
    CHECK(m.find("do not return before a barrier") != std::string::npos);
    CHECK(m.find("move the barrier out of the if") == std::string::npos);
    CHECK(m.find("[3 reports]") != std::string::npos);

    // A barrier inside an if, with no return: the barrier's line and "move the barrier".
    OclgrindFinding in_if = distinct(parse_oclgrind_log(kRaceLog))[1];
    REQUIRE(in_if.kind == "barrier-divergence");
    const std::string barrier_in_if =
        "__kernel void reduceWithSync(__global const float *a, __global const float *b,\n"
        "                             __global float *dot, __local float *scratch)\n"
        "{\n"
        "    const int id = get_local_id(0);  // no return here\n"
        "    /* nor a return here */\n"
        "    scratch[id] = a[get_global_id(0)] * b[get_global_id(0)];\n"
        "    barrier(CLK_LOCAL_MEM_FENCE);\n"
        "    for (int stride = get_local_size(0) / 2; stride > 0; stride >>= 1) {\n"
        "        if (id < stride) {\n"
        "            scratch[id] += scratch[id + stride];\n"
        "            barrier(CLK_LOCAL_MEM_FENCE);\n"
        "        }\n";
    in_if.see_source(barrier_in_if);
    CHECK(in_if.return_line == 0);
    CHECK(in_if.message().find("move the barrier out of the if") != std::string::npos);
    // A return in another kernel, before this one starts, is not this kernel's.
    OclgrindFinding other = distinct(parse_oclgrind_log(kRaceLog))[1];
    other.see_source("__kernel void first(__global int *x) {\n  return;\n}\n" +
                     barrier_in_if.substr(0, barrier_in_if.find("{\n    const")) + "{\n\n\n\n\n\n\n\n\n");
    CHECK(other.return_line == 0);
}

TEST_CASE("an uninitialised value stored to local memory points at the missing barrier") {
    const auto local = distinct(parse_oclgrind_log(kCappedLog));
    REQUIRE(local.size() == 1);
    CHECK(local[0].kind == "uninitialized");
    CHECK(local[0].count == 3);
    CHECK(local[0].message().find("put barrier(CLK_LOCAL_MEM_FENCE) between the writes and the "
                                  "reads") != std::string::npos);
    const auto global = parse_oclgrind_log(kUninitializedGlobalLog);
    REQUIRE(global.size() == 1);
    CHECK(global[0].kind == "uninitialized");
    CHECK(global[0].message().find("write it before reading it") != std::string::npos);
    CHECK(global[0].message().find("CLK_LOCAL_MEM_FENCE") == std::string::npos);
}

TEST_CASE("Oclgrind's notice that it stops reporting, and a compiler's output, are never findings") {
    const auto all = parse_oclgrind_log(kCappedLog);
    CHECK(all.size() == 3);
    for (const auto &f : all) {
        CHECK(f.headline.find("errors generated") == std::string::npos);
        CHECK(f.fails());
    }
    CHECK(oclgrind_suppressed_after(kCappedLog) == 3);
    CHECK(oclgrind_suppressed_after(kRaceLog) == 0);
    // Oclgrind's compiler output for a variable named half (a build log, not a report).
    const char *build_log =
        "half/01_workgroup_reduce.cl:17:15: error: cannot combine with previous 'int' declaration "
        "specifier\n"
        "    const int half = groupSize / 2;\n"
        "              ^\n"
        "half/01_workgroup_reduce.cl:17:20: error: expected identifier or '('\n"
        "    const int half = groupSize / 2;\n"
        "                   ^\n";
    CHECK(parse_oclgrind_log(build_log).empty());
    CHECK(parse_oclgrind_log(std::string(build_log) + kSameValueWritesLog).size() == 1);
}

TEST_CASE("every work-item writing one place is told to let one of them write it") {
    const auto f = parse_oclgrind_log(kSameValueWritesLog);
    REQUIRE(f.size() == 1);
    CHECK(f[0].kind == "data-race");
    const std::string m = f[0].message();
    CHECK(m.find("work-items 0 and 1 both write global memory at "
                 "tests/fixtures/submissions/all_items_write/01_workgroup_reduce.cl:15") !=
          std::string::npos);
    CHECK(m.find("let one of them write it, e.g. if (id == 0)") != std::string::npos);
    CHECK(m.find("CLK_LOCAL_MEM_FENCE") == std::string::npos);  // no barrier fixes it
}

TEST_CASE("the Envs of one device share its context and build each source once, Oclgrind's do not") {
    const std::string source = "__kernel void k(__global int *x) { x[0] = 1; }\n";
    Env a(select_device("")), b(select_device(""));
    REQUIRE_FALSE(a.info.is_oclgrind());  // SYNCLAB_DEVICE=oclgrind: Oclgrind is checked below
    CHECK(a.context() == b.context());
    CHECK(a.queue() != b.queue());
    const cl::Program once = build_source(a.context, a.info.device, source, "same.cl");
    CHECK(build_source(b.context, b.info.device, source, "same.cl")() == once());
    CHECK(build_source(b.context, b.info.device, source + "\n", "same.cl")() != once());
    CHECK(build_source(b.context, b.info.device, source, "other.cl")() != once());
    // The options are part of what is kept.
    const std::string kernels = test::source("solutions");
    const cl::Program plain = build_program(a.context, a.info.device, "01_workgroup_reduce.cl", kernels);
    CHECK(build_program(b.context, b.info.device, "01_workgroup_reduce.cl", kernels)() == plain());
    CHECK(build_program(b.context, b.info.device, "01_workgroup_reduce.cl", kernels, "-D X=1")() !=
          plain());
    // A failed build is never kept: it fails again.
    for (int i = 0; i < 2; ++i)
        CHECK_THROWS_AS(build_source(a.context, a.info.device, "__kernel void k() { int x = ; }\n",
                                     "broken.cl"),
                        BuildError);
    if (!test::have_oclgrind()) return;
    Env o1(select_device("oclgrind")), o2(select_device("oclgrind"));
    CHECK(o1.context() != o2.context());
    CHECK(build_source(o1.context, o1.info.device, source, "same.cl")() !=
          build_source(o1.context, o1.info.device, source, "same.cl")());
}

TEST_CASE("a variable named half is a compile error whose hint says why") {
    Env env(select_device(""));
    const std::string with_half =
        "__kernel void k(__global int *out) {\n"
        "  const int n = get_local_size(0);\n"
        "  const int half = n / 2;\n"
        "  out[get_global_id(0)] = half;\n"
        "}\n";
    try {
        build_source(env.context, env.info.device, with_half, "half.cl");
        FAIL("expected BuildError");
    } catch (const BuildError &e) {
        const std::string what = e.what();
        CAPTURE(e.log);
        CHECK(what.rfind("half.cl:3: error: ", 0) == 0);
        CHECK(what.find("half is a type name in OpenCL C: rename the variable") != std::string::npos);
        CHECK(e.first_error.find("half is a type name") != std::string::npos);
    }
    // Renamed, it builds; and an error elsewhere gets no such hint.
    std::string renamed = with_half;
    for (std::size_t at = 0; (at = renamed.find("half", at)) != std::string::npos; at += 8)
        renamed.replace(at, 4, "halfSize");
    CHECK_NOTHROW(build_source(env.context, env.info.device, renamed, "renamed.cl"));
    try {
        build_source(env.context, env.info.device, "__kernel void k() {\n  int x = ;\n}\n",
                     "other.cl");
        FAIL("expected BuildError");
    } catch (const BuildError &e) {
        CHECK(std::string(e.what()).find("half") == std::string::npos);
    }
}

TEST_CASE("a device name that matches several devices is refused with every match listed") {
    const auto devs = all_devices();
    // Every platform version starts "OpenCL": "opencl" matches every device.
    if (devs.size() >= 2) {
        try {
            select_device("opencl");
            FAIL("expected UsageError");
        } catch (const UsageError &e) {
            const std::string m = e.what();
            CHECK(m.find("--device 'opencl' matches " + std::to_string(devs.size()) + " devices") == 0);
            for (const auto &d : devs) CHECK(m.find("[" + d.spec() + " " + d.platform) != std::string::npos);
            CHECK(m.find("use --device P:D") != std::string::npos);
        }
    } else {
        CHECK(select_device("opencl").spec() == devs.front().spec());
    }
    // What names one device still chooses it: an index, Oclgrind, POCL, a whole name.
    for (const auto &d : devs) CHECK(select_device(d.spec()).spec() == d.spec());
    if (test::have_oclgrind()) CHECK(select_device("oclgrind").is_oclgrind());
    int pocl = 0;
    for (const auto &d : devs) pocl += d.is_pocl();
    if (pocl == 1) CHECK(select_device("pocl").is_pocl());
    // A whole device name wins over the devices that only contain it.
    CHECK(select_device(devs.back().name).name == devs.back().name);
}

// A kernel that declares `floats` floats of __local memory itself and uses them all.
static cl::Kernel own_local_kernel(Env &env, std::size_t floats) {
    const std::string source =
        "__kernel void own(__global float *out, __local float *scratch) {\n"
        "  __local float mine[" + std::to_string(floats) + "];\n"
        "  for (uint i = get_local_id(0); i < " + std::to_string(floats) +
        "u; i += get_local_size(0)) mine[i] = i;\n"
        "  scratch[get_local_id(0)] = 1.0f;\n"
        "  barrier(CLK_LOCAL_MEM_FENCE);\n"
        "  out[get_global_id(0)] = mine[get_local_id(0)] + mine[" + std::to_string(floats - 1) +
        "] + scratch[0];\n"
        "}\n";
    return cl::Kernel(build_source(env.context, env.info.device, source, "own.cl"), "own");
}

TEST_CASE("too much local memory is told with the whole count and the fix that works") {
    Env env(select_device(""));
    const auto &dev = env.info.device;
    const cl_ulong local = dev.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
    // The kernel's own arrays alone are too big: no --wg helps.
    cl::Kernel big = own_local_kernel(env, local / sizeof(float) + 1024);
    const cl_ulong big_own = big.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(dev);
    REQUIRE(big_own > local);
    try {
        check_launch(big, dev, 64, 64 * sizeof(float));
        FAIL("expected UsageError");
    } catch (const UsageError &e) {
        const std::string m = e.what();
        CHECK(m.find("needs " + std::to_string(big_own + 256) + " bytes") != std::string::npos);
        CHECK(m.find("this device's " + std::to_string(local)) != std::string::npos);
        CHECK(m.find("make the kernel's own __local arrays smaller") != std::string::npos);
        CHECK(m.find("use --wg") == std::string::npos);
    }
    // Its own arrays leave 2 KiB: 1024 work-items' scratch does not fit, a smaller --wg does.
    cl::Kernel tight = own_local_kernel(env, (local - 2048) / sizeof(float));
    const cl_ulong own = tight.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(dev);
    REQUIRE(own < local);
    std::size_t fits = 0;
    for (std::size_t w = 1; w < 1024 && w * sizeof(float) + own <= local; w *= 2) fits = w;
    REQUIRE(fits > 0);
    try {
        check_launch(tight, dev, 1024, 1024 * sizeof(float));
        FAIL("expected UsageError");
    } catch (const UsageError &e) {
        const std::string m = e.what();
        CHECK(m.find("needs " + std::to_string(own + 4096) + " bytes") != std::string::npos);
        CHECK(m.find("(4096 for --wg 1024 and " + std::to_string(own)) != std::string::npos);
        CHECK(m.find("use --wg " + std::to_string(fits) + " or less") != std::string::npos);
    }
    CHECK_NOTHROW(check_launch(tight, dev, fits, fits * sizeof(float)));
}

TEST_CASE("a work-group above what a kernel reports is left to the launch, whose refusal names it") {
    // Above the device's largest: no kernel could run it. Above the kernel's report alone: the
    // H100's driver reports 256 for every kernel and runs 1024, so the launch decides.
    CHECK(work_group_fit(2048, 1024, 256) == WorkGroupFit::AboveDevice);
    CHECK(work_group_fit(1024, 1024, 256) == WorkGroupFit::AboveKernelReport);
    CHECK(work_group_fit(256, 1024, 256) == WorkGroupFit::Fits);
    const cl::Error refused(CL_INVALID_WORK_GROUP_SIZE, "clEnqueueNDRangeKernel");
    clear_kernel_limits();
    CHECK(noted_kernel_limit().empty());
    CHECK(describe(refused).find("choose a smaller --wg") != std::string::npos);
    note_kernel_limit("dotPartials", 256);
    note_kernel_limit("reduceBarrier", 512);
    const std::string limit =
        "kernel dotPartials reports at most 256 work-items on this device: use --wg 256 or less";
    CHECK(noted_kernel_limit() == limit);
    CHECK(describe(refused) == "clEnqueueNDRangeKernel failed: CL_INVALID_WORK_GROUP_SIZE (" +
                                   limit + "; or choose a smaller --wg (see --list-devices for "
                                   "the device maximum))");
    CHECK(describe(cl::Error(CL_OUT_OF_RESOURCES, "clEnqueueNDRangeKernel"))
              .find("(" + limit + "; or the device ran out of memory") != std::string::npos);
    // Another call's error is not a refused launch: its own hint alone.
    CHECK(describe(cl::Error(CL_OUT_OF_RESOURCES, "clCreateBuffer")).find("dotPartials") ==
          std::string::npos);
    clear_kernel_limits();
    CHECK(describe(refused).find("dotPartials") == std::string::npos);
    // The device's own largest is still refused before any launch, as unsupported.
    Env env(select_device(""));
    const std::size_t dev_max = env.info.device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
    cl::Kernel k(build_source(env.context, env.info.device,
                              "__kernel void k(__global float *x) { x[get_global_id(0)] = 1.0f; }\n",
                              "k.cl"),
                 "k");
    CHECK_THROWS_AS(check_launch(k, env.info.device, dev_max * 2, 0), Unsupported);
    CHECK_NOTHROW(check_launch(k, env.info.device, dev_max, 0));
    clear_kernel_limits();  // a device whose kernel reports less noted one just now
}

TEST_CASE("the default --timeout is a minute where work-groups wait for one another, five elsewhere") {
    Declaration spin, plain;
    spin.stress_schedules = 2;  // groups_wait: a lock or a barrier between groups
    Options o;
    CHECK(run_timeout(spin, o) == kSpinTimeout);
    CHECK(kSpinTimeout == 60);
    CHECK(run_timeout(plain, o) == 300);
    o.stress = 3;  // a stress run's schedules take their time
    CHECK(run_timeout(spin, o) == 300);
    o.stress = 0;
    o.timeout_given = true;  // as given, whatever the lab
    o.timeout = 7;
    CHECK(run_timeout(spin, o) == 7);
    CHECK(run_timeout(plain, o) == 7);
    o.timeout = 0;  // 0: no limit
    CHECK(run_timeout(spin, o) == 0);
}

// The lines of a doctest listing, its header and footer left out.
std::set<std::string> doctest_listing(const std::vector<std::string> &args) {
    std::vector<std::string> argv{"/proc/self/exe", "--no-version"};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto listed = run_process(argv);
    REQUIRE(listed.exit_code == 0);
    std::set<std::string> out;
    std::istringstream lines(listed.out);
    for (std::string l; std::getline(lines, l);)
        if (!l.empty() && l.rfind("[doctest]", 0) != 0 && l.rfind("=====", 0) != 0) out.insert(l);
    return out;
}

TEST_CASE("every test case is in a suite, so ctest's labels pick each one") {
    const auto all = doctest_listing({"--list-test-cases"});
    std::set<std::string> labelled;
    for (const auto &suite : doctest_listing({"--list-test-suites"}))
        for (const auto &name : doctest_listing({"--test-suite=" + suite, "--list-test-cases"}))
            labelled.insert(name);
    for (const auto &name : all) {
        CAPTURE(name);
        CHECK(labelled.count(name) == 1);
    }
    CHECK(all.size() > 100);
}

TEST_CASE("every name in tests/test_costs.cmake is a test case of this suite") {
    std::ifstream in(test::source("tests/test_costs.cmake"));
    REQUIRE(in);
    const auto cases = doctest_listing({"--list-test-cases"});
    int named = 0;
    for (std::string l; std::getline(in, l);) {
        const std::string head = "set_tests_properties(\"";
        if (l.rfind(head, 0) != 0) continue;
        const std::string name = l.substr(head.size(), l.rfind("\" PROPERTIES") - head.size());
        CAPTURE(name);
        CHECK(cases.count(name) == 1);  // ctest ignores a hint for no test: a rename loses it
        ++named;
    }
    CHECK(named >= 10);
}

}  // TEST_SUITE
