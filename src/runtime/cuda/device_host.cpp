// Host-build twin of device.cu: there are no CUDA devices.
#include "runtime/cuda/device.hpp"
#include "slab/core/error.hpp"

namespace slab::detail {

int cuda_device_count() noexcept { return 0; }
void cuda_set_device(int) { SLAB_FAIL(NotCompiled, "this build of slab has no CUDA support"); }
void cuda_device_properties(int, std::string&, std::uint64_t&) {
  SLAB_FAIL(NotCompiled, "this build of slab has no CUDA support");
}
std::string cuda_device_pci_bus_id(int) { SLAB_FAIL(NotCompiled, "this build of slab has no CUDA support"); }
void* cuda_stream_create() { SLAB_FAIL(NotCompiled, "this build of slab has no CUDA support"); }
void cuda_stream_destroy(void*) noexcept {}
std::string cuda_versions() { return ""; }

}  // namespace slab::detail
