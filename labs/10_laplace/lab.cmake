# Lab 10 times its sweeps against the device's copy bandwidth with lab 08's probe (bandwidth.cpp),
# built into this lab from lab 08's folder.
target_sources(${exe} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/08_reduction_ladder/bandwidth.cpp)
target_include_directories(${exe} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
