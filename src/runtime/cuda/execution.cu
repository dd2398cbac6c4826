// The CUDA side of ExecutionContext: one copy between memory kinds (unified addressing tells the kinds).
#include <cuda_runtime.h>

#include <cstring>

#include "core/cuda/check.hpp"
#include "runtime/cuda/execution.hpp"

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

}  // namespace slab::detail
