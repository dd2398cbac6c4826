// Host twin of nccl_collectives.cu: builds without the CUDA toolkit have no device pointers, so the
// device path can never be taken; every entry point that would need CUDA or NCCL throws NotCompiled.
#include "comm/cuda/nccl_collectives.hpp"

#include "slab/core/error.hpp"

namespace slab::detail {

namespace {
[[noreturn]] void not_compiled(const char* what) {
  SLAB_FAIL(NotCompiled, std::string(what) + ": slab was built without CUDA/NCCL");
}
}  // namespace

void* nccl_comm_create(MPI_Comm, int) { not_compiled("nccl_comm_create"); }
void nccl_comm_destroy(void*) noexcept {}
void nccl_allreduce(const void*, void*, std::size_t, ElementType, ReduceOp, void*, void*) {
  not_compiled("nccl_allreduce");
}
void nccl_reduce(const void*, void*, std::size_t, ElementType, ReduceOp, int, void*, void*) {
  not_compiled("nccl_reduce");
}
void nccl_reduce_scatterv(void*, const std::size_t*, const std::size_t*, int, ElementType, ReduceOp, void*, void*) {
  not_compiled("nccl_reduce_scatterv");
}
void nccl_bcast(void*, std::size_t, ElementType, int, void*, void*) { not_compiled("nccl_bcast"); }
void nccl_allgather(const void*, void*, std::size_t, ElementType, void*, void*) { not_compiled("nccl_allgather"); }
void nccl_alltoallv(const void*, const std::size_t*, const std::size_t*, void*, const std::size_t*, const std::size_t*,
                    int, ElementType, void*, void*) {
  not_compiled("nccl_alltoallv");
}
void nccl_sendrecv(const void*, std::size_t, int, void*, std::size_t, int, ElementType, void*, void*) {
  not_compiled("nccl_sendrecv");
}

}  // namespace slab::detail
