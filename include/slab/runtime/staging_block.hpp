#pragma once
/// @file staging_block.hpp
/// @brief slab::StagingBlock: host memory for a copy between the device tier and the host (a staged task's inputs
/// and outputs, a staged combine's operands), from its memory manager's staging pool (MemoryManager::staging_block).
/// Where the device tier is GPU memory the pool's blocks are page-locked (cudaHostAlloc), so that copies run at the
/// link's rate instead of through the driver's bounce buffer; elsewhere they are aligned host memory. Pinning costs a
/// system call and a fault per page, so a block's memory goes back to the pool when the block goes, kept by size
/// class (powers of two) for the next request of that class, up to a cap on what the pool keeps.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>

namespace slab {

namespace detail {
class StagingPool;
}

/// Host bytes of a staging pool; given back to the pool when the block goes. Move-only. Not collective;
/// thread-safe as Buffer (blocks may be made and dropped on any thread).
class StagingBlock {
 public:
  StagingBlock() = default;
  StagingBlock(StagingBlock&& other) noexcept { take(other); }
  StagingBlock& operator=(StagingBlock&& other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }
  StagingBlock(const StagingBlock&) = delete;
  StagingBlock& operator=(const StagingBlock&) = delete;
  ~StagingBlock() { reset(); }

  /// The bytes asked for (the block's memory may be larger: its size class). Uninitialised.
  [[nodiscard]] std::span<std::byte> bytes() const noexcept { return {data_, size_}; }
  [[nodiscard]] std::byte* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  /// Give the memory back to the pool now. Never throws.
  void reset() noexcept;

 private:
  friend class detail::StagingPool;
  StagingBlock(std::shared_ptr<detail::StagingPool> pool, std::byte* data, std::size_t size, std::size_t capacity)
      : pool_(std::move(pool)), data_(data), size_(size), capacity_(capacity) {}
  void take(StagingBlock& other) noexcept {
    pool_ = std::move(other.pool_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
  }

  std::shared_ptr<detail::StagingPool> pool_;
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;  ///< the size class the memory came from
};

/// What a staging pool did since its manager was made (MemoryStats::staging).
struct StagingPoolStats {
  std::uint64_t blocks = 0;           ///< blocks given out
  std::uint64_t reused = 0;           ///< of them, served from memory the pool kept
  std::uint64_t kept_bytes = 0;       ///< memory kept for reuse now
  std::uint64_t allocated_bytes = 0;  ///< memory allocated now, kept or in blocks
  bool pinned = false;                ///< page-locked memory (the device tier is GPU memory)
};

}  // namespace slab
