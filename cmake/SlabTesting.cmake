# slab_add_mpi_test(NAME name SOURCES ... [RANKS 1 2 3 4] [TIMEOUT s] [LABELS ...] [LIBRARIES ...])
#
# Builds one GoogleTest executable with the MPI main of tests/common and registers it once per rank count
# as name.np1 ... name.np4, run by mpiexec with --oversubscribe (more ranks than cores) and root allowed.
# Every test has a timeout, so a hang fails the suite instead of stalling CI. The rank counts come from
# SLAB_TEST_RANKS, never from MPIEXEC_MAX_NUMPROCS (FindMPI sets that to the core count, which would
# silently drop the 3- and 4-rank runs on a 2-core machine).
include_guard(GLOBAL)
find_package(GTest REQUIRED)

if(NOT TARGET slab_test_main)
  add_library(slab_test_main STATIC ${PROJECT_SOURCE_DIR}/tests/common/mpi_main.cpp)
  target_link_libraries(slab_test_main PUBLIC GTest::gtest slab::slab nlohmann_json::nlohmann_json)
  target_include_directories(slab_test_main PUBLIC ${PROJECT_SOURCE_DIR}/tests/common)
endif()

set(SLAB_MPIEXEC_PREFLAGS "--oversubscribe;--bind-to;none" CACHE STRING "Flags before the rank count for test runs")
set(SLAB_TEST_ENVIRONMENT
  "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OPENBLAS_NUM_THREADS=1;OMP_NUM_THREADS=1;OMPI_MCA_btl_vader_single_copy_mechanism=none")
# Sanitized runs halt on the first finding, leaks included. Open MPI 4.1 dlcloses its MCA plugins (and PMIx) at
# MPI_Finalize, before LeakSanitizer's exit-time check, so the one-time allocations they keep would print as
# "<unknown module>": every run preloads tests/sanitizers/keep_plugins.c (dlclose does nothing) so their frames
# name their libraries, which tests/sanitizers/lsan.supp suppresses. fast_unwind_on_malloc=0: Open MPI has no
# frame pointers, so only the slow unwinder's stacks reach the frames the suppressions name.
if(SLAB_SANITIZE)
  list(APPEND SLAB_TEST_ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=0"
    "LSAN_OPTIONS=suppressions=${PROJECT_SOURCE_DIR}/tests/sanitizers/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0"
    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=${PROJECT_SOURCE_DIR}/tests/sanitizers/ubsan.supp"
    "LD_PRELOAD=${PROJECT_BINARY_DIR}/tests/sanitizers/libslab_lsan_keep_plugins.so")
  # The preloaded shim and the leak canary test, which fails if LeakSanitizer stops reporting.
  add_subdirectory(${PROJECT_SOURCE_DIR}/tests/sanitizers ${PROJECT_BINARY_DIR}/tests/sanitizers)
endif()

# Runs whose failures are agreed (every rank prints the error, meets the others, finalises MPI, then exits
# non-zero: slab::App, fault injection). mpirun's default on a non-zero exit is to wait 1 s, SIGTERM what is
# left, wait 1 s more and SIGKILL, which here only adds 2 s to every expected failure: nothing is left to
# signal. Tests of kills, signals and lost ranks keep the default.
set(SLAB_TEST_ENVIRONMENT_AGREED_EXIT ${SLAB_TEST_ENVIRONMENT} "OMPI_MCA_odls_base_sigkill_timeout=0")

function(slab_add_mpi_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "SOURCES;RANKS;LABELS;LIBRARIES" ${ARGN})
  if(NOT T_RANKS)
    set(T_RANKS ${SLAB_TEST_RANKS})
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE slab_test_main ${T_LIBRARIES})
  target_include_directories(${T_NAME} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  foreach(np IN LISTS T_RANKS)
    add_test(NAME ${T_NAME}.np${np}
      COMMAND ${MPIEXEC_EXECUTABLE} ${SLAB_MPIEXEC_PREFLAGS} ${MPIEXEC_NUMPROC_FLAG} ${np}
              $<TARGET_FILE:${T_NAME}> ${MPIEXEC_POSTFLAGS})
    set_tests_properties(${T_NAME}.np${np} PROPERTIES TIMEOUT ${T_TIMEOUT} PROCESSORS ${np}
      LABELS "mpi;np${np};${T_LABELS}" ENVIRONMENT "${SLAB_TEST_ENVIRONMENT}")
  endforeach()
endfunction()
