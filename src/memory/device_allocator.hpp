#pragma once
/// @file device_allocator.hpp
/// @brief The raw device allocator behind the device tier: raw pointers and an opaque stream, so that this
/// header includes no CUDA header. Implemented in src/memory/cuda/device_allocator.cu (CUDA builds: a
/// stream-ordered pool, cudaMallocAsync on the rank's stream) and device_allocator_host.cpp (host builds, where
/// "device" memory is aligned host memory). Copies between the kinds are slab::copy (runtime/execution_context).

#include <cstddef>

namespace slab::detail {

/**
 * @brief Allocate `bytes` of device memory (at least 256-byte aligned) from the device's memory pool, usable
 * on any stream when this returns. Not collective.
 * @throws OutOfMemory when the device (or, on host builds, the host) has no memory left;
 * @throws CudaError on any other CUDA failure.
 */
void* device_alloc(std::size_t bytes, void* stream);

/** @brief Free memory from device_alloc after the work queued on `stream` (null is ignored). A CUDA failure aborts. */
void device_free(void* ptr, void* stream) noexcept;

}  // namespace slab::detail
