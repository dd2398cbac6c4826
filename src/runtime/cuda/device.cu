// The only runtime code that calls CUDA directly; the host twin is device_host.cpp.
#include <cuda_runtime.h>
#if __has_include(<nccl.h>)
#include <nccl.h>
#define SLAB_DEVICE_HAS_NCCL 1
#endif

#include <string>

#include "core/cuda/check.hpp"
#include "runtime/cuda/device.hpp"
#include "slab/core/error.hpp"

namespace slab::detail {

int cuda_device_count() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the non-sticky "no device" / "no driver" error
    return 0;
  }
  return count;
}

void cuda_set_device(int device) { check_cuda(cudaSetDevice(device), "cudaSetDevice"); }

void cuda_device_properties(int device, std::string& name, std::uint64_t& total_memory) {
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  name = prop.name;
  total_memory = prop.totalGlobalMem;
}

std::string cuda_device_pci_bus_id(int device) {
  char id[32] = {};
  check_cuda(cudaDeviceGetPCIBusId(id, static_cast<int>(sizeof id), device), "cudaDeviceGetPCIBusId");
  return id;
}

void* cuda_stream_create() {
  cudaStream_t stream = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  return stream;
}

void cuda_stream_destroy(void* stream) noexcept {
  if (stream) cudaStreamDestroy(static_cast<cudaStream_t>(stream));
}

std::string cuda_versions() {
  int runtime = 0;
  int driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  std::string out = "CUDA runtime " + std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10) +
                    ", driver " +
                    (driver ? std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10) : "none");
#ifdef SLAB_DEVICE_HAS_NCCL
  int nccl = 0;
  ncclGetVersion(&nccl);
  out += ", NCCL " + std::to_string(nccl / 10000) + "." + std::to_string(nccl / 100 % 100) + "." +
         std::to_string(nccl % 100);
#endif
  return out;
}

}  // namespace slab::detail
