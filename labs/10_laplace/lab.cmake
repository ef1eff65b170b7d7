# Lab 10's host peer on a CPU device (omp_sweep.cpp): -O3, the widest vectors and OpenMP for that
# file alone (labs/cpu_peers.cmake).
synclab_add_lab(${CMAKE_CURRENT_LIST_DIR} CPU_PEERS omp_sweep.cpp)
