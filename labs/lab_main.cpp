// A lab executable's entry. Each lab's sources are compiled once, with their main renamed to
// synclab_lab_main (labs/CMakeLists.txt), for the executable a student runs and for the module
// the grader's runner loads (module_entry.cpp).
int synclab_lab_main(int argc, char **argv);

int main(int argc, char **argv) { return synclab_lab_main(argc, argv); }
