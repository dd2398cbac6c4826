#pragma once
/// @file exec.hpp
/// @brief Where a kernel entry point runs and where its scratch memory comes from. No CUDA header, no Thrust:
/// included by the entry-point headers (src/<layer>/kernels/<concept>.hpp) that the rest of slab sees.
///
/// Every entry point is a function template on a backend tag, declared once and instantiated twice from the
/// same composition (<concept>.inl): `f<Reference>` by g++ with Thrust's serial CPU backend in every build
/// that has the CCCL headers (SLAB_HAVE_KERNEL_REFERENCE), `f<Cuda>` by nvcc in CUDA builds
/// (SLAB_HAVE_CUDA). A call of `f<Cuda>` belongs inside `if constexpr (slab::built_with_cuda)` (or #if
/// SLAB_HAVE_CUDA): in a host build the symbol does not exist, and a discarded statement needs no definition.
///
/// Pointers: every pointer argument is memory the backend computes on, i.e. device memory (or managed memory)
/// for Cuda and host memory for Reference. Entry points are asynchronous on `Exec::stream` unless they return a
/// value to the host (a count), in which case they synchronise the stream once, after the last kernel that
/// the count depends on. Nothing is collective.

#include <cstddef>
#include <cstdint>

namespace slab::kernels {

/**
 * @brief The caller's scratch memory: every temporary an entry point needs (its own buffers and Thrust's or
 * CUB's temporary storage) comes from here, so that the memory manager can reserve it, count it against the
 * device limit and spill other buffers to make room.
 *
 * Contract: allocate(state, bytes) returns memory the backend can use (device memory for Cuda) aligned to 256
 * bytes, or throws (OutOfMemory); it never returns null for bytes > 0. deallocate(state, ptr, bytes) gets back
 * exactly what allocate gave and must not throw (it runs in destructors). Deallocation is stream-ordered: an entry
 * point may return (and release its scratch) while kernels that use it are still queued on Exec::stream, so the
 * allocator may hand the memory to later work on the same stream only (cudaFreeAsync semantics), or must synchronise
 * before reusing it. With both callbacks null the backend's default is used: std::malloc/std::free (Reference),
 * cudaMallocAsync / cudaFreeAsync on the stream (Cuda).
 */
struct ScratchAllocator {
  void* (*allocate)(void* state, std::size_t bytes) = nullptr;
  void (*deallocate)(void* state, void* ptr, std::size_t bytes) = nullptr;
  void* state = nullptr;
};

/// The execution context of one entry-point call.
struct Exec {
  void* stream = nullptr;  ///< cudaStream_t for Cuda (nullptr: the legacy default stream); unused by Reference
  ScratchAllocator scratch{};
};

/// Backend tags. Their definitions (the Thrust policy and the primitives behind it) live in
/// reference_backend.hpp (g++) and src/core/cuda/cuda_backend.cuh (nvcc), included only by the TUs that
/// instantiate the compositions.
struct Reference;
struct Cuda;

}  // namespace slab::kernels
