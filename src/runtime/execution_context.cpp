// ExecutionContext's handles and the host context; the CUDA calls are in cuda/execution.cu (execution_host.cpp on
// host builds).
#include "slab/runtime/execution_context.hpp"

#include <array>
#include <cstring>
#include <mutex>

#include "runtime/cuda/execution.hpp"
#include "runtime/staging_pool.hpp"
#include "slab/runtime/copy_async.hpp"

namespace slab {

struct ExecutionContext::Handles {
  struct Slot {
    void* handle = nullptr;
    void (*destroy)(void*) = nullptr;
  };
  std::mutex mutex;
  std::array<Slot, 2> slots{};
};

namespace {
constexpr std::uint64_t kDefaultStagingKeep = std::uint64_t{256} << 20;
}

ExecutionContext::ExecutionContext()
    : handles_(std::make_unique<Handles>()),
      staging_(std::make_shared<detail::StagingPool>(false, kDefaultStagingKeep)) {}

ExecutionContext::ExecutionContext(ExecutionPlace place, int device, void* stream)
    : place_(place),
      device_(place == ExecutionPlace::cuda ? device : -1),
      stream_(place == ExecutionPlace::cuda ? stream : nullptr),
      handles_(std::make_unique<Handles>()),
      staging_(std::make_shared<detail::StagingPool>(place == ExecutionPlace::cuda, kDefaultStagingKeep)) {}

ExecutionContext::~ExecutionContext() {
  // Library handles go before the stream they are bound to (the Runtime destroys the stream after this).
  for (auto& slot : handles_->slots)
    if (slot.handle && slot.destroy) slot.destroy(slot.handle);
}

void* ExecutionContext::library_handle(LibraryHandle which, void* (*create)(void* stream),
                                       void (*destroy)(void* handle)) const {
  std::lock_guard lock(handles_->mutex);
  auto& slot = handles_->slots[static_cast<std::size_t>(which)];
  if (slot.handle == nullptr) {
    slot.handle = create(stream_);
    slot.destroy = destroy;
  }
  return slot.handle;
}

void ExecutionContext::synchronize() const {
  if (on_device()) detail::cuda_stream_synchronize(stream_);
}

bool ExecutionContext::is_device_memory(const void* ptr) const noexcept {
  return on_device() && detail::cuda_is_device_memory(ptr);
}

StagingBlock ExecutionContext::staging_block(std::uint64_t bytes) const { return staging_->take(bytes); }

StagingPoolStats ExecutionContext::staging_stats() const { return staging_->stats(); }

void ExecutionContext::set_staging_keep_limit(std::uint64_t bytes) const noexcept { staging_->set_keep_limit(bytes); }

const ExecutionContext& ExecutionContext::host() {
  static const ExecutionContext context;
  return context;
}

void copy(void* dst, const void* src, std::size_t bytes, const ExecutionContext& context) {
  if (bytes == 0 || dst == src) return;
  if (context.on_device())
    detail::cuda_copy(dst, src, bytes, context.stream());
  else
    detail::host_copy(dst, src, bytes);
}

void copy_async(void* dst, const void* src, std::size_t bytes, const ExecutionContext& context) {
  if (bytes == 0 || dst == src) return;
  if (context.on_device())
    detail::cuda_copy_async(dst, src, bytes, context.stream());
  else
    detail::host_copy(dst, src, bytes);
}

void fill(void* dst, unsigned char value, std::size_t bytes, const ExecutionContext& context) {
  if (bytes == 0) return;
  if (context.on_device())
    detail::cuda_fill(dst, value, bytes, context.stream());
  else
    std::memset(dst, value, bytes);
}

}  // namespace slab
