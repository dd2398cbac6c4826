# Find Kokkos and give a usable Kokkos::kokkos target.
#
# Kokkos 4.x (module, Spack) exports a correct Kokkos::kokkos. Debian 12's Kokkos 3.4.1 (Trilinos 13.2)
# defines Kokkos::kokkos with INTERFACE_INCLUDE_DIRECTORIES "<prefix>/include" computed one level too
# high (/usr/lib/include), while its headers live in /usr/include/trilinos. This module is the one place
# that knows: it replaces a non-existent include folder with the folder that holds Kokkos_Core.hpp.
include_guard(GLOBAL)
find_package(Kokkos REQUIRED CONFIG)

if(NOT TARGET Kokkos::kokkos)
  message(FATAL_ERROR "slab: the Kokkos package found at ${Kokkos_DIR} defines no Kokkos::kokkos target")
endif()

get_target_property(_slab_kokkos_inc Kokkos::kokkos INTERFACE_INCLUDE_DIRECTORIES)
set(_slab_kokkos_inc_ok TRUE)
foreach(_dir IN LISTS _slab_kokkos_inc)
  if(NOT _dir MATCHES "^\\$<" AND NOT EXISTS "${_dir}")
    set(_slab_kokkos_inc_ok FALSE)
  endif()
endforeach()
if(NOT _slab_kokkos_inc_ok)
  find_path(SLAB_KOKKOS_INCLUDE_DIR Kokkos_Core.hpp
    HINTS ${Kokkos_INCLUDE_DIRS} ${KokkosCore_INCLUDE_DIRS}
    PATHS /usr/include/trilinos /usr/include/kokkos
    NO_DEFAULT_PATH)
  if(NOT SLAB_KOKKOS_INCLUDE_DIR)
    message(FATAL_ERROR "slab: Kokkos::kokkos names missing include folder(s) '${_slab_kokkos_inc}' "
                        "and Kokkos_Core.hpp was not found beside it")
  endif()
  message(STATUS "slab: Kokkos include folder '${_slab_kokkos_inc}' does not exist; using ${SLAB_KOKKOS_INCLUDE_DIR}")
  set_property(TARGET Kokkos::kokkos PROPERTY INTERFACE_INCLUDE_DIRECTORIES "${SLAB_KOKKOS_INCLUDE_DIR}")
  # Trilinos' target also lists "-DKOKKOS_DEPENDENCE" as a link item; drop it so linkers never see it.
  get_target_property(_slab_kokkos_libs Kokkos::kokkos INTERFACE_LINK_LIBRARIES)
  list(FILTER _slab_kokkos_libs EXCLUDE REGEX "^-D")
  set_property(TARGET Kokkos::kokkos PROPERTY INTERFACE_LINK_LIBRARIES "${_slab_kokkos_libs}")
endif()
set(SLAB_KOKKOS_VERSION "${Kokkos_VERSION}")
message(STATUS "slab: Kokkos ${Kokkos_VERSION} (devices: ${Kokkos_DEVICES})")
