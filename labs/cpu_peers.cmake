# The host peers of labs 08 and 10 (a CPU device's OpenMP and std::threads loops), built as a user
# would build them: -O3, the build machine's widest vectors (-march=SYNCLAB_PEERS_ARCH, native by
# default; set it empty for a build that runs on other machines, as the grading images do) and
# OpenMP, for the peer's files alone, its library linked to what holds them (an executable's
# OpenMP threads passive: omp_passive.cpp). Without OpenMP the labs say so and run the rest.
# A lab declares its peers once (synclab_add_lab's CPU_PEERS, labs/synclab_add_lab.cmake); the
# tests call synclab_cpu_peers too.
if(NOT COMMAND synclab_cpu_peers)
  include(CheckCXXCompilerFlag)
  check_cxx_compiler_flag(-march=native SYNCLAB_HAS_MARCH_NATIVE)
  if(SYNCLAB_HAS_MARCH_NATIVE)
    set(SYNCLAB_PEERS_ARCH native CACHE STRING "labs 08 and 10's host peers: -march= (empty: the compiler's default)")
  else()
    set(SYNCLAB_PEERS_ARCH "" CACHE STRING "labs 08 and 10's host peers: -march= (empty: the compiler's default)")
  endif()
  # Found again in each function: a call from another folder (the tests) sees its own result.
  find_package(OpenMP QUIET COMPONENTS CXX)
  if(NOT OpenMP_CXX_FOUND)
    message(STATUS "OpenMP not found: labs 08 and 10 run without their OpenMP peers")
  endif()
  # An executable's OpenMP threads sleep between loops (omp_passive.cpp says why); a module
  # cannot set it before libgomp reads it, and runs with the environment's policy.
  add_library(synclab_omp_passive OBJECT ${CMAKE_CURRENT_LIST_DIR}/omp_passive.cpp)

  # The options a peer's file is compiled with.
  function(synclab_peer_options out)
    find_package(OpenMP QUIET COMPONENTS CXX)
    set(options -O3)
    if(SYNCLAB_PEERS_ARCH)
      list(APPEND options -march=${SYNCLAB_PEERS_ARCH})
    endif()
    if(OpenMP_CXX_FOUND)
      separate_arguments(omp UNIX_COMMAND "${OpenMP_CXX_FLAGS}")
      list(APPEND options ${omp})
    endif()
    set(${out} ${options} PARENT_SCOPE)
  endfunction()

  # synclab_cpu_peer_library(library): the object library `library` holds a lab's peers alone,
  # compiled once with the peers' options; any target later given one of its files
  # (synclab_cpu_peers) links these objects instead of compiling the file again.
  function(synclab_cpu_peer_library library)
    synclab_peer_options(options)
    target_compile_options(${library} PRIVATE ${options})
    get_target_property(sources ${library} SOURCES)
    foreach(source IN LISTS sources)
      string(MAKE_C_IDENTIFIER "${source}" key)
      set_property(GLOBAL PROPERTY synclab_peer_${key} ${library})
    endforeach()
  endfunction()

  # synclab_cpu_peers(target source): target holds the peer `source`: compiled with the peers'
  # options (once, by its lab, where a lab declares it: target then links that lab's objects of
  # it, in place of any copy of `source` among its own sources), OpenMP linked, and an
  # executable's OpenMP threads passive.
  function(synclab_cpu_peers target source)
    get_filename_component(path ${source} ABSOLUTE)
    string(MAKE_C_IDENTIFIER "${path}" key)
    get_property(library GLOBAL PROPERTY synclab_peer_${key})
    find_package(OpenMP QUIET COMPONENTS CXX)
    get_target_property(type ${target} TYPE)
    if(library)
      get_target_property(sources ${target} SOURCES)
      if(NOT sources)
        set(sources "")
      endif()
      list(REMOVE_ITEM sources ${source} ${path})
      set(objects $<TARGET_OBJECTS:${library}>)
      if(NOT objects IN_LIST sources)
        list(APPEND sources ${objects})
      endif()
      set_property(TARGET ${target} PROPERTY SOURCES ${sources})
    else()
      synclab_peer_options(options)
      set_source_files_properties(${source} TARGET_DIRECTORY ${target} PROPERTIES COMPILE_OPTIONS "${options}")
    endif()
    if(NOT OpenMP_CXX_FOUND OR type STREQUAL OBJECT_LIBRARY)
      return()
    endif()
    target_link_libraries(${target} PRIVATE OpenMP::OpenMP_CXX)
    set(passive $<TARGET_OBJECTS:synclab_omp_passive>)
    get_target_property(sources ${target} SOURCES)
    if(type STREQUAL EXECUTABLE AND NOT passive IN_LIST sources)
      target_sources(${target} PRIVATE ${passive})
    endif()
  endfunction()
endif()
