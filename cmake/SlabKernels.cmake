# The CCCL headers (Thrust, CUB, libcu++) the kernel compositions (src/<layer>/kernels/*.inl) are written on.
#
# g++ instantiates every composition with Thrust's serial CPU backend (the reference instantiations,
# src/<layer>/kernels/*_ref.cpp, tested in every build by tests/kernels); nvcc instantiates them for the device
# in src/<layer>/cuda/kernels_*.cu. The headers come from the CUDA toolkit (<toolkit>/include/cccl, CCCL 3) when
# there is one, else from Debian's libthrust-dev/libcub-dev (Thrust 1.17, /usr/include). Without either the
# reference instantiations and their tests are left out (SLAB_HAVE_KERNEL_REFERENCE OFF) with a message.
# SLAB_KERNEL_REFERENCE=AUTO|ON|OFF; SLAB_CCCL_INCLUDE_DIR picks a CCCL by hand.
include_guard(GLOBAL)
set(SLAB_KERNEL_REFERENCE AUTO CACHE STRING "Build the CPU reference instantiations of the device kernels (AUTO, ON, OFF)")
set_property(CACHE SLAB_KERNEL_REFERENCE PROPERTY STRINGS AUTO ON OFF)
set(SLAB_HAVE_KERNEL_REFERENCE OFF)
if(NOT SLAB_KERNEL_REFERENCE STREQUAL "OFF")
  # The toolkit's CCCL even where CUDA is off (ci-cpu): CUDAToolkit's include folders when it was found, else the
  # usual toolkit places, else Debian's libthrust-dev in /usr/include.
  set(_slab_cccl_hints)
  if(CUDAToolkit_INCLUDE_DIRS)
    list(TRANSFORM CUDAToolkit_INCLUDE_DIRS APPEND /cccl OUTPUT_VARIABLE _slab_cccl_hints)
  endif()
  if(DEFINED ENV{CUDA_HOME})
    list(APPEND _slab_cccl_hints $ENV{CUDA_HOME}/include/cccl)
  endif()
  if(DEFINED ENV{CUDA_PATH})
    list(APPEND _slab_cccl_hints $ENV{CUDA_PATH}/include/cccl)
  endif()
  list(APPEND _slab_cccl_hints /usr/local/cuda/include/cccl /opt/cuda/include/cccl)
  find_path(SLAB_CCCL_INCLUDE_DIR thrust/version.h HINTS ${_slab_cccl_hints}
            DOC "Folder holding thrust/ and cub/ for the kernel reference instantiations")
  if(SLAB_CCCL_INCLUDE_DIR AND NOT EXISTS ${SLAB_CCCL_INCLUDE_DIR}/thrust/version.h)
    message(STATUS "slab: SLAB_CCCL_INCLUDE_DIR=${SLAB_CCCL_INCLUDE_DIR} holds no thrust/version.h")
  elseif(SLAB_CCCL_INCLUDE_DIR)
    file(STRINGS ${SLAB_CCCL_INCLUDE_DIR}/thrust/version.h _slab_thrust_version REGEX "^#define THRUST_VERSION [0-9]+")
    string(REGEX REPLACE "^#define THRUST_VERSION ([0-9]+).*" "\\1" _slab_thrust_version "${_slab_thrust_version}")
    if(_slab_thrust_version AND _slab_thrust_version GREATER_EQUAL 101700)
      set(SLAB_HAVE_KERNEL_REFERENCE ON)
      math(EXPR _major "${_slab_thrust_version} / 100000")
      math(EXPR _minor "(${_slab_thrust_version} / 100) % 1000")
      message(STATUS "slab: kernel reference instantiations on Thrust ${_major}.${_minor} (${SLAB_CCCL_INCLUDE_DIR})")
    else()
      message(STATUS "slab: Thrust in ${SLAB_CCCL_INCLUDE_DIR} is older than 1.17; no kernel reference instantiations")
    endif()
  endif()
  if(NOT SLAB_HAVE_KERNEL_REFERENCE)
    if(SLAB_KERNEL_REFERENCE STREQUAL "ON")
      message(FATAL_ERROR "slab: SLAB_KERNEL_REFERENCE=ON but no Thrust >= 1.17 was found (install libthrust-dev "
                          "libcub-dev or the CUDA toolkit, or set SLAB_CCCL_INCLUDE_DIR)")
    endif()
    message(STATUS "slab: no CCCL headers (Thrust); the kernel reference instantiations and tests/kernels are skipped")
  endif()
else()
  message(STATUS "slab: SLAB_KERNEL_REFERENCE=OFF; the kernel reference instantiations and tests/kernels are skipped")
endif()
if(SLAB_HAVE_CUDA AND NOT SLAB_HAVE_KERNEL_REFERENCE)
  message(FATAL_ERROR "slab: a CUDA build needs the kernel reference instantiations (the toolkit's CCCL headers)")
endif()

# Compile options of the reference TUs: Thrust's device system is its serial CPU system, the CCCL folder goes
# first (before any other Thrust on the system paths), and no contraction of a * b + c into an FMA, so the
# SLAB_HD arithmetic rounds as the device's (compiled with --fmad=false) does.
function(slab_kernel_reference_sources)
  set(options -ffp-contract=off)
  if(NOT SLAB_CCCL_INCLUDE_DIR STREQUAL "/usr/include")  # -isystem /usr/include would break #include_next
    list(APPEND options -isystem ${SLAB_CCCL_INCLUDE_DIR})
  endif()
  set_source_files_properties(${ARGN} PROPERTIES
    COMPILE_DEFINITIONS "THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CPP;THRUST_HOST_SYSTEM=THRUST_HOST_SYSTEM_CPP"
    COMPILE_OPTIONS "${options}")
endfunction()
