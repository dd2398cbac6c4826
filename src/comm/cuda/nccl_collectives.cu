// Every CUDA and NCCL call of the comm layer (see nccl_collectives.hpp). Compiled with nvcc where the CUDA
// toolkit exists; it runs only where Comm::set_device_path enabled the device path, i.e. on a GPU.
#include "comm/cuda/nccl_collectives.hpp"

#include <cuda_runtime.h>

#include <string>
#include <thread>

#include "slab/comm/mpi_error.hpp"
#include "slab/core/error.hpp"
#include "slab/core/version.hpp"

#if SLAB_HAVE_NCCL
#include <nccl.h>
#endif

#include "core/cuda/check.hpp"

namespace slab::detail {

namespace {

#if SLAB_HAVE_NCCL
ncclComm_t as_comm(void* c) { return static_cast<ncclComm_t>(c); }
cudaStream_t as_stream(void* s) { return static_cast<cudaStream_t>(s); }

ncclDataType_t nccl_type(ElementType dt) {
  switch (dt) {
    case ElementType::int8:
      return ncclInt8;
    case ElementType::uint8:
    case ElementType::boolean:
    case ElementType::bytes:
      return ncclUint8;
    case ElementType::int32:
    case ElementType::string:
      return ncclInt32;
    case ElementType::uint32:
      return ncclUint32;
    case ElementType::int64:
    case ElementType::timestamp:
      return ncclInt64;
    case ElementType::uint64:
      return ncclUint64;
    case ElementType::float32:
      return ncclFloat32;
    case ElementType::float64:
      return ncclFloat64;
  }
  return ncclUint8;
}

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum:
      return ncclSum;
    case ReduceOp::prod:
      return ncclProd;
    case ReduceOp::min:
      return ncclMin;
    case ReduceOp::max:
      return ncclMax;
    default:
      break;
  }
  SLAB_FAIL(InvalidArgument, "NCCL has no logical and/or; the comm layer stages those through the host");
}

/// Wait for the stream while polling the communicator: an asynchronous NCCL error (a dead peer, a network
/// failure) aborts the communicator instead of leaving this rank spinning in a kernel forever.
void wait(void* comm, void* stream) {
  for (;;) {
    const cudaError_t q = cudaStreamQuery(as_stream(stream));
    if (q == cudaSuccess) return;
    if (q != cudaErrorNotReady) check_cuda(q, "cudaStreamQuery");
    ncclResult_t async = ncclSuccess;
    check_nccl(ncclCommGetAsyncError(as_comm(comm), &async), "ncclCommGetAsyncError");
    if (async != ncclSuccess && async != ncclInProgress) {
      ncclCommAbort(as_comm(comm));
      check_nccl(async, "an NCCL collective (asynchronous error; the communicator is aborted)");
    }
    std::this_thread::yield();
  }
}
#else
[[noreturn]] void no_nccl(const char* what) {
  SLAB_FAIL(NotCompiled, std::string(what) + ": slab was built with CUDA but without NCCL");
}
#endif

}  // namespace

#if SLAB_HAVE_NCCL

void* nccl_comm_create(MPI_Comm comm, int device) {
  int rank = 0, size = 1;
  SLAB_MPI_TRY(MPI_Comm_rank(comm, &rank));
  SLAB_MPI_TRY(MPI_Comm_size(comm, &size));
  ncclUniqueId id{};
  if (rank == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  SLAB_MPI_TRY(MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, comm));
  check_cuda(cudaSetDevice(device), "cudaSetDevice");
  ncclComm_t nc = nullptr;
  check_nccl(ncclCommInitRank(&nc, size, id, rank), "ncclCommInitRank");
  return nc;
}

void nccl_comm_destroy(void* nccl_comm) noexcept {
  if (nccl_comm != nullptr) ncclCommDestroy(as_comm(nccl_comm));
}

void nccl_allreduce(const void* in, void* out, std::size_t count, ElementType dt, ReduceOp op, void* comm,
                    void* stream) {
  check_nccl(ncclAllReduce(in, out, count, nccl_type(dt), nccl_op(op), as_comm(comm), as_stream(stream)),
             "ncclAllReduce");
  wait(comm, stream);
}

void nccl_reduce(const void* in, void* out, std::size_t count, ElementType dt, ReduceOp op, int root, void* comm,
                 void* stream) {
  check_nccl(ncclReduce(in, out, count, nccl_type(dt), nccl_op(op), root, as_comm(comm), as_stream(stream)),
             "ncclReduce");
  wait(comm, stream);
}

void nccl_reduce_scatterv(void* data, const std::size_t* counts, const std::size_t* displs, int nranks, ElementType dt,
                          ReduceOp op, void* comm, void* stream) {
  const std::size_t es = element_size(dt);
  auto* d = static_cast<char*>(data);
  check_nccl(ncclGroupStart(), "ncclGroupStart");
  for (int k = 0; k < nranks; ++k)
    if (counts[k] > 0)
      check_nccl(ncclReduce(d + displs[k] * es, d + displs[k] * es, counts[k], nccl_type(dt), nccl_op(op), k,
                            as_comm(comm), as_stream(stream)),
                 "ncclReduce");
  check_nccl(ncclGroupEnd(), "ncclGroupEnd");
  wait(comm, stream);
}

void nccl_bcast(void* data, std::size_t count, ElementType dt, int root, void* comm, void* stream) {
  check_nccl(ncclBroadcast(data, data, count, nccl_type(dt), root, as_comm(comm), as_stream(stream)), "ncclBroadcast");
  wait(comm, stream);
}

void nccl_allgather(const void* in, void* out, std::size_t count, ElementType dt, void* comm, void* stream) {
  check_nccl(ncclAllGather(in, out, count, nccl_type(dt), as_comm(comm), as_stream(stream)), "ncclAllGather");
  wait(comm, stream);
}

void nccl_alltoallv(const void* send, const std::size_t* send_counts, const std::size_t* send_displs, void* recv,
                    const std::size_t* recv_counts, const std::size_t* recv_displs, int nranks, ElementType dt,
                    void* comm, void* stream) {
  const std::size_t es = element_size(dt);
  const auto* s = static_cast<const char*>(send);
  auto* r = static_cast<char*>(recv);
  check_nccl(ncclGroupStart(), "ncclGroupStart");
  for (int k = 0; k < nranks; ++k) {
    if (send_counts[k] > 0)
      check_nccl(ncclSend(s + send_displs[k] * es, send_counts[k], nccl_type(dt), k, as_comm(comm), as_stream(stream)),
                 "ncclSend");
    if (recv_counts[k] > 0)
      check_nccl(ncclRecv(r + recv_displs[k] * es, recv_counts[k], nccl_type(dt), k, as_comm(comm), as_stream(stream)),
                 "ncclRecv");
  }
  check_nccl(ncclGroupEnd(), "ncclGroupEnd");
  wait(comm, stream);
}

void nccl_sendrecv(const void* send, std::size_t send_count, int dest, void* recv, std::size_t recv_count, int source,
                   ElementType dt, void* comm, void* stream) {
  check_nccl(ncclGroupStart(), "ncclGroupStart");
  if (dest >= 0)
    check_nccl(ncclSend(send, send_count, nccl_type(dt), dest, as_comm(comm), as_stream(stream)), "ncclSend");
  if (source >= 0)
    check_nccl(ncclRecv(recv, recv_count, nccl_type(dt), source, as_comm(comm), as_stream(stream)), "ncclRecv");
  check_nccl(ncclGroupEnd(), "ncclGroupEnd");
  wait(comm, stream);
}

#else  // CUDA without NCCL

void* nccl_comm_create(MPI_Comm, int) { no_nccl("nccl_comm_create"); }
void nccl_comm_destroy(void*) noexcept {}
void nccl_allreduce(const void*, void*, std::size_t, ElementType, ReduceOp, void*, void*) { no_nccl("nccl_allreduce"); }
void nccl_reduce(const void*, void*, std::size_t, ElementType, ReduceOp, int, void*, void*) { no_nccl("nccl_reduce"); }
void nccl_reduce_scatterv(void*, const std::size_t*, const std::size_t*, int, ElementType, ReduceOp, void*, void*) {
  no_nccl("nccl_reduce_scatterv");
}
void nccl_bcast(void*, std::size_t, ElementType, int, void*, void*) { no_nccl("nccl_bcast"); }
void nccl_allgather(const void*, void*, std::size_t, ElementType, void*, void*) { no_nccl("nccl_allgather"); }
void nccl_alltoallv(const void*, const std::size_t*, const std::size_t*, void*, const std::size_t*, const std::size_t*,
                    int, ElementType, void*, void*) {
  no_nccl("nccl_alltoallv");
}
void nccl_sendrecv(const void*, std::size_t, int, void*, std::size_t, int, ElementType, void*, void*) {
  no_nccl("nccl_sendrecv");
}

#endif

}  // namespace slab::detail
