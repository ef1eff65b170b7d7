# Lab 10's host peer on a CPU device (omp_sweep.cpp): -O3, the widest vectors and OpenMP for that
# file alone (labs/cpu_peers.cmake).
include(${CMAKE_CURRENT_LIST_DIR}/../cpu_peers.cmake)
synclab_cpu_peers(${exe} ${CMAKE_CURRENT_LIST_DIR}/omp_sweep.cpp)
