# synclab_add_lab(DIR [LIBRARIES lib ...] [CPU_PEERS file.cpp ...]): the lab in labs/DIR/ (its
# folder's name, or its path: a lab.cmake passes ${CMAKE_CURRENT_LIST_DIR}), everything it needs
# declared once and applied to its three targets explicitly:
#   labDIR_objects  every .cpp of the folder but its peers, compiled once (main renamed
#                   synclab_lab_main, SYNCLAB_LAB_DIR the folder's name)
#   labDIR          build/bin/labDIR: those objects and lab_main.cpp
#   labDIR_module   build/bin/modules/labDIR.so: the same objects and module_entry.cpp
# LIBRARIES: what the lab's code compiles and both links link against (a target brings its
# headers and definitions: lab 08's CLBlast). CPU_PEERS: files of the folder built as a user
# builds a host peer, -O3, the widest vectors and OpenMP (labs/cpu_peers.cmake), in an object
# library of their own (labDIR_peers) that both links and the tests share.
include_guard(GLOBAL)
include(${CMAKE_CURRENT_LIST_DIR}/cpu_peers.cmake)

# Every lab's entries, compiled once for all labs.
add_library(synclab_lab_entry OBJECT ${CMAKE_CURRENT_LIST_DIR}/lab_main.cpp)
add_library(synclab_module_entry OBJECT ${CMAKE_CURRENT_LIST_DIR}/module_entry.cpp)
set_target_properties(synclab_module_entry PROPERTIES POSITION_INDEPENDENT_CODE ON)
set(SYNCLAB_LABS_SOURCE_DIR ${CMAKE_CURRENT_LIST_DIR})
set(SYNCLAB_LABS "" CACHE INTERNAL "")

# A lab's own code (its objects, its peers): the folder's name, main renamed, and no GNU unique
# symbols: GCC makes an inline variable (kLab) one object for the whole process
# (STB_GNU_UNIQUE), even across RTLD_LOCAL modules: lab 02 then ran with lab 01's declaration.
function(synclab_lab_code target dir libraries)
  target_link_libraries(${target} PRIVATE synclab_lab ${libraries})
  target_compile_definitions(${target} PRIVATE SYNCLAB_LAB_DIR="${dir}" main=synclab_lab_main)
  target_compile_options(${target} PRIVATE -Wall -Wextra -fno-gnu-unique)
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()

function(synclab_add_lab path)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "LIBRARIES;CPU_PEERS")
  get_filename_component(dir ${path} NAME)
  set(folder ${SYNCLAB_LABS_SOURCE_DIR}/${dir})
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "labs/${dir}: synclab_add_lab does not take '${arg_UNPARSED_ARGUMENTS}': "
                        "give it the folder, then LIBRARIES and CPU_PEERS")
  endif()
  if(TARGET lab${dir})
    message(FATAL_ERROR "labs/${dir} is declared twice: call synclab_add_lab once for it")
  endif()
  file(GLOB sources CONFIGURE_DEPENDS ${folder}/*.cpp)
  set(peers "")
  foreach(peer IN LISTS arg_CPU_PEERS)
    get_filename_component(peer ${peer} ABSOLUTE BASE_DIR ${folder})
    if(NOT peer IN_LIST sources)
      message(FATAL_ERROR "labs/${dir}: CPU_PEERS names ${peer}, not a .cpp of the lab's folder: "
                          "name a file beside its main.cpp")
    endif()
    list(REMOVE_ITEM sources ${peer})
    list(APPEND peers ${peer})
  endforeach()

  add_library(lab${dir}_objects OBJECT ${sources})
  synclab_lab_code(lab${dir}_objects ${dir} "${arg_LIBRARIES}")
  if(peers)
    add_library(lab${dir}_peers OBJECT ${peers})
    synclab_lab_code(lab${dir}_peers ${dir} "${arg_LIBRARIES}")
    synclab_cpu_peer_library(lab${dir}_peers)
  endif()
  add_executable(lab${dir} $<TARGET_OBJECTS:lab${dir}_objects>
                 $<TARGET_OBJECTS:synclab_lab_entry>)
  # A module's calls into the scaffolding bind to the runner's own exported copy.
  add_library(lab${dir}_module MODULE $<TARGET_OBJECTS:lab${dir}_objects>
              $<TARGET_OBJECTS:synclab_module_entry>)
  set_target_properties(lab${dir}_module PROPERTIES PREFIX "" OUTPUT_NAME lab${dir}
                        LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin/modules)
  foreach(target lab${dir} lab${dir}_module)
    target_link_libraries(${target} PRIVATE synclab_lab ${arg_LIBRARIES})
    foreach(peer IN LISTS peers)
      synclab_cpu_peers(${target} ${peer})
    endforeach()
  endforeach()
  # Building a lab builds its module: the grader never finds a module older than its lab.
  add_dependencies(lab${dir} lab${dir}_module)
  set(SYNCLAB_LABS ${SYNCLAB_LABS} ${dir} CACHE INTERNAL "")
endfunction()
