#pragma once
// Private to slab: the scratch memory of device kernel calls (CUB/Thrust temporaries, sort double buffers,
// per-chunk partials) taken from the memory manager, so that it counts against the device limit, shows in the
// peak, and makes other buffers spill to make room, as the kernels' ScratchAllocator contract asks
// (core/kernels/exec.hpp).
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "core/kernels/exec.hpp"
#include "slab/memory/buffer.hpp"

namespace slab {
class MemoryManager;
class ExecutionContext;
}  // namespace slab

namespace slab::detail {

/**
 * Every allocation is a device-tier buffer of the manager, pinned until it is given back (or until this object
 * goes, which gives back what is left). Device-tier memory on a CUDA context is stream-ordered (the manager's
 * pool frees with cudaFreeAsync on the rank's stream), so a kernel still queued may keep using what it was given.
 * Thread-safe; not collective.
 */
class KernelScratch {
 public:
  explicit KernelScratch(MemoryManager& memory, std::string label = "kernel scratch");
  ~KernelScratch();
  KernelScratch(const KernelScratch&) = delete;
  KernelScratch& operator=(const KernelScratch&) = delete;

  /// An entry point's execution: `context`'s stream, scratch from here.
  [[nodiscard]] kernels::Exec exec(const ExecutionContext& context);

 private:
  static void* allocate(void* self, std::size_t bytes);
  static void deallocate(void* self, void* ptr, std::size_t bytes) noexcept;

  MemoryManager& memory_;
  std::string label_;
  std::mutex mutex_;
  struct Held {
    void* aligned;
    Pin pin;
  };
  std::vector<Held> held_;
};

/// Backend memory from an entry point's scratch allocator, given back when it goes.
class ScratchBytes {
 public:
  ScratchBytes(const kernels::Exec& exec, std::size_t bytes) : exec_(exec), bytes_(bytes) {
    if (bytes_) p_ = exec_.scratch.allocate(exec_.scratch.state, bytes_);
  }
  ~ScratchBytes() {
    if (p_) exec_.scratch.deallocate(exec_.scratch.state, p_, bytes_);
  }
  ScratchBytes(const ScratchBytes&) = delete;
  ScratchBytes& operator=(const ScratchBytes&) = delete;
  [[nodiscard]] void* get() const noexcept { return p_; }

 private:
  kernels::Exec exec_;
  std::size_t bytes_;
  void* p_ = nullptr;
};

}  // namespace slab::detail
