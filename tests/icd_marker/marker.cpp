// For tests/opencl_security_tests.cpp: a library that betrays being loaded. Its constructor
// writes the file named by SYNCLAB_TEST_MARKER, so a test sees whether a lab loaded it as an
// OpenCL driver, and the OCL_ICD_FILENAMES it was loaded under.
#include <cstdio>
#include <cstdlib>

__attribute__((constructor)) static void synclab_test_mark_loaded() {
    const char *path = std::getenv("SYNCLAB_TEST_MARKER");
    if (!path || !*path) return;
    if (std::FILE *f = std::fopen(path, "w")) {
        std::fputs("loaded\n", f);
        const char *files = std::getenv("OCL_ICD_FILENAMES");
        std::fprintf(f, "OCL_ICD_FILENAMES=%s\n", files ? files : "");
        std::fclose(f);
    }
}
