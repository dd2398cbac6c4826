#include "runtime/staging_pool.hpp"

#include <bit>
#include <string>

#include "runtime/cuda/execution.hpp"
#include "slab/core/error.hpp"
#include "slab/core/units.hpp"

namespace slab {

void StagingBlock::reset() noexcept {
  if (pool_ && data_ != nullptr) pool_->give(data_, capacity_);
  pool_.reset();
  data_ = nullptr;
  size_ = capacity_ = 0;
}

namespace detail {

std::size_t StagingPool::size_class(std::uint64_t bytes) noexcept {
  constexpr std::uint64_t smallest = 4096;
  return static_cast<std::size_t>(std::bit_ceil(bytes < smallest ? smallest : bytes));
}

StagingBlock StagingPool::take(std::uint64_t bytes) {
  SLAB_EXPECTS(bytes <= (std::uint64_t{1} << 62), OutOfMemory,
               "a staging block of " + format_bytes(bytes) + " is larger than any host memory");
  const std::size_t capacity = size_class(bytes);
  {
    std::lock_guard lock(mu_);
    ++stats_.blocks;
    if (auto it = kept_.find(capacity); it != kept_.end() && !it->second.empty()) {
      std::byte* p = it->second.back();
      it->second.pop_back();
      stats_.kept_bytes -= capacity;
      ++stats_.reused;
      return StagingBlock(shared_from_this(), p, static_cast<std::size_t>(bytes), capacity);
    }
  }
  auto* p = static_cast<std::byte*>(pinned_host_alloc(capacity, pinned_));  // outside the lock: it may be slow
  std::lock_guard lock(mu_);
  stats_.allocated_bytes += capacity;
  return StagingBlock(shared_from_this(), p, static_cast<std::size_t>(bytes), capacity);
}

void StagingPool::give(std::byte* data, std::size_t capacity) noexcept {
  {
    std::lock_guard lock(mu_);
    if (stats_.kept_bytes + capacity <= keep_limit_) {
      try {
        kept_[capacity].push_back(data);
        stats_.kept_bytes += capacity;
        return;
      } catch (...) {  // no memory for the list: free the block instead
      }
    }
    stats_.allocated_bytes -= capacity;
  }
  pinned_host_free(data, pinned_);
}

StagingPoolStats StagingPool::stats() const {
  std::lock_guard lock(mu_);
  StagingPoolStats s = stats_;
  s.pinned = pinned_;
  return s;
}

void StagingPool::set_keep_limit(std::uint64_t bytes) noexcept {
  std::lock_guard lock(mu_);
  keep_limit_ = bytes;
  for (auto it = kept_.rbegin(); it != kept_.rend() && stats_.kept_bytes > keep_limit_; ++it) {
    while (!it->second.empty() && stats_.kept_bytes > keep_limit_) {  // largest classes first: fewest frees
      pinned_host_free(it->second.back(), pinned_);
      it->second.pop_back();
      stats_.kept_bytes -= it->first;
      stats_.allocated_bytes -= it->first;
    }
  }
}

StagingPool::~StagingPool() {
  for (auto& [capacity, blocks] : kept_)
    for (std::byte* p : blocks) pinned_host_free(p, pinned_);
}

}  // namespace detail
}  // namespace slab
