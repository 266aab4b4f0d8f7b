# CUDA and NCCL from /usr/local/cuda (or CUDAToolkit_ROOT / NCCL_ROOT).
# EB_WITH_NCCL=AUTO builds the NCCL transport when both are found, ON requires
# them, OFF skips them. Sets EB_NCCL_ENABLED and the imported target eb::nccl.
set(EB_NCCL_ENABLED OFF)
if(NOT EB_WITH_NCCL STREQUAL "OFF")
  if(NOT DEFINED CUDAToolkit_ROOT AND EXISTS /usr/local/cuda)
    set(CUDAToolkit_ROOT /usr/local/cuda)
  endif()
  find_package(CUDAToolkit QUIET)
  find_path(EB_NCCL_INCLUDE_DIR nccl.h
    HINTS ${NCCL_ROOT} ${CUDAToolkit_ROOT} ENV NCCL_ROOT PATH_SUFFIXES include)
  find_library(EB_NCCL_LIBRARY NAMES nccl
    HINTS ${NCCL_ROOT} ${CUDAToolkit_ROOT} ENV NCCL_ROOT PATH_SUFFIXES lib64 lib)
  if(CUDAToolkit_FOUND AND EB_NCCL_INCLUDE_DIR AND EB_NCCL_LIBRARY)
    set(EB_NCCL_ENABLED ON)
    add_library(eb::nccl UNKNOWN IMPORTED)
    set_target_properties(eb::nccl PROPERTIES
      IMPORTED_LOCATION ${EB_NCCL_LIBRARY}
      INTERFACE_INCLUDE_DIRECTORIES ${EB_NCCL_INCLUDE_DIR})
    file(STRINGS ${EB_NCCL_INCLUDE_DIR}/nccl.h _eb_nccl_ver REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
    message(STATUS "NCCL found: ${EB_NCCL_LIBRARY} (${_eb_nccl_ver})")
  elseif(EB_WITH_NCCL STREQUAL "ON")
    message(FATAL_ERROR "EB_WITH_NCCL=ON but CUDA (${CUDAToolkit_FOUND}) or NCCL "
      "(${EB_NCCL_INCLUDE_DIR}, ${EB_NCCL_LIBRARY}) was not found under ${CUDAToolkit_ROOT}")
  else()
    message(STATUS "CUDA/NCCL not found: building the Gloo transport only")
  endif()
endif()
