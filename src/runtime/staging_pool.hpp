#pragma once
/// @file staging_pool.hpp
/// @brief The pool behind slab::StagingBlock (slab/runtime/staging_block.hpp): free lists of host memory by
/// power-of-two size class, page-locked (pinned_host_alloc) where the device tier is GPU memory. Thread-safe.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "slab/runtime/staging_block.hpp"

namespace slab::detail {

class StagingPool : public std::enable_shared_from_this<StagingPool> {
 public:
  /// `pinned`: page-locked memory. `keep_limit`: the most memory kept for reuse (a block going back past it is
  /// freed); the memory in blocks is the owners' to account (the task queue reserves it on the host tier).
  StagingPool(bool pinned, std::uint64_t keep_limit) : pinned_(pinned), keep_limit_(keep_limit) {}
  StagingPool(const StagingPool&) = delete;
  StagingPool& operator=(const StagingPool&) = delete;
  ~StagingPool();

  /// A block of `bytes` (memory of the size class at or above it). @throws OutOfMemory naming the bytes.
  StagingBlock take(std::uint64_t bytes);
  /// The memory of a block, back (kept or freed). Never throws.
  void give(std::byte* data, std::size_t capacity) noexcept;
  [[nodiscard]] StagingPoolStats stats() const;
  /// Keep at most `bytes` for reuse from now on (memory kept past it is freed now). Never throws.
  void set_keep_limit(std::uint64_t bytes) noexcept;

  /// The size class of `bytes`: the power of two at or above it, at least 4 KiB.
  static std::size_t size_class(std::uint64_t bytes) noexcept;

 private:
  const bool pinned_;
  std::uint64_t keep_limit_;  // guarded by mu_
  mutable std::mutex mu_;
  std::map<std::size_t, std::vector<std::byte*>> kept_;  // by size class
  StagingPoolStats stats_;
};

}  // namespace slab::detail
