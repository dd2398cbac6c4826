#pragma once
/// @file
/// @brief slab::ExecutionContext: where this rank computes (the host, or its CUDA device), with the rank's stream
/// and the CUDA libraries' handles made on first use. One per rank, owned by the Runtime; tasks reach it through
/// TaskContext::execution(), everything else through Engine::execution() or MemoryManager::execution().
/// Whether CUDA paths are compiled in at all is slab::built_with_cuda (slab/core/version.hpp), the one predicate;
/// a CUDA build on a machine without a GPU computes on the host.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "slab/runtime/staging_block.hpp"

namespace slab {

namespace detail {
class StagingPool;
}

/// Where a rank computes and where its device tier lives.
enum class ExecutionPlace : std::uint8_t {
  host,  ///< host cores; "device" buffers are host memory
  cuda,  ///< the rank's CUDA device; device buffers are GPU memory, kernels run on the stream below
  /// Host cores and host memory, but operations take their device paths: the device kernels' compositions as g++
  /// instantiates them (Thrust's serial backend), with every fallback recorded as on a GPU. The device paths'
  /// wiring, run where there is no GPU (CI): --kernels reference / SLAB_KERNELS=reference.
  reference,
};

/// The CUDA libraries whose handles an ExecutionContext keeps (made on first use, bound to the context's stream).
enum class LibraryHandle : std::uint8_t { cublas, cusolver };

class ExecutionContext {
 public:
  /// A host context: no device, no stream.
  ExecutionContext();
  /// A context on CUDA device `device` with stream `stream` (an opaque cudaStream_t the caller owns and outlives
  /// this context) when `place` is cuda.
  ExecutionContext(ExecutionPlace place, int device, void* stream);
  ~ExecutionContext();
  ExecutionContext(const ExecutionContext&) = delete;
  ExecutionContext& operator=(const ExecutionContext&) = delete;

  [[nodiscard]] ExecutionPlace place() const noexcept { return place_; }
  /// True where kernels run on the GPU and the device tier is GPU memory.
  [[nodiscard]] bool on_device() const noexcept { return place_ == ExecutionPlace::cuda; }
  /// True where operations take their device paths (cuda, or reference on the host): an operation without one
  /// is a fallback (slab/engine/host_fallback.hpp).
  [[nodiscard]] bool device_kernels() const noexcept { return place_ != ExecutionPlace::host; }
  /// The CUDA device ordinal (-1 on the host).
  [[nodiscard]] int device() const noexcept { return device_; }
  /// The rank's CUDA stream (cudaStream_t), nullptr on the host.
  [[nodiscard]] void* stream() const noexcept { return stream_; }

  /**
   * @brief The handle of library `which` (cublasHandle_t, cusolverDnHandle_t), made on first use by
   * `create(stream)` and destroyed with `destroy` when the context ends. The library's own translation unit
   * passes both, so the runtime does not link cuBLAS or cuSOLVER. Thread-safe; not collective.
   */
  [[nodiscard]] void* library_handle(LibraryHandle which, void* (*create)(void* stream),
                                     void (*destroy)(void* handle)) const;

  /// Wait for the work queued on the stream (no-op on the host). @throws CudaError.
  void synchronize() const;

  /**
   * @brief Whether `ptr` is GPU (device or managed) memory: on a cuda context CUDA's unified addressing tells it,
   * for any allocation (the device tier's, the kernels' scratch, a user's own cudaMalloc or Kokkos view); on the
   * host and reference places it is false without a CUDA call. The one question of a pointer's kind: the comm
   * layer asks it to choose NCCL or host staging. Null is host. Never throws; not collective.
   */
  [[nodiscard]] bool is_device_memory(const void* ptr) const noexcept;

  /**
   * @brief A block of host memory from the rank's one staging pool, for a copy between GPU memory and the host:
   * page-locked on a cuda context (copies run at the link's rate), aligned host memory elsewhere. Blocks are kept
   * by size class for reuse up to the keep limit. Used by the task queue, spills, io and comm's host staging.
   * Thread-safe; not collective. @throws OutOfMemory naming the bytes.
   */
  [[nodiscard]] StagingBlock staging_block(std::uint64_t bytes) const;
  /// What the staging pool did so far (blocks given, reused, memory kept and allocated). Thread-safe.
  [[nodiscard]] StagingPoolStats staging_stats() const;
  /// Keep at most `bytes` of freed staging memory for reuse (the memory manager sets it from its host limit;
  /// 256 MiB until then). Memory kept past it is freed now. Thread-safe; never throws.
  void set_staging_keep_limit(std::uint64_t bytes) const noexcept;

  /// A host context for code that runs without a Runtime (tests of one layer, tools).
  [[nodiscard]] static const ExecutionContext& host();

 private:
  struct Handles;
  ExecutionPlace place_ = ExecutionPlace::host;
  int device_ = -1;
  void* stream_ = nullptr;
  std::unique_ptr<Handles> handles_;
  std::shared_ptr<detail::StagingPool> staging_;  // shared: blocks keep it alive past the context
};

/**
 * @brief Copy `bytes` from `src` to `dst`, each host or device memory (the kind is told by CUDA's unified
 * addressing on a CUDA context; a host context copies host memory), on the context's stream, complete when it
 * returns. The one copy between memory kinds: memory, task, comm, io and linalg all use it. Not collective.
 * @throws CudaError when CUDA fails.
 */
void copy(void* dst, const void* src, std::size_t bytes, const ExecutionContext& context);

/**
 * @brief Set `bytes` bytes at `dst` (host or device memory, as for copy) to `value`, on the context's stream,
 * complete when it returns. Not collective. @throws CudaError when CUDA fails.
 */
void fill(void* dst, unsigned char value, std::size_t bytes, const ExecutionContext& context);

}  // namespace slab
