// The CUDA side of ExecutionContext: one copy between memory kinds and the query of a pointer's kind (unified
// addressing tells both), and page-locked host memory for the staging pool.
#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "core/cuda/check.hpp"
#include "runtime/cuda/execution.hpp"
#include "slab/core/units.hpp"

namespace slab::detail {

void cuda_copy(void* dst, const void* src, std::size_t bytes, void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  check_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s), "cudaMemcpyAsync");
  check_cuda(cudaStreamSynchronize(s), "cudaStreamSynchronize after a copy");
}

void cuda_copy_async(void* dst, const void* src, std::size_t bytes, void* stream) {
  check_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, static_cast<cudaStream_t>(stream)),
             "cudaMemcpyAsync");
}

void cuda_fill(void* dst, unsigned char value, std::size_t bytes, void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  check_cuda(cudaMemsetAsync(dst, value, bytes, s), "cudaMemsetAsync");
  check_cuda(cudaStreamSynchronize(s), "cudaStreamSynchronize after a fill");
}

void host_copy(void* dst, const void* src, std::size_t bytes) noexcept { std::memcpy(dst, src, bytes); }

void cuda_stream_synchronize(void* stream) {
  check_cuda(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "cudaStreamSynchronize");
}

bool cuda_is_device_memory(const void* ptr) noexcept {
  if (ptr == nullptr) return false;
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, ptr) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the non-sticky error a host pointer may leave behind
    return false;
  }
  return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged;
}

// Page-locked where the rank computes on a GPU (cudaHostAlloc, portable: every context may copy from it);
// otherwise (a CUDA build on a rank that computes on the host) plain aligned memory, as the host twin.
void* pinned_host_alloc(std::size_t bytes, bool pinned) {
  if (!pinned) {
    const std::size_t rounded = ((bytes == 0 ? 1 : bytes) + 63) & ~std::size_t{63};
    void* p = std::aligned_alloc(64, rounded);
    SLAB_EXPECTS(p != nullptr, OutOfMemory, "host allocation of " + format_bytes(bytes) + " for staging failed");
    return p;
  }
  void* p = nullptr;
  const cudaError_t rc = cudaHostAlloc(&p, bytes == 0 ? 1 : bytes, cudaHostAllocPortable);
  if (rc == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    SLAB_FAIL(OutOfMemory, "cudaHostAlloc of " + format_bytes(bytes) +
                               " failed: the host cannot page-lock that much more memory (lower --host-memory-limit)");
  }
  check_cuda(rc, "cudaHostAlloc");
  return p;
}

void pinned_host_free(void* ptr, bool pinned) noexcept {
  if (ptr == nullptr) return;
  if (!pinned) {
    std::free(ptr);
    return;
  }
  const cudaError_t rc = cudaFreeHost(ptr);
  if (rc == cudaErrorCudartUnloading) return;  // at exit, after the runtime went: the process frees it
  if (rc != cudaSuccess) {
    SLAB_FATAL(std::string("cudaFreeHost failed: ") + cudaGetErrorName(rc) + ": " + cudaGetErrorString(rc));
  }
}

}  // namespace slab::detail
