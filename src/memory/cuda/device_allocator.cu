// The device tier's raw allocator: a stream-ordered pool (cudaMallocAsync / cudaFreeAsync on the rank's
// stream). The device's default pool keeps what is freed (release threshold: unlimited), so that buffers coming
// and going as tasks run do not pay cudaMalloc's device-wide synchronisation; the memory manager's limit, not
// the pool, bounds what is resident. Raw pointers and a void* stream only, so that no public header includes CUDA.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>

#include "core/cuda/check.hpp"
#include "memory/device_allocator.hpp"
#include "slab/core/units.hpp"

namespace slab::detail {
namespace {

void keep_freed_memory_in_pool() {
  static std::once_flag once;
  std::call_once(once, [] {
    int device = 0;
    check_cuda(cudaGetDevice(&device), "cudaGetDevice");
    cudaMemPool_t pool = nullptr;
    check_cuda(cudaDeviceGetDefaultMemPool(&pool, device), "cudaDeviceGetDefaultMemPool");
    std::uint64_t threshold = UINT64_MAX;
    check_cuda(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold),
               "cudaMemPoolSetAttribute(release threshold)");
  });
}

}  // namespace

void* device_alloc(std::size_t bytes, void* stream) {
  keep_freed_memory_in_pool();
  auto s = static_cast<cudaStream_t>(stream);
  void* p = nullptr;
  const cudaError_t rc = cudaMallocAsync(&p, bytes == 0 ? 1 : bytes, s);
  if (rc == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // not sticky: clear it
    SLAB_FAIL(OutOfMemory, "cudaMallocAsync of " + format_bytes(bytes) +
                               " failed: the GPU is out of memory (is --memory-limit above what is free?)");
  }
  check_cuda(rc, "cudaMallocAsync");
  // Callers use the buffer from the host (copies, kernels on other streams) right away: make it valid there.
  check_cuda(cudaStreamSynchronize(s), "cudaStreamSynchronize after cudaMallocAsync");
  return p;
}

void device_free(void* ptr, void* stream) noexcept {
  if (ptr == nullptr) return;
  const cudaError_t rc = cudaFreeAsync(ptr, static_cast<cudaStream_t>(stream));
  if (rc != cudaSuccess) {
    SLAB_FATAL(std::string("cudaFreeAsync failed: ") + cudaGetErrorName(rc) + ": " + cudaGetErrorString(rc));
  }
}

}  // namespace slab::detail
