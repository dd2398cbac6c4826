// Host-build twin of execution.cu: no CUDA; every context is a host context and copies are memcpy.
#include <cstdlib>
#include <cstring>
#include <string>

#include "runtime/cuda/execution.hpp"
#include "slab/core/error.hpp"
#include "slab/core/units.hpp"

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

bool cuda_is_device_memory(const void*) noexcept { return false; }

void* pinned_host_alloc(std::size_t bytes, bool /*pinned*/) {
  const std::size_t rounded = ((bytes == 0 ? 1 : bytes) + 63) & ~std::size_t{63};
  void* p = std::aligned_alloc(64, rounded);
  SLAB_EXPECTS(p != nullptr, OutOfMemory, "host allocation of " + format_bytes(bytes) + " for staging failed");
  return p;
}

void pinned_host_free(void* ptr, bool /*pinned*/) noexcept { std::free(ptr); }

}  // namespace slab::detail
