#pragma once
/// @file reference_backend.hpp
/// @brief The Reference backend: the compositions run on the CPU with Thrust's serial (cpp) system. Included
/// only by the reference TUs (src/<layer>/kernels/*_ref.cpp), which CMake compiles with
/// THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CPP and the CCCL headers on the path; nothing else sees Thrust.
///
/// It is the executable specification of the device path, not a production path: the tuned host kernels
/// (src/frame/*.cpp, src/array/*.cpp) stay the host's, and CI compares this backend against them.

#if !defined(THRUST_DEVICE_SYSTEM) || THRUST_DEVICE_SYSTEM != THRUST_DEVICE_SYSTEM_CPP
#error "reference_backend.hpp needs THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CPP (set for *_ref.cpp by CMake)"
#endif

#include <thrust/sort.h>
#include <thrust/system/cpp/execution_policy.h>

#include <cstdlib>
#include <cstring>
#include <new>

#include "core/kernels/exec.hpp"
#include "core/kernels/scratch.hpp"

namespace slab::kernels {

struct Reference {
  static constexpr bool is_device = false;

  explicit Reference(const Exec& exec)
      : scratch_(exec.scratch.allocate ? exec.scratch
                                       : ScratchAllocator{&default_allocate, &default_deallocate, nullptr}),
        thrust_alloc_(scratch_.allocate, scratch_.deallocate, scratch_.state) {}

  /// Thrust's serial policy, its temporaries on the scratch allocator.
  auto policy() { return thrust::cpp::par(thrust_alloc_); }

  void* allocate(std::size_t bytes) { return scratch_.allocate(scratch_.state, bytes); }
  void deallocate(void* p, std::size_t bytes) { scratch_.deallocate(scratch_.state, p, bytes); }

  /// Backend memory -> host memory (synchronous).
  void to_host(void* dst, const void* src, std::size_t bytes) {
    if (bytes) std::memcpy(dst, src, bytes);
  }
  /// Host memory -> backend memory; `src` may be reused as soon as this returns.
  void to_backend(void* dst, const void* src, std::size_t bytes) {
    if (bytes) std::memcpy(dst, src, bytes);
  }
  /// Backend memory -> backend memory (ranges must not overlap).
  void copy(void* dst, const void* src, std::size_t bytes) {
    if (bytes) std::memcpy(dst, src, bytes);
  }
  void zero(void* dst, std::size_t bytes) {
    if (bytes) std::memset(dst, 0, bytes);
  }
  void sync() {}

  /// Stable sort of (key, value) pairs by bits [begin_bit, end_bit) of the keys (LSB = bit 0), as
  /// cub::DeviceRadixSort::SortPairs: bits outside the range are ignored (and kept), ties keep their order.
  template <class V>
  void sort_pairs(const std::uint64_t* keys_in, std::uint64_t* keys_out, const V* vals_in, V* vals_out, std::int64_t n,
                  int begin_bit, int end_bit) {
    if (n <= 0) return;
    copy(keys_out, keys_in, static_cast<std::size_t>(n) * sizeof(std::uint64_t));
    copy(vals_out, vals_in, static_cast<std::size_t>(n) * sizeof(V));
    thrust::stable_sort_by_key(policy(), keys_out, keys_out + n, vals_out, MaskedLess{mask(begin_bit, end_bit)});
  }

 private:
  struct MaskedLess {
    std::uint64_t m;
    bool operator()(std::uint64_t a, std::uint64_t b) const { return (a & m) < (b & m); }
  };
  static std::uint64_t mask(int begin_bit, int end_bit) {
    const std::uint64_t hi = end_bit >= 64 ? ~0ull : ((1ull << end_bit) - 1);
    const std::uint64_t lo = begin_bit <= 0 ? 0 : ((1ull << begin_bit) - 1);
    return hi & ~lo;
  }
  static void* default_allocate(void*, std::size_t bytes) {
    void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
    if (!p) throw std::bad_alloc();
    return p;
  }
  static void default_deallocate(void*, void* p, std::size_t) { std::free(p); }

  ScratchAllocator scratch_;
  ThrustScratch thrust_alloc_;
};

}  // namespace slab::kernels
