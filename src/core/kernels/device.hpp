#pragma once
/// @file device.hpp
/// @brief The little the kernel checks need from the CUDA runtime besides the kernels: whether a device is
/// there, its name and memory, stream-ordered timing with events and a synchronisation (kernels_device.cu in
/// CUDA builds, kernels_device_host.cpp elsewhere). No CUDA header. Nothing is collective.

#include <cstdint>
#include <string>

namespace slab::kernels {

/// CUDA devices this process sees: 0 in host builds, without a driver or without a GPU. Never throws.
[[nodiscard]] int cuda_devices() noexcept;

/// Name, memory, multiprocessors and compute capability of `device`. @throws CudaError; NotCompiled in host builds.
struct CudaDeviceInfo {
  std::string name;
  std::uint64_t memory = 0;
  int multiprocessors = 0;
  int major = 0, minor = 0;
};
[[nodiscard]] CudaDeviceInfo cuda_device_info(int device);

/// Wait for everything queued on `stream` (nullptr: the legacy default stream). @throws CudaError.
void cuda_synchronize(void* stream);

/// Elapsed device time between start() and stop() on one stream, from CUDA events. @throws CudaError.
class CudaTimer {
 public:
  explicit CudaTimer(void* stream);
  ~CudaTimer();
  CudaTimer(const CudaTimer&) = delete;
  CudaTimer& operator=(const CudaTimer&) = delete;
  void start();
  /// Seconds since start() (waits for the stop event).
  [[nodiscard]] double stop();
  /// Record the stop event without waiting for it (work enqueued in between is what seconds() will time).
  void stop_async();
  /// Seconds between start() and stop_async() (waits for the stop event).
  [[nodiscard]] double seconds();

 private:
  void* stream_;
  void* begin_ = nullptr;
  void* end_ = nullptr;
};

}  // namespace slab::kernels
