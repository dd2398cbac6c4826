// Host-only twin of device_allocator.cu: "device" memory is aligned host memory and copies are memcpy.
#include <cstdlib>
#include <cstring>
#include <string>

#include "memory/device_allocator.hpp"
#include "slab/core/error.hpp"
#include "slab/core/units.hpp"

namespace slab::detail {

bool device_allocator_is_cuda() noexcept { return false; }

void* device_alloc(std::size_t bytes) {
  const std::size_t rounded = ((bytes == 0 ? 1 : bytes) + 255) & ~std::size_t{255};
  void* p = std::aligned_alloc(256, rounded);
  SLAB_EXPECTS(p != nullptr, OutOfMemory, "device (host) allocation of " + format_bytes(bytes) + " failed");
  return p;
}

void device_free(void* ptr) noexcept { std::free(ptr); }

void copy_device_to_host(void* host_dst, const void* device_src, std::size_t bytes, void* /*stream*/) {
  if (bytes > 0) std::memcpy(host_dst, device_src, bytes);
}

void copy_host_to_device(void* device_dst, const void* host_src, std::size_t bytes, void* /*stream*/) {
  if (bytes > 0) std::memcpy(device_dst, host_src, bytes);
}

void copy_device_to_device(void* device_dst, const void* device_src, std::size_t bytes, void* /*stream*/) {
  if (bytes > 0) std::memcpy(device_dst, device_src, bytes);
}

}  // namespace slab::detail
