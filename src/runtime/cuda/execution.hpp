#pragma once
// The CUDA calls behind ExecutionContext and slab::copy (execution.cu; execution_host.cpp on host builds).
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

}  // namespace slab::detail
