#pragma once
/// @file cuda_backend.cuh
/// @brief The Cuda backend of the kernel compositions: Thrust's CUDA system without implicit synchronisation
/// (par_nosync) on the caller's stream, every temporary on the caller's ScratchAllocator, and CUB where it
/// beats the generic Thrust algorithm (radix sort over a bit range). Included only by src/<layer>/cuda/*.cu.

#include <cuda_runtime.h>
#include <thrust/system/cuda/execution_policy.h>
#include <cub/device/device_radix_sort.cuh>

#include <string>

#include "core/cuda/check.hpp"
#include "core/kernels/exec.hpp"
#include "core/kernels/scratch.hpp"
#include "slab/core/error.hpp"

namespace slab::kernels {

using ::slab::detail::check_cuda;

struct Cuda {
  static constexpr bool is_device = true;

  explicit Cuda(const Exec& exec)
      : stream_(static_cast<cudaStream_t>(exec.stream)),
        scratch_(exec.scratch.allocate ? exec.scratch
                                       : ScratchAllocator{&default_allocate, &default_deallocate, exec.stream}),
        thrust_alloc_(scratch_.allocate, scratch_.deallocate, scratch_.state) {}

  /// Thrust's CUDA policy: no synchronisation after each algorithm, on the caller's stream, temporaries on the
  /// scratch allocator.
  auto policy() { return thrust::cuda::par_nosync(thrust_alloc_).on(stream_); }
  [[nodiscard]] cudaStream_t stream() const noexcept { return stream_; }

  void* allocate(std::size_t bytes) { return scratch_.allocate(scratch_.state, bytes); }
  void deallocate(void* p, std::size_t bytes) { scratch_.deallocate(scratch_.state, p, bytes); }

  void to_host(void* dst, const void* src, std::size_t bytes) {
    if (!bytes) return;
    check_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_), "kernels: device->host copy");
    sync();
  }
  void to_backend(void* dst, const void* src, std::size_t bytes) {
    if (!bytes) return;
    check_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream_), "kernels: host->device copy");
    sync();  // the caller's host buffer may go away when this returns
  }
  void copy(void* dst, const void* src, std::size_t bytes) {
    if (bytes)
      check_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_), "kernels: device->device copy");
  }
  void zero(void* dst, std::size_t bytes) {
    if (bytes) check_cuda(cudaMemsetAsync(dst, 0, bytes, stream_), "kernels: cudaMemsetAsync");
  }
  void sync() { check_cuda(cudaStreamSynchronize(stream_), "kernels: cudaStreamSynchronize"); }
  /// Raise a launch error of the last hand-written kernel.
  void check_launch(const char* what) { check_cuda(cudaGetLastError(), what); }

  /// Stable radix sort of (key, value) pairs by bits [begin_bit, end_bit), CUB's onesweep.
  template <class V>
  void sort_pairs(const std::uint64_t* keys_in, std::uint64_t* keys_out, const V* vals_in, V* vals_out, std::int64_t n,
                  int begin_bit, int end_bit) {
    if (n <= 0) return;
    std::size_t bytes = 0;
    // Without a driver the size query fails rather than reporting 0 bytes: check it.
    check_cuda(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_in, keys_out, vals_in, vals_out, n, begin_bit,
                                               end_bit, stream_),
               "cub::DeviceRadixSort::SortPairs (size query)");
    Scratch<char, Cuda> temp(*this, static_cast<std::int64_t>(bytes));
    check_cuda(cub::DeviceRadixSort::SortPairs(temp.get(), bytes, keys_in, keys_out, vals_in, vals_out, n, begin_bit,
                                               end_bit, stream_),
               "cub::DeviceRadixSort::SortPairs");
  }

 private:
  static void* default_allocate(void* stream, std::size_t bytes) {
    void* p = nullptr;
    check_cuda(cudaMallocAsync(&p, bytes ? bytes : 1, static_cast<cudaStream_t>(stream)), "kernels: cudaMallocAsync");
    return p;
  }
  static void default_deallocate(void* stream, void* p, std::size_t) {
    // Stream-ordered, as the contract wants. Called from destructors: a failure (a sticky error after a
    // faulting kernel) cannot be thrown, and the context is unusable anyway.
    const cudaError_t rc = cudaFreeAsync(p, static_cast<cudaStream_t>(stream));
    if (rc != cudaSuccess) SLAB_FATAL(std::string("kernels: cudaFreeAsync failed: ") + cudaGetErrorString(rc));
  }

  cudaStream_t stream_;
  ScratchAllocator scratch_;
  ThrustScratch thrust_alloc_;
};

}  // namespace slab::kernels
