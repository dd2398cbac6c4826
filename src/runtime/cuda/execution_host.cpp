// Host-build twin of execution.cu: no CUDA; every context is a host context and copies are memcpy.
#include <cstring>

#include "runtime/cuda/execution.hpp"
#include "slab/core/error.hpp"

namespace slab::detail {

void cuda_copy(void*, const void*, std::size_t, void*) {
  SLAB_FAIL(NotCompiled, "this build of slab has no CUDA support");
}

void cuda_copy_async(void*, const void*, std::size_t, void*) {
  SLAB_FAIL(NotCompiled, "this build of slab has no CUDA support");
}

void cuda_fill(void*, unsigned char, std::size_t, void*) {
  SLAB_FAIL(NotCompiled, "this build of slab has no CUDA support");
}

void host_copy(void* dst, const void* src, std::size_t bytes) noexcept { std::memcpy(dst, src, bytes); }

void cuda_stream_synchronize(void*) { SLAB_FAIL(NotCompiled, "this build of slab has no CUDA support"); }

}  // namespace slab::detail
