// Host-only twin of device_allocator.cu: "device" memory is aligned host memory.
#include <cstdlib>
#include <string>

#include "memory/device_allocator.hpp"
#include "slab/core/error.hpp"
#include "slab/core/units.hpp"

namespace slab::detail {

void* device_alloc(std::size_t bytes, void* /*stream*/) {
  const std::size_t rounded = ((bytes == 0 ? 1 : bytes) + 255) & ~std::size_t{255};
  void* p = std::aligned_alloc(256, rounded);
  SLAB_EXPECTS(p != nullptr, OutOfMemory, "device (host) allocation of " + format_bytes(bytes) + " failed");
  return p;
}

void device_free(void* ptr, void* /*stream*/) noexcept { std::free(ptr); }

}  // namespace slab::detail
