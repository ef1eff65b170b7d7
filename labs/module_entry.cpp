// For the grader's runner (tools/labs-runner/runner.cpp): a lab built as a module has its main
// renamed to synclab_lab_main (labs/CMakeLists.txt); this is the one name the runner looks up.
int synclab_lab_main(int argc, char **argv);

extern "C" int synclab_module_main(int argc, char **argv) { return synclab_lab_main(argc, argv); }
