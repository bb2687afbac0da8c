# Native code for a newer GPU than the Kokkos install was built for.
#
# A Kokkos install adds its own -arch=sm_XX to everything that links it, and
# nvcc_wrapper refuses a second, different architecture. Kokkos 3.4.1 knows
# no Hopper architecture, so with it Gustav's kernels ran on an H100 or H200
# only as Ampere PTX compiled by the driver at run time. Where
# Gustav_CUDA_ARCH names a newer architecture than the install's, Gustav's
# own translation units are compiled for it instead: the architecture of the
# imported Kokkos targets is replaced by Gustav's for Gustav's build (the
# kernels inside Kokkos' own library keep their Ampere code and PTX). An
# older architecture than the install's is refused: Kokkos' headers may use
# the features of the one they were configured for.
if(NOT CMAKE_CXX_COMPILER MATCHES "nvcc_wrapper")
  return()
endif()

# The architecture's number, and its whole name (sm_90a has a suffix).
string(REGEX MATCH "-arch=(sm_([0-9]+)[a-z]?)" gustav_flags_arch "${CMAKE_CXX_FLAGS}")
set(gustav_arch_name "${CMAKE_MATCH_1}")
set(gustav_arch "${CMAKE_MATCH_2}")
if(gustav_arch STREQUAL "")
  return()
endif()

foreach(gustav_kokkos_target Kokkos::kokkoscore Kokkos::kokkoscontainers Kokkos::kokkoskernels)
  if(NOT TARGET ${gustav_kokkos_target})
    continue()
  endif()
  foreach(gustav_property INTERFACE_COMPILE_OPTIONS INTERFACE_LINK_OPTIONS)
    get_target_property(gustav_value ${gustav_kokkos_target} ${gustav_property})
    if(NOT gustav_value)
      continue()
    endif()
    string(REGEX MATCH "-arch=(sm_([0-9]+)[a-z]?)" gustav_kokkos_flag "${gustav_value}")
    set(gustav_kokkos_name "${CMAKE_MATCH_1}")
    set(gustav_kokkos_arch "${CMAKE_MATCH_2}")
    if(gustav_kokkos_arch STREQUAL "" OR gustav_kokkos_name STREQUAL gustav_arch_name)
      continue()
    endif()
    if(gustav_arch LESS gustav_kokkos_arch)
      message(FATAL_ERROR "Gustav: -arch=${gustav_arch_name} is older than the Kokkos install's ${gustav_kokkos_name}; "
                          "set Gustav_CUDA_ARCH (or the -arch in CMAKE_CXX_FLAGS) to sm_${gustav_kokkos_arch} or newer")
    endif()
    string(REGEX REPLACE "-arch=sm_[0-9]+[a-z]?" "-arch=${gustav_arch_name}" gustav_value "${gustav_value}")
    set_target_properties(${gustav_kokkos_target} PROPERTIES ${gustav_property} "${gustav_value}")
    set(gustav_arch_replaced "${gustav_kokkos_name}")
  endforeach()
endforeach()
if(gustav_arch_replaced)
  message(STATUS "Gustav: native ${gustav_arch_name} code (the Kokkos install targets ${gustav_arch_replaced})")
endif()
