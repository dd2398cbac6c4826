#pragma once
/// @file cast_hd.hpp
/// @brief astype's conversion of one element, the one source for the host loop and the device program
/// (array/kernels/elementwise.hpp's cast_leaf), so that both give the same bits.

#include <cstdint>
#include <type_traits>

#include "core/kernels/hd.hpp"

namespace slab::kernels {

/// static_cast<U>(x), except where C++ leaves it undefined: a floating value that is NaN or outside U's range
/// becomes U's lowest value, as NumPy's astype gives on x86 (the "integer indefinite" of cvttsd2si; CUDA's
/// conversion would saturate instead). Finite values in range truncate toward zero.
template <class U, class A>
SLAB_HD_INLINE U cast_value(A x) {
  if constexpr (std::is_integral_v<U> && std::is_floating_point_v<A>) {
    constexpr int bits = static_cast<int>(sizeof(U)) * 8 - 1;
    constexpr A limit = static_cast<A>(std::uint64_t{1} << bits);  // 2^31 or 2^63, exact in float and double
    if (!(x >= -limit && x < limit)) return static_cast<U>(std::uint64_t{1} << bits);  // NaN fails both
  }
  return static_cast<U>(x);
}

}  // namespace slab::kernels
