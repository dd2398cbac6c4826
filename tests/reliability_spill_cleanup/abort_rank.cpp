// One rank ends the job while every rank holds spill files: `abort_rank ROOT fatal|abort RANK`.
// fatal: slab::detail::fatal() (SLAB_FATAL); abort: the fatal clean-up then MPI_Abort, as App::run does for
// an error only one rank has. mpirun then ends the other ranks with SIGTERM. spill_cleanup.py checks
// that no spill folder is left.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "slab/core/error.hpp"
#include "slab/memory/memory_manager.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 4) {
    std::fprintf(stderr, "usage: abort_rank ROOT fatal|abort RANK\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const std::string mode = argv[2];
  slab::MemoryConfig config;
  config.device_limit = config.host_limit = 1 << 20;
  config.spill_root = argv[1];
  slab::MemoryManager memory(config);
  std::vector<slab::BufferPtr> buffers;
  for (int i = 0; i < 6; ++i) buffers.push_back(memory.allocate(512 << 10));  // 2 of 6 go to disk
  std::printf("rank %d spill folder %s with %llu spill files\n", rank, memory.spill_dir().c_str(),
              static_cast<unsigned long long>(memory.stats().disk.buffers));
  std::fflush(stdout);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == std::atoi(argv[3])) {
    if (mode == "fatal") SLAB_FATAL("abort_rank: fatal error on purpose");
    slab::detail::run_fatal_cleanup();
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Barrier(MPI_COMM_WORLD);  // the others wait here until mpirun ends them
  MPI_Finalize();
  return 0;
}
