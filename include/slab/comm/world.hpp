#pragma once
/// @file world.hpp
/// @brief The world communicator of a Runtime, with its device path.

#include "slab/comm/comm.hpp"
#include "slab/runtime/runtime.hpp"

namespace slab {

/**
 * @brief The communicator over all of the runtime's ranks, tracing into the runtime's tracer. On GPU builds
 * with one GPU per rank it creates the NCCL communicator (rank 0 makes the unique id, MPI broadcasts it);
 * where ranks share a GPU, device buffers go through host staging. Collective.
 * @throws CommError when NCCL cannot be initialised (on every rank).
 */
Comm make_world_comm(Runtime& runtime);

}  // namespace slab
