# The host peers of labs 08 and 10 (a CPU device's OpenMP and std::threads loops), built as a user
# would build them: -O3, the build machine's widest vectors (-march=SYNCLAB_PEERS_ARCH, native by
# default; set it empty for a build that runs on other machines, as the grading images do) and
# OpenMP, for the peer's file alone, its library linked to what holds that file (an executable's
# OpenMP threads passive: omp_passive.cpp). Without OpenMP the labs say so and run the rest.
# Included by those labs' lab.cmake; the tests call it too.
if(NOT COMMAND synclab_cpu_peers)
  include(CheckCXXCompilerFlag)
  check_cxx_compiler_flag(-march=native SYNCLAB_HAS_MARCH_NATIVE)
  if(SYNCLAB_HAS_MARCH_NATIVE)
    set(SYNCLAB_PEERS_ARCH native CACHE STRING "labs 08 and 10's host peers: -march= (empty: the compiler's default)")
  else()
    set(SYNCLAB_PEERS_ARCH "" CACHE STRING "labs 08 and 10's host peers: -march= (empty: the compiler's default)")
  endif()
  function(synclab_cpu_peers target source)
    find_package(OpenMP QUIET COMPONENTS CXX)
    set(options -O3)
    if(SYNCLAB_PEERS_ARCH)
      list(APPEND options -march=${SYNCLAB_PEERS_ARCH})
    endif()
    if(OpenMP_CXX_FOUND)
      separate_arguments(omp UNIX_COMMAND "${OpenMP_CXX_FLAGS}")
      list(APPEND options ${omp})
      get_target_property(type ${target} TYPE)
      if(NOT type STREQUAL OBJECT_LIBRARY)
        target_link_libraries(${target} PRIVATE OpenMP::OpenMP_CXX)
      endif()
      # An executable's OpenMP threads sleep between loops (omp_passive.cpp says why); a module
      # cannot set it before libgomp reads it, and runs with the environment's policy.
      if(type STREQUAL EXECUTABLE)
        target_sources(${target} PRIVATE ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/omp_passive.cpp)
      endif()
    else()
      message(STATUS "OpenMP not found: labs 08 and 10 run without their OpenMP peers")
    endif()
    set_source_files_properties(${source} TARGET_DIRECTORY ${target} PROPERTIES COMPILE_OPTIONS "${options}")
  endfunction()
endif()
