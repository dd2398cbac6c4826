#pragma once
/// @file world.hpp
/// @brief This process's rank and the job's size in MPI_COMM_WORLD, for tests that run before or without a
/// slab::Runtime (a Comm is the way everywhere else).

#include <mpi.h>

namespace slab::testing {

inline int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

inline int world_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

}  // namespace slab::testing
