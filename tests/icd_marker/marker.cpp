// For tests/opencl_security_tests.cpp: a library that betrays being loaded. Its constructor
// writes the file named by SYNCLAB_TEST_MARKER, so a test sees whether a lab loaded it as an
// OpenCL driver.
#include <cstdio>
#include <cstdlib>

__attribute__((constructor)) static void synclab_test_mark_loaded() {
    const char *path = std::getenv("SYNCLAB_TEST_MARKER");
    if (!path || !*path) return;
    if (std::FILE *f = std::fopen(path, "w")) {
        std::fputs("loaded\n", f);
        std::fclose(f);
    }
}
