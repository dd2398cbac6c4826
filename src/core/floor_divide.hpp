#pragma once
// Private to slab: floor division and modulo of one pair of values as NumPy defines them (np.floor_divide,
// np.remainder), shared by the array layer and frame expressions so that both give the same answers.
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace slab::detail {

/// x // y and x % y of integers: the quotient floored toward -inf, the remainder with the divisor's sign.
/// y == 0 gives 0 for both (NumPy gives 0 with a RuntimeWarning; callers that can mark a null say so via
/// `by_zero`). INT64_MIN // -1 wraps to INT64_MIN as in NumPy (C's / would be undefined behaviour).
template <class T>
constexpr T int_floor_divide(T x, T y) noexcept {
  static_assert(std::is_integral_v<T>);
  if (y == 0) return 0;
  if (y == -1) return static_cast<T>(std::make_unsigned_t<T>(0) - static_cast<std::make_unsigned_t<T>>(x));
  const T q = x / y;
  return (x % y != 0 && ((x < 0) != (y < 0))) ? static_cast<T>(q - 1) : q;
}
template <class T>
constexpr T int_mod(T x, T y) noexcept {
  static_assert(std::is_integral_v<T>);
  if (y == 0 || y == -1) return 0;
  const T r = x % y;
  return (r != 0 && ((r < 0) != (y < 0))) ? static_cast<T>(r + y) : r;
}

/// x ** y of integers for y >= 0 as NumPy's: exact, wrapping modulo 2^bits (3 ** 39 is 4052555153018976267, not
/// the double power's 4052555153018976256; 2 ** 64 is 0), by repeated squaring in unsigned arithmetic.
template <class T>
constexpr T int_power(T x, T y) noexcept {
  static_assert(std::is_integral_v<T>);
  using U = std::make_unsigned_t<T>;
  U r = 1, b = static_cast<U>(x);
  for (U e = static_cast<U>(y); e != 0; e >>= 1) {
    if (e & 1) r = static_cast<U>(r * b);
    b = static_cast<U>(b * b);
  }
  return static_cast<T>(r);
}

/// NumPy's npy_divmod for floating point: the remainder has the divisor's sign, the quotient is
/// (x - mod) / y snapped to the nearest integer below; y == 0 gives x / y (+-inf or NaN) and fmod's NaN,
/// an infinite x gives NaN, 5 // inf is 0 and -5 // inf is -1 (with remainder inf), as NumPy.
template <class T>
inline T float_divmod(T a, T b, T& modulus) noexcept {
  static_assert(std::is_floating_point_v<T>);
  T mod = std::fmod(a, b);
  if (b == 0) {
    modulus = mod;
    return a / b;
  }
  T div = (a - mod) / b;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= T(1);
    }
  } else {
    mod = std::copysign(T(0), b);
  }
  T floordiv;
  if (div != 0) {
    floordiv = std::floor(div);
    if (div - floordiv > T(0.5)) floordiv += T(1);
  } else {
    floordiv = std::copysign(T(0), a / b);
  }
  modulus = mod;
  return floordiv;
}
template <class T>
inline T float_floor_divide(T a, T b) noexcept {
  if (b == 0) return a / b;
  T m;
  return float_divmod(a, b, m);
}
template <class T>
inline T float_mod(T a, T b) noexcept {
  if (b == 0) return std::fmod(a, b);
  T m;
  float_divmod(a, b, m);
  return m;
}

/// floor_divide / mod of any Array element type.
template <class T>
inline T floor_divide_value(T x, T y) noexcept {
  if constexpr (std::is_integral_v<T>)
    return int_floor_divide(x, y);
  else
    return float_floor_divide(x, y);
}
template <class T>
inline T mod_value(T x, T y) noexcept {
  if constexpr (std::is_integral_v<T>)
    return int_mod(x, y);
  else
    return float_mod(x, y);
}

}  // namespace slab::detail
