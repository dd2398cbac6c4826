#pragma once
/// @file work_counter.hpp
/// @brief slab::WorkCounter: a shared counter every rank can fetch-and-add without a scheduler: one int64
/// in an MPI-3 one-sided window on rank 0, advanced with MPI_Fetch_and_op under a passive-target lock_all
/// epoch. Ranks that finish early simply take more; no rank waits for another to hand out work.

#include <cstdint>

#include "slab/comm/comm.hpp"

namespace slab {

/**
 * @brief A counter shared by the ranks of a communicator, for dynamic load balancing.
 *
 * @code
 *   slab::WorkCounter next(comm);                         // collective
 *   for (auto i = next.fetch_add(1); i < n; i = next.fetch_add(1)) work(i);
 *   next.close();                                          // collective
 * @endcode
 *
 * fetch_add() is atomic across ranks and not collective: each call costs one round trip to rank 0 (a
 * hardware or shared-memory atomic where MPI has one). Open and close are collective; between them ranks
 * may call fetch_add() any number of times, independently.
 */
class WorkCounter {
 public:
  /**
   * @brief Make the counter, starting at `start` (the value every rank passes). Collective over `comm`.
   * @throws CommError (every rank) when the window cannot be made.
   */
  explicit WorkCounter(const Comm& comm, std::int64_t start = 0);
  /// Frees the window (collective) unless close() was called. A destructor must not throw: an MPI failure aborts.
  ~WorkCounter();
  WorkCounter(const WorkCounter&) = delete;
  WorkCounter& operator=(const WorkCounter&) = delete;

  /**
   * @brief Atomically add `step` to the counter and return its value before the addition. Not collective.
   * @throws CommError when MPI fails; InvalidArgument after close().
   */
  std::int64_t fetch_add(std::int64_t step = 1);

  /// @brief End the epoch and free the window. Collective; every rank must call it (or destroy the counter).
  /// @throws CommError when MPI fails.
  void close();

 private:
  MPI_Win win_ = MPI_WIN_NULL;
  std::int64_t* base_ = nullptr;  // rank 0's counter (unused elsewhere)
};

}  // namespace slab
