#pragma once
// Raw CUDA device queries for the runtime (src/runtime/cuda/device.cu; device_host.cpp on host builds).
#include <cstdint>
#include <string>

namespace slab::detail {

/// Number of CUDA devices visible to this process (0 on host builds or without a driver/GPU).
int cuda_device_count() noexcept;
/// Make `device` current. @throws CudaError.
void cuda_set_device(int device);
/// Name and total memory of `device`. @throws CudaError.
void cuda_device_properties(int device, std::string& name, std::uint64_t& total_memory);
/// PCI bus id of `device` ("0000:c1:00.0"). @throws CudaError.
std::string cuda_device_pci_bus_id(int device);
/// A new non-blocking stream on the current device (opaque cudaStream_t). @throws CudaError.
void* cuda_stream_create();
void cuda_stream_destroy(void* stream) noexcept;
/// "CUDA runtime 13.0, driver 13.0, NCCL 2.27.3" or "" on host builds.
std::string cuda_versions();

}  // namespace slab::detail
