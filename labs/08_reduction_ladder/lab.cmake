# Lab 08's peer library: CLBlast (Debian's libclblast-dev) where it is found; without it the lab
# says "CLBlast: not built in" and runs the rest.
find_library(SYNCLAB_CLBLAST_LIB clblast)
find_path(SYNCLAB_CLBLAST_INCLUDE clblast_c.h)
if(SYNCLAB_CLBLAST_LIB AND SYNCLAB_CLBLAST_INCLUDE)
  target_compile_definitions(${exe} PRIVATE SYNCLAB_HAVE_CLBLAST)
  target_include_directories(${exe} PRIVATE ${SYNCLAB_CLBLAST_INCLUDE})
  target_link_libraries(${exe} PRIVATE ${SYNCLAB_CLBLAST_LIB})
else()
  message(STATUS "lab 08: CLBlast not found; the lab runs without its library peer")
endif()
# The host peers of a CPU device (cpu_peers.cpp): -O3, the widest vectors and OpenMP for that
# file alone (labs/cpu_peers.cmake).
include(${CMAKE_CURRENT_LIST_DIR}/../cpu_peers.cmake)
synclab_cpu_peers(${exe} ${CMAKE_CURRENT_LIST_DIR}/cpu_peers.cpp)
