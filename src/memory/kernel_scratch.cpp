// KernelScratch: device kernels' scratch as pinned device-tier buffers of the memory manager.
#include "memory/kernel_scratch.hpp"

#include <algorithm>
#include <cstdint>

#include "slab/memory/memory_manager.hpp"
#include "slab/runtime/execution_context.hpp"

namespace slab::detail {

namespace {
constexpr std::size_t kAlign = 256;  // the ScratchAllocator contract (CUB's own alignment)
}

KernelScratch::KernelScratch(MemoryManager& memory, std::string label) : memory_(memory), label_(std::move(label)) {}

KernelScratch::~KernelScratch() = default;

kernels::Exec KernelScratch::exec(const ExecutionContext& context) {
  kernels::Exec e;
  e.stream = context.stream();
  e.scratch = {&KernelScratch::allocate, &KernelScratch::deallocate, this};
  return e;
}

void* KernelScratch::allocate(void* self_ptr, std::size_t bytes) {
  auto* self = static_cast<KernelScratch*>(self_ptr);
  // Over-allocate by the alignment: the manager's host tier aligns less than 256 bytes.
  BufferPtr buffer = self->memory_.allocate(std::max<std::size_t>(bytes, 1) + kAlign, self->label_);
  Pin pin = buffer->pin();
  const auto base = reinterpret_cast<std::uintptr_t>(pin.data());
  void* aligned = reinterpret_cast<void*>((base + kAlign - 1) / kAlign * kAlign);
  std::lock_guard lock(self->mutex_);
  self->held_.push_back({aligned, std::move(pin)});
  return aligned;
}

void KernelScratch::deallocate(void* self_ptr, void* ptr, std::size_t) noexcept {
  auto* self = static_cast<KernelScratch*>(self_ptr);
  Pin released;
  {
    std::lock_guard lock(self->mutex_);
    auto it = std::find_if(self->held_.begin(), self->held_.end(), [&](const Held& h) { return h.aligned == ptr; });
    if (it == self->held_.end()) return;
    released = std::move(it->pin);
    self->held_.erase(it);
  }
  // The buffer goes with the last reference (the pin's), outside the lock.
}

}  // namespace slab::detail
