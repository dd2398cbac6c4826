#pragma once
/// @file hd.hpp
/// @brief SLAB_HD marks a function callable from host and device code: `__host__ __device__` under nvcc (or
/// clang's CUDA mode), nothing under a plain C++ compiler. A bare `__host__ __device__` would compile with g++
/// only where CUDA headers happen to be on the include path, so every shared function uses this macro.
///
/// Functions marked SLAB_HD are the ONE source of the arithmetic host and device must agree on (key words,
/// route hashes, counter-based random numbers, Welford/Chan merges, compensated sums): they use only integer
/// and IEEE-754 double arithmetic (+ - * / sqrt), no libm call whose last bit differs between glibc and CUDA,
/// and the .cu files that use them compile with --fmad=false, so both sides round every operation alike.

#if defined(__CUDACC__) || defined(__CUDA__)
#define SLAB_HD __host__ __device__
#define SLAB_HD_INLINE __host__ __device__ __forceinline__
#else
#define SLAB_HD
#define SLAB_HD_INLINE inline
#endif

#include <cstdint>
#include <cstring>

namespace slab::kernels {
/// The bits of a double and back (std::bit_cast is not usable in device code by every nvcc).
SLAB_HD_INLINE std::uint64_t double_bits(double x) noexcept {
  std::uint64_t b;
  memcpy(&b, &x, sizeof b);
  return b;
}
SLAB_HD_INLINE double bits_double(std::uint64_t b) noexcept {
  double x;
  memcpy(&x, &b, sizeof x);
  return x;
}

/// x is neither NaN nor an infinity (std::isfinite). A predicate, not a rounding: the host takes the compiler's
/// builtin (what std::isfinite compiles to, so the tuned host loops keep their code), the device the IEEE
/// identity x - x == 0, which only NaN and the infinities fail.
template <class F>
SLAB_HD_INLINE bool is_finite(F x) noexcept {
#if defined(__CUDA_ARCH__)
  return x - x == F(0);
#else
  return __builtin_isfinite(x);
#endif
}

/// The high 64 bits of a * b (the device has __umul64hi; g++ and clang have unsigned __int128).
SLAB_HD_INLINE std::uint64_t mul_hi64(std::uint64_t a, std::uint64_t b) noexcept {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}

/// The last i in [0, n) with first[i] <= k (first ascending; 0 when there is none): of segments, groups or pieces
/// starting at first[0], first[1], ..., the one that holds position k. A binary search.
SLAB_HD_INLINE std::int64_t segment_holding(const std::int64_t* first, std::int64_t n, std::int64_t k) noexcept {
  std::int64_t lo = 0, hi = n;
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (first[mid] <= k)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}
}  // namespace slab::kernels
