#pragma once
// The engine a test needs to run tasks: a tracer, the world communicator, a memory manager with the given
// limits (spilling under /tmp) and a task queue. Kokkos is initialised for tests that use Kokkos views.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdint>

#include "slab/comm/comm.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/task/task_queue.hpp"
#include "slab/trace/tracer.hpp"

namespace slab::testing {

struct Engine {
  explicit Engine(std::uint64_t device_limit = 1ull << 30, std::uint64_t host_limit = 1ull << 30)
      : tracer(MPI_COMM_WORLD),
        comm(MPI_COMM_WORLD, &tracer),
        memory(slab::MemoryConfig{device_limit, host_limit, UINT64_MAX, "/tmp", false, nullptr, &tracer}),
        queue(memory, comm, tracer) {
    if (!Kokkos::is_initialized()) Kokkos::initialize();
  }
  slab::Tracer tracer;
  slab::Comm comm;
  slab::MemoryManager memory;
  slab::TaskQueue queue;
};

}  // namespace slab::testing
