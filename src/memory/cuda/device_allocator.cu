// The device tier's raw allocator: cudaMalloc / cudaFree and synchronous copies on the caller's stream.
// Raw pointers and a void* stream only, so that no public header includes CUDA.
#include <cuda_runtime.h>

#include <string>

#include "memory/device_allocator.hpp"
#include "slab/core/error.hpp"
#include "slab/core/units.hpp"

namespace slab::detail {
namespace {

void check(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess) {
    SLAB_FAIL(CudaError, std::string(what) + " failed: " + cudaGetErrorName(rc) + ": " + cudaGetErrorString(rc));
  }
}

}  // namespace

bool device_allocator_is_cuda() noexcept { return true; }

void* device_alloc(std::size_t bytes) {
  void* p = nullptr;
  const cudaError_t rc = cudaMalloc(&p, bytes == 0 ? 1 : bytes);
  if (rc == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();  // not sticky: clear it
    SLAB_FAIL(OutOfMemory, "cudaMalloc of " + format_bytes(bytes) +
                               " failed: the GPU is out of memory (is --memory-limit above what is free?)");
  }
  check(rc, "cudaMalloc");
  return p;
}

void device_free(void* ptr) noexcept {
  if (ptr == nullptr) return;
  const cudaError_t rc = cudaFree(ptr);
  if (rc != cudaSuccess) {
    SLAB_FATAL(std::string("cudaFree failed: ") + cudaGetErrorName(rc) + ": " + cudaGetErrorString(rc));
  }
}

void copy_device_to_host(void* host_dst, const void* device_src, std::size_t bytes, void* stream) {
  if (bytes == 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  check(cudaMemcpyAsync(host_dst, device_src, bytes, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync device->host");
  check(cudaStreamSynchronize(s), "cudaStreamSynchronize after device->host copy");
}

void copy_host_to_device(void* device_dst, const void* host_src, std::size_t bytes, void* stream) {
  if (bytes == 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  check(cudaMemcpyAsync(device_dst, host_src, bytes, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync host->device");
  check(cudaStreamSynchronize(s), "cudaStreamSynchronize after host->device copy");
}

void copy_device_to_device(void* device_dst, const void* device_src, std::size_t bytes, void* stream) {
  if (bytes == 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  check(cudaMemcpyAsync(device_dst, device_src, bytes, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync device->device");
  check(cudaStreamSynchronize(s), "cudaStreamSynchronize after device->device copy");
}

}  // namespace slab::detail
