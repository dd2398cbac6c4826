#pragma once
// The CUDA calls behind ExecutionContext (copies, the memory-kind query, page-locked staging memory) and slab::copy
// (execution.cu; execution_host.cpp on host builds).
#include <cstddef>

namespace slab::detail {

/// cudaMemcpyAsync(..., cudaMemcpyDefault, stream) and wait for it: either side host or device memory.
/// @throws CudaError.
void cuda_copy(void* dst, const void* src, std::size_t bytes, void* stream);
/// cudaMemcpyAsync(..., cudaMemcpyDefault, stream), not waited for. @throws CudaError.
void cuda_copy_async(void* dst, const void* src, std::size_t bytes, void* stream);
/// cudaMemsetAsync(dst, value, bytes, stream) and wait for it. @throws CudaError.
void cuda_fill(void* dst, unsigned char value, std::size_t bytes, void* stream);
/// memcpy.
void host_copy(void* dst, const void* src, std::size_t bytes) noexcept;
/// cudaStreamSynchronize. @throws CudaError.
void cuda_stream_synchronize(void* stream);
/// Whether `ptr` is device or managed memory (CUDA's unified addressing); false for host memory and null, and
/// false in host builds. Never throws.
bool cuda_is_device_memory(const void* ptr) noexcept;

/**
 * @brief Allocate `bytes` of host memory (at least 64-byte aligned), page-locked (cudaHostAlloc) when `pinned`, for
 * the staging pool (runtime/staging_pool.hpp); host builds always give aligned host memory. Not collective.
 * @throws OutOfMemory when the host has no (page-locked) memory left; CudaError on any other CUDA failure.
 */
void* pinned_host_alloc(std::size_t bytes, bool pinned);
/** @brief Free memory from pinned_host_alloc (given the same `pinned`; null is ignored). A CUDA failure aborts. */
void pinned_host_free(void* ptr, bool pinned) noexcept;

}  // namespace slab::detail
