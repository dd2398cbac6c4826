// A program that leaks on purpose: LeakSanitizer must report exactly this one allocation on every rank, after
// MPI_Init_thread and MPI_Finalize as the test suites run them (tests/common/mpi_main.cpp). The test that runs it
// (expect_leak.cmake) fails if the report is missing, so leak checking that has gone silent (detect_leaks=0,
// a suppression that matches slab code or everything) turns CI red; and it fails if anything else is reported,
// so lsan.supp keeps covering Open MPI's start-up allocations.
#include <mpi.h>

#include <cstddef>

namespace {

constexpr std::size_t kLeakBytes = 4096;  // expect_leak.cmake looks for exactly this size
char* volatile g_sink = nullptr;          // volatile: the allocation cannot be optimised away

[[gnu::noinline]] void slab_lsan_canary_leak() {
  g_sink = new char[kLeakBytes];
  g_sink[0] = 1;
  g_sink = nullptr;  // the only pointer is gone: a direct leak
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  slab_lsan_canary_leak();
  MPI_Finalize();
  return 0;
}
