#pragma once
/// @file device_allocator.hpp
/// @brief The raw device allocator behind the device tier: raw pointers and an opaque stream, so that this
/// header includes no CUDA header. Implemented in src/memory/cuda/device_allocator.cu (CUDA builds) and
/// device_allocator_host.cpp (host builds, where "device" memory is aligned host memory and copies are
/// memcpy).

#include <cstddef>

namespace slab::detail {

/** @brief True when this build was compiled with CUDA (the functions below then use cudaMalloc etc.). */
bool device_allocator_is_cuda() noexcept;

/**
 * @brief Allocate `bytes` of device memory (at least 256-byte aligned). Not collective.
 * @throws OutOfMemory when the device (or, on host builds, the host) has no memory left;
 * @throws CudaError on any other CUDA failure.
 */
void* device_alloc(std::size_t bytes);

/** @brief Free memory from device_alloc (null is ignored). Not collective; a CUDA failure aborts. */
void device_free(void* ptr) noexcept;

/**
 * @brief Copy `bytes` from device memory to host memory on `stream` (a cudaStream_t, null: the default
 * stream) and wait for it. Not collective. @throws CudaError when the copy fails.
 */
void copy_device_to_host(void* host_dst, const void* device_src, std::size_t bytes, void* stream);

/**
 * @brief Copy `bytes` from host memory to device memory on `stream` and wait for it. Not collective.
 * @throws CudaError when the copy fails.
 */
void copy_host_to_device(void* device_dst, const void* host_src, std::size_t bytes, void* stream);

/**
 * @brief Copy `bytes` between two device buffers on `stream` and wait for it. Not collective.
 * @throws CudaError when the copy fails.
 */
void copy_device_to_device(void* device_dst, const void* device_src, std::size_t bytes, void* stream);

}  // namespace slab::detail
