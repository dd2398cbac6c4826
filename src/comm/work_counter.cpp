// slab::WorkCounter: MPI_Win_allocate (8 bytes on rank 0, none elsewhere), one lock_all epoch for its whole
// life, MPI_Fetch_and_op + MPI_Win_flush per fetch_add.
#include "slab/comm/work_counter.hpp"

#include "slab/comm/mpi_error.hpp"

namespace slab {

WorkCounter::WorkCounter(const Comm& comm, std::int64_t start) {
  const bool root = comm.rank() == 0;
  const MPI_Aint bytes = root ? MPI_Aint(sizeof(std::int64_t)) : 0;
  // MPI_Win_allocate lets MPI place the counter where its atomics are fastest (shared or registered memory).
  int rc = MPI_Win_allocate(bytes, sizeof(std::int64_t), MPI_INFO_NULL, comm.mpi(), &base_, &win_);
  // The creation is collective, so every rank has the same outcome to report; agree anyway (a rank-local
  // failure must not leave the others holding a window).
  comm.agree(rc == MPI_SUCCESS, "WorkCounter: MPI_Win_allocate failed: " + detail::mpi_error_string(rc));
  try {
    SLAB_MPI_TRY(MPI_Win_set_errhandler(win_, MPI_ERRORS_RETURN));
    if (root) *base_ = start;
    // The initial value must be visible before any rank's first fetch: the barrier orders it.
    SLAB_MPI_TRY(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_));
  } catch (...) {
    MPI_Win_free(&win_);
    throw;
  }
  comm.barrier();
}

WorkCounter::~WorkCounter() {
  if (win_ == MPI_WIN_NULL) return;
  MPI_Win_unlock_all(win_);
  if (MPI_Win_free(&win_) != MPI_SUCCESS) SLAB_FATAL("WorkCounter: MPI_Win_free failed");
}

std::int64_t WorkCounter::fetch_add(std::int64_t step) {
  SLAB_EXPECTS(win_ != MPI_WIN_NULL, InvalidArgument, "WorkCounter::fetch_add after close()");
  std::int64_t old = 0;
  SLAB_MPI_TRY(MPI_Fetch_and_op(&step, &old, MPI_INT64_T, 0, 0, MPI_SUM, win_));
  SLAB_MPI_TRY(MPI_Win_flush(0, win_));
  return old;
}

void WorkCounter::close() {
  if (win_ == MPI_WIN_NULL) return;
  const int unlock = MPI_Win_unlock_all(win_);
  const int freed = MPI_Win_free(&win_);
  win_ = MPI_WIN_NULL;
  if (unlock != MPI_SUCCESS) SLAB_FAIL(CommError, "MPI_Win_unlock_all: " + detail::mpi_error_string(unlock));
  if (freed != MPI_SUCCESS) SLAB_FAIL(CommError, "MPI_Win_free: " + detail::mpi_error_string(freed));
}

}  // namespace slab
