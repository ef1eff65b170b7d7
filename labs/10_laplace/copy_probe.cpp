// For lab 10: lab 08's copy-bandwidth probe (and its GB/s arithmetic), compiled into this lab
// from lab 08's folder, so that CMake and Makefile.lecture, which build a lab from its own
// folder's .cpp files, both link it.
#include "../08_reduction_ladder/bandwidth.cpp"
