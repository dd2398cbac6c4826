// The kernel checks' view of the CUDA runtime (core/kernels/device.hpp): device count and properties, events,
// synchronisation. Every cudaError_t is checked (core/cuda/check.hpp's check_cuda).
#include <cuda_runtime.h>

#include "core/cuda/cuda_backend.cuh"
#include "core/kernels/device.hpp"

namespace slab::kernels {

int cuda_devices() noexcept {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {  // no driver, or no device: not an error here
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

CudaDeviceInfo cuda_device_info(int device) {
  cudaDeviceProp p{};
  check_cuda(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties");
  return {p.name, static_cast<std::uint64_t>(p.totalGlobalMem), p.multiProcessorCount, p.major, p.minor};
}

void cuda_synchronize(void* stream) {
  check_cuda(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "cudaStreamSynchronize");
}

CudaTimer::CudaTimer(void* stream) : stream_(stream) {
  cudaEvent_t a = nullptr, b = nullptr;
  check_cuda(cudaEventCreate(&a), "cudaEventCreate");
  const cudaError_t rc = cudaEventCreate(&b);
  if (rc != cudaSuccess) cudaEventDestroy(a);
  check_cuda(rc, "cudaEventCreate");
  begin_ = a;
  end_ = b;
}

CudaTimer::~CudaTimer() {
  cudaEventDestroy(static_cast<cudaEvent_t>(begin_));
  cudaEventDestroy(static_cast<cudaEvent_t>(end_));
}

void CudaTimer::start() {
  check_cuda(cudaEventRecord(static_cast<cudaEvent_t>(begin_), static_cast<cudaStream_t>(stream_)), "cudaEventRecord");
}

void CudaTimer::stop_async() {
  check_cuda(cudaEventRecord(static_cast<cudaEvent_t>(end_), static_cast<cudaStream_t>(stream_)), "cudaEventRecord");
}

double CudaTimer::seconds() {
  check_cuda(cudaEventSynchronize(static_cast<cudaEvent_t>(end_)), "cudaEventSynchronize");
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(begin_), static_cast<cudaEvent_t>(end_)),
             "cudaEventElapsedTime");
  return static_cast<double>(ms) * 1e-3;
}

double CudaTimer::stop() {
  stop_async();
  return seconds();
}

}  // namespace slab::kernels
