# Lab 08's build needs, declared once. Its peer library: CLBlast (Debian's libclblast-dev) where
# it is found; without it the lab says "CLBlast: not built in" and runs the rest. Its host peers
# of a CPU device (cpu_peers.cpp): -O3, the widest vectors and OpenMP for that file alone
# (labs/cpu_peers.cmake).
find_library(SYNCLAB_CLBLAST_LIB clblast)
find_path(SYNCLAB_CLBLAST_INCLUDE clblast_c.h)
set(clblast "")
if(SYNCLAB_CLBLAST_LIB AND SYNCLAB_CLBLAST_INCLUDE)
  if(NOT TARGET synclab::clblast)
    add_library(synclab::clblast INTERFACE IMPORTED)
    target_link_libraries(synclab::clblast INTERFACE ${SYNCLAB_CLBLAST_LIB})
    target_include_directories(synclab::clblast INTERFACE ${SYNCLAB_CLBLAST_INCLUDE})
    target_compile_definitions(synclab::clblast INTERFACE SYNCLAB_HAVE_CLBLAST)
  endif()
  set(clblast synclab::clblast)
else()
  message(STATUS "lab 08: CLBlast not found; the lab runs without its library peer")
endif()
synclab_add_lab(${CMAKE_CURRENT_LIST_DIR} LIBRARIES ${clblast} CPU_PEERS cpu_peers.cpp)
