// Host-build twin of kernels_device.cu: there are no CUDA devices and no device kernels.
#include "core/kernels/device.hpp"
#include "slab/core/error.hpp"

namespace slab::kernels {

int cuda_devices() noexcept { return 0; }
CudaDeviceInfo cuda_device_info(int) { SLAB_FAIL(NotCompiled, "this build of slab has no CUDA kernels"); }
void cuda_synchronize(void*) { SLAB_FAIL(NotCompiled, "this build of slab has no CUDA kernels"); }
CudaTimer::CudaTimer(void* stream) : stream_(stream) {
  SLAB_FAIL(NotCompiled, "this build of slab has no CUDA kernels");
}
CudaTimer::~CudaTimer() = default;
void CudaTimer::start() {}
double CudaTimer::stop() { return 0; }
void CudaTimer::stop_async() {}
double CudaTimer::seconds() { return 0; }

}  // namespace slab::kernels
