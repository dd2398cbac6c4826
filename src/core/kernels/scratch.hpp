#pragma once
/// @file scratch.hpp
/// @brief Scratch buffers of a composition and the allocator Thrust's temporary storage goes through, both on
/// the caller's ScratchAllocator (exec.hpp). Backend-neutral: the backend B supplies allocate/deallocate.

#include <cstddef>
#include <cstdint>
#include <utility>

#include "core/kernels/exec.hpp"

namespace slab::kernels {

/// Thrust's temporary allocations (execute_with_allocator) on a ScratchAllocator.
class ThrustScratch {
 public:
  using value_type = char;
  ThrustScratch(void* (*allocate)(void*, std::size_t), void (*deallocate)(void*, void*, std::size_t), void* state)
      : allocate_(allocate), deallocate_(deallocate), state_(state) {}
  char* allocate(std::ptrdiff_t bytes) {
    return static_cast<char*>(allocate_(state_, static_cast<std::size_t>(bytes > 0 ? bytes : 1)));
  }
  void deallocate(char* p, std::size_t bytes) { deallocate_(state_, p, bytes > 0 ? bytes : 1); }

 private:
  void* (*allocate_)(void*, std::size_t);
  void (*deallocate_)(void*, void*, std::size_t);
  void* state_;
};

/// A typed scratch array of n elements from backend b, released when it goes out of scope (stream-ordered,
/// see ScratchAllocator). Uninitialised.
template <class T, class B>
class Scratch {
 public:
  Scratch(B& b, std::int64_t n) : b_(&b), n_(n > 0 ? static_cast<std::size_t>(n) : 0) {
    if (n_) p_ = static_cast<T*>(b.allocate(n_ * sizeof(T)));
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  Scratch(Scratch&& o) noexcept : b_(o.b_), p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  ~Scratch() {
    if (p_) b_->deallocate(p_, n_ * sizeof(T));
  }
  [[nodiscard]] T* get() const noexcept { return p_; }
  [[nodiscard]] std::int64_t size() const noexcept { return static_cast<std::int64_t>(n_); }

 private:
  B* b_;
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace slab::kernels
