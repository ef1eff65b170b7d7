// What another local user could plant: a lab must load drivers only from places nobody else can
// write, and unusual kernel paths must not hang it.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <pwd.h>
#include <sys/stat.h>
#include <string>
#include <thread>
#include <unistd.h>

#include "support.hpp"
#include "synclab/errors.hpp"
#include "synclab/kernels.hpp"
#include "synclab/protocol.hpp"

namespace fs = std::filesystem;

namespace {

// A folder of the test's own under the system's temporary folder, removed at the end.
struct TempFolder {
    fs::path path;
    TempFolder() {
        std::string templ = (fs::temp_directory_path() / "synclab-test-XXXXXX").string();
        REQUIRE(mkdtemp(templ.data()) != nullptr);
        path = templ;
    }
    ~TempFolder() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

void write(const fs::path &p, const std::string &text) {
    std::ofstream out(p);
    out << text;
    REQUIRE(out.good());
}

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("a lab never loads a driver from an ICD folder that someone else made first") {
    const TempFolder tmp;
    const fs::path marker = tmp.path / "marker";
    // The folder the labs used to share, made first by someone else, who keeps an .icd of
    // their own in it (re-made the moment it is removed: the folder is theirs).
    const fs::path theirs = tmp.path / ("synclab-icd-" + std::to_string(getuid()));
    const fs::path spare = tmp.path / "spare";
    fs::create_directory(theirs);
    fs::create_directory(spare);
    write(spare / "planted.icd", std::string(SYNCLAB_TEST_MARKER_LIB) + "\n");
    if (getuid() == 0)
        if (const passwd *nobody = getpwnam("nobody")) {
            REQUIRE(chown(theirs.c_str(), nobody->pw_uid, nobody->pw_gid) == 0);
            REQUIRE(chown(spare.c_str(), nobody->pw_uid, nobody->pw_gid) == 0);
            REQUIRE(chown((spare / "planted.icd").c_str(), nobody->pw_uid, nobody->pw_gid) == 0);
        }
    std::atomic<bool> stop{false};
    std::thread planter([&] {
        const std::string from = (spare / "planted.icd").string();
        const std::string to = (theirs / "planted.icd").string();
        while (!stop) link(from.c_str(), to.c_str());
    });
    const std::map<std::string, std::string> env{{"TMPDIR", tmp.path.string()},
                                                 {"SYNCLAB_TEST_MARKER", marker.string()},
                                                 {"OCL_ICD_VENDORS", ""}};
    // The old shared folder lost this race in about one run of three: many runs, stopping at
    // the first load.
    int runs = 0;
    bool listed = true;
    std::string out;
    for (; runs < 40 && !fs::exists(marker); ++runs) {
        const auto r = test::run_lab("lab01_workgroup_reduce", {"--list-devices"}, env);
        listed &= r.exited && r.exit_code == 0;
        out = r.out;
    }
    stop = true;
    planter.join();
    CAPTURE(runs);
    CHECK_FALSE(fs::exists(marker));
    CHECK(listed);
    // The lab still sees every device, Oclgrind included: its own folder was used.
    for (const auto &d : synclab::all_devices()) CHECK(out.find(d.name) != std::string::npos);
    if (test::have_oclgrind()) CHECK(out.find("Oclgrind") != std::string::npos);
    // Each run removed its own folder: only theirs is left.
    for (const auto &e : fs::directory_iterator(tmp.path)) {
        CAPTURE(e.path().string());
        CHECK((e.path() == theirs || e.path() == spare || e.path() == marker));
    }

    // The planted library does betray a load: pointed at that folder, a lab loads it.
    const fs::path control = tmp.path / "control";
    link((spare / "planted.icd").c_str(), (theirs / "planted.icd").c_str());
    const auto r = test::run_lab("lab01_workgroup_reduce", {"--list-devices"},
                                 {{"OCL_ICD_VENDORS", theirs.string()},
                                  {"SYNCLAB_TEST_MARKER", control.string()}});
    CHECK(r.exited);  // exit 2: the planted library is no driver
    CHECK(fs::exists(control));
}

TEST_CASE("a lab lists its ICD folder's drivers in OCL_ICD_FILENAMES too, for a Khronos loader") {
    if (!test::have_oclgrind()) return;
    // A Khronos ICD loader first on the library path (CUDA's libOpenCL) may skip the lab's
    // private OCL_ICD_VENDORS folder, and then Oclgrind with it; it does load the libraries that
    // OCL_ICD_FILENAMES lists. The marker, a system driver here, says what that was when loaded.
    const TempFolder tmp;
    const fs::path system = tmp.path / "vendors", marker = tmp.path / "marker";
    fs::create_directory(system);
    write(system / "marker.icd", std::string(SYNCLAB_TEST_MARKER_LIB) + "\n");
    const auto r = test::run_lab("lab01_workgroup_reduce", {"--list-devices"},
                                 {{"OPENCL_VENDOR_PATH", system.string()},
                                  {"OCL_ICD_VENDORS", ""},
                                  {"OCL_ICD_FILENAMES", ""},
                                  {"TMPDIR", tmp.path.string()},
                                  {"SYNCLAB_TEST_MARKER", marker.string()}});
    CHECK(r.exited);
    REQUIRE(fs::exists(marker));
    std::ifstream in(marker);
    const std::string said((std::istreambuf_iterator<char>(in)), {});
    CAPTURE(said);
    const auto at = said.find("OCL_ICD_FILENAMES=");
    REQUIRE(at != std::string::npos);
    const std::string files = said.substr(at + 18, said.find('\n', at) - at - 18);
    CHECK(files.find(SYNCLAB_TEST_MARKER_LIB) != std::string::npos);
    CHECK(files.find("oclgrind") != std::string::npos);
    CHECK(files.find(':') != std::string::npos);
}

TEST_CASE("a kernel path that is a FIFO, a device, a folder or empty is named in one line, never waited on") {
    const TempFolder tmp;
    const std::string file = "01_workgroup_reduce.cl";
    struct Case {
        std::string name, says;
    };
    const std::vector<Case> cases{{"fifo", "is a FIFO, not a kernel file: hand in a regular .cl file"},
                                  {"device", "is a character device, not a kernel file"},
                                  {"folder", "is a folder, not a kernel file"},
                                  {"empty", "is empty: hand in the .cl file with its kernels in it"}};
    for (const auto &c : cases) fs::create_directory(tmp.path / c.name);
    REQUIRE(mkfifo((tmp.path / "fifo" / file).c_str(), 0600) == 0);
    fs::create_symlink("/dev/zero", tmp.path / "device" / file);  // endless, if ever read
    fs::create_directory(tmp.path / "folder" / file);
    write(tmp.path / "empty" / file, "");
    for (const auto &c : cases) {
        CAPTURE(c.name);
        const std::string path = (tmp.path / c.name / file).string();
        test::check_usage_error("lab01_workgroup_reduce",
                                {"--kernels", (tmp.path / c.name).string(), "--timeout", "60"},
                                path + " " + c.says);
        // Looked at, never opened: no wait even in-process.
        CHECK_THROWS_WITH_AS(synclab::find_kernel_file(file, (tmp.path / c.name).string()),
                             doctest::Contains(c.says.c_str()), synclab::UsageError);
    }
    // --kernels naming a file instead of its folder.
    test::check_usage_error("lab01_workgroup_reduce",
                            {"--kernels", test::source("solutions/" + file)},
                            "is a file, not a folder: give the folder that holds " + file);
    // The regular file beside them is found and runs.
    fs::create_directory(tmp.path / "good");
    fs::copy_file(test::source("solutions/" + file), tmp.path / "good" / file);
    CHECK(synclab::find_kernel_file(file, (tmp.path / "good").string()) ==
          (tmp.path / "good" / file).string());
    const auto r = test::run_lab("lab01_workgroup_reduce",
                                 {"--kernels", (tmp.path / "good").string(), "--variant", "sync"});
    CHECK(r.exit_code == 0);
}

TEST_CASE("a --device name that matches several devices is one line listing each, exit 2") {
    const auto devs = synclab::all_devices();
    if (devs.size() < 2) {
        MESSAGE("one device: no name can be ambiguous here");
        return;
    }
    test::check_usage_error("lab01_workgroup_reduce", {"--device", "opencl"},
                            "--device 'opencl' matches " + std::to_string(devs.size()) + " devices: [" +
                                devs.front().spec());
    test::check_usage_error("lab01_workgroup_reduce", {"--variant", "sync"}, "use --device P:D",
                            {{synclab::protocol::kDevice, "opencl"}});
}

}  // TEST_SUITE
