#pragma once
/// @file nccl_collectives.hpp
/// @brief Private: every CUDA and NCCL call of the comm layer, behind plain functions on raw pointers,
/// element counts, a ElementType and opaque handles (void* = ncclComm_t / cudaStream_t). Implemented in
/// nccl_collectives.cu; nccl_collectives_host.cpp provides the same functions for builds without CUDA
/// (they throw NotCompiled). Which buffers are GPU memory, and the copies of the host staging path, are the
/// ExecutionContext's (is_device_memory, slab::copy).
///
/// Every collective here enqueues on the stream and then waits for it while polling
/// ncclCommGetAsyncError; on an asynchronous error the communicator is aborted (so a dead peer cannot hang
/// this rank) and CudaError is thrown.

#include <mpi.h>

#include <cstddef>

#include "slab/comm/datatype.hpp"

namespace slab::detail {

/// Collective over `comm`: rank 0 makes an ncclUniqueId, MPI_Bcast, ncclCommInitRank on `device`.
void* nccl_comm_create(MPI_Comm comm, int device);
/// Destroy a communicator made by nccl_comm_create (null is ignored). Never throws.
void nccl_comm_destroy(void* nccl_comm) noexcept;

void nccl_allreduce(const void* in, void* out, std::size_t count, ElementType dt, ReduceOp op, void* nccl_comm,
                    void* stream);
void nccl_reduce(const void* in, void* out, std::size_t count, ElementType dt, ReduceOp op, int root, void* nccl_comm,
                 void* stream);
/// Reduce-scatter with per-rank block sizes: one grouped ncclReduce per block, in place, rooted at its owner (rank k
/// ends with counts[k] reduced elements at displs[k]; NCCL's combine order, not the host tree's). Arrays of nranks.
void nccl_reduce_scatterv(void* data, const std::size_t* counts, const std::size_t* displs, int nranks, ElementType dt,
                          ReduceOp op, void* nccl_comm, void* stream);
void nccl_bcast(void* data, std::size_t count, ElementType dt, int root, void* nccl_comm, void* stream);
/// `count` elements per rank.
void nccl_allgather(const void* in, void* out, std::size_t count, ElementType dt, void* nccl_comm, void* stream);
/// Grouped ncclSend/ncclRecv; counts and displacements per rank in elements, arrays of length nranks.
void nccl_alltoallv(const void* send, const std::size_t* send_counts, const std::size_t* send_displs, void* recv,
                    const std::size_t* recv_counts, const std::size_t* recv_displs, int nranks, ElementType dt,
                    void* nccl_comm, void* stream);
/// Grouped send and receive (either count may be 0; dest/source < 0 means none).
void nccl_sendrecv(const void* send, std::size_t send_count, int dest, void* recv, std::size_t recv_count, int source,
                   ElementType dt, void* nccl_comm, void* stream);

}  // namespace slab::detail
