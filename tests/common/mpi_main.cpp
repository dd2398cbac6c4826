// GoogleTest main for MPI suites: MPI is initialised here (FUNNELED), rank 0 prints the usual GoogleTest
// output, and every other rank prints only its failures, prefixed "[rank r/n]". The exit code is the same
// on every rank: non-zero when any rank failed. No collective runs inside a listener, so a failure on one
// rank cannot hang the others there.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdio>
#include <string>

namespace {

class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  RankFailurePrinter(int rank, int size) : rank_(rank), size_(size) {}
  // The name is taken here: UnitTest::current_test_info() inside OnTestPartResult would wait on a lock
  // GoogleTest holds while it reports the failure.
  void OnTestStart(const ::testing::TestInfo& info) override {
    test_ = std::string(info.test_suite_name()) + "." + info.name();
  }
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::fprintf(stderr, "[rank %d/%d] FAILED %s at %s:%d\n%s\n", rank_, size_, test_.c_str(),
                 result.file_name() ? result.file_name() : "?", result.line_number(), result.message());
    std::fflush(stderr);
  }

 private:
  int rank_;
  int size_;
  std::string test_;
};

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) {
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(rank, size));
  }
  int local_failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any_failed = 0;
  MPI_Allreduce(&local_failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && any_failed && !local_failed)
    std::fprintf(stderr, "[rank 0/%d] another rank reported failures (see above)\n", size);
  if (Kokkos::is_initialized()) Kokkos::finalize();
  MPI_Finalize();
  return any_failed;
}
