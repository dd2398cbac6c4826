#pragma once
/// @file elementwise.hpp
/// @brief Elementwise operations on slab::Array.
///
/// Every function here is lazy and not collective: it records nothing but an expression. A chain of
/// elementwise operations is evaluated as ONE fused task per chunk when the result is materialised
/// (local_chunk(), persist(), a reduction, gather), tile by tile (4096 elements) so intermediates stay in
/// cache: `(a * 2.0 + b).exp()` makes one task per chunk, not three. A reduction of an expression fuses too.
///
/// Division follows NumPy: `/` (divide) is true division, so int64 / int64 is an Array<double> (-7 / 2 is
/// -3.5; x / 0 is +-inf, 0 / 0 NaN); floor_divide (NumPy's `//`) floors toward -inf (-7 // 2 is -4) and mod
/// (NumPy's `%`, np.remainder) has the divisor's sign (-7 % 2 is 1, 7 % -2 is -1), in the operand type.
/// Integer floor_divide and mod by zero give 0, as NumPy does (NumPy also warns; slab does not: elementwise
/// work is lazy and per chunk, and an error there would be data-dependent); INT64_MIN // -1 wraps to
/// INT64_MIN as in NumPy. Floating floor_divide and mod follow NumPy's npy_divmod: x // 0 is +-inf (NaN for
/// 0 // 0), x % 0 is NaN, inf // y is NaN, 5 // inf is 0 and -5 // inf is -1 (with -5 % inf = inf).
///
/// pow of integers is NumPy's for exponents >= 0: exact, wrapping modulo 2^64 (2^32 for int32); a negative
/// exponent (an error in NumPy) gives the double power truncated toward zero (2 ** -1 is 0).
///
/// Broadcasting follows NumPy: an operand may be a scalar, a row vector (1 x cols, normally Split::none), a
/// column vector (rows x 1, with the same row blocks: `v.reshape({n, 1})` of a 1-D v, a view), or a 1-D array,
/// which with a 2-D operand is a row, so its length must be 1 or cols (`x - x.mean(0)` centres the columns;
/// against a (rows, 1) column it makes the outer (rows, n) as NumPy's; a
/// 1-D operand split by rows is replicated first, a collective step recorded in the graph, as is an operand that is
/// broadcast and split along its axis of extent 1, such as a (1, 1) split by rows); operands with the
/// full shape must have the same blocks (same split and row/column bounds). Comparisons return Array<std::int64_t>
/// holding 0 or 1 (NumPy's bool as an integer); where() takes such a condition (non-zero = true).
///
/// @throws ShapeError (on every rank, from global shapes only) naming the operation and both operands'
/// shapes and splits when they cannot be broadcast or their blocks are not on the same ranks.

#include <cstdint>
#include <type_traits>

#include "slab/array/array.hpp"

namespace slab {

template <class T>
class Array;

/// The binary operations. `div` keeps the operand type, so binary() accepts it for float and double only
/// (true division of integers is a float64 array: divide() or `/`); floordiv and mod are floor_divide and mod.
enum class BinaryOp { add, sub, mul, div, pow, min, max, floordiv, mod };
/// The element type of true division: double for int64 (NumPy's int64 / int64 is float64), else T.
template <class T>
using true_divide_t = std::conditional_t<std::is_integral_v<T>, double, T>;
/// The comparisons (result 0/1 as std::int64_t).
enum class CompareOp { eq, ne, lt, le, gt, ge };
/// The unary operations.
enum class UnaryOp { neg, exp, log, sqrt, abs, sin, cos };

/**
 * @brief a op b elementwise, broadcasting (lazy, not collective).
 * @throws ShapeError (every rank) when the shapes or blocks do not broadcast; InvalidArgument for
 * BinaryOp::div of int64 arrays (use divide(), whose result is Array<double>).
 */
template <class T>
[[nodiscard]] Array<T> binary(BinaryOp op, const Array<T>& a, const Array<T>& b);
template <class T>
[[nodiscard]] Array<T> binary(BinaryOp op, const Array<T>& a, std::type_identity_t<T> b);
template <class T>
[[nodiscard]] Array<T> binary(BinaryOp op, std::type_identity_t<T> a, const Array<T>& b);
template <class T>
[[nodiscard]] Array<T> unary(UnaryOp op, const Array<T>& a);
template <class T>
[[nodiscard]] Array<std::int64_t> compare(CompareOp op, const Array<T>& a, const Array<T>& b);
template <class T>
[[nodiscard]] Array<std::int64_t> compare(CompareOp op, const Array<T>& a, std::type_identity_t<T> b);
/// cond ? a : b elementwise (cond non-zero = true; numpy.where(cond, a, b)); the three broadcast together.
/// Either or both of a and b may be scalars: with two scalars the result has cond's shape and layout and T is
/// the scalars' type (`where(m, 1.0, 0.0)` is an Array<double>).
template <class T>
[[nodiscard]] Array<T> where(const Array<std::int64_t>& cond, const Array<T>& a, const Array<T>& b);
template <class T>
[[nodiscard]] Array<T> where(const Array<std::int64_t>& cond, const Array<T>& a, std::type_identity_t<T> b);
template <class T>
[[nodiscard]] Array<T> where(const Array<std::int64_t>& cond, std::type_identity_t<T> a, const Array<T>& b);
template <ArrayElement T>
[[nodiscard]] Array<T> where(const Array<std::int64_t>& cond, T a, T b);
/**
 * @brief True division a / b, as NumPy's `/`: Array<double> for int64 operands (each converted to double
 * first), T otherwise. Lazy, not collective. @throws ShapeError as binary().
 */
template <class T>
[[nodiscard]] Array<true_divide_t<T>> divide(const Array<T>& a, const Array<T>& b);
template <class T>
[[nodiscard]] Array<true_divide_t<T>> divide(const Array<T>& a, std::type_identity_t<T> b);
template <class T>
[[nodiscard]] Array<true_divide_t<T>> divide(std::type_identity_t<T> a, const Array<T>& b);

/**
 * @brief Floor division a // b (NumPy's floor_divide; see the file comment for zero and infinite divisors).
 * Lazy, not collective. @throws ShapeError as binary().
 */
template <class T>
[[nodiscard]] Array<T> floor_divide(const Array<T>& a, const Array<T>& b) {
  return binary(BinaryOp::floordiv, a, b);
}
template <class T>
[[nodiscard]] Array<T> floor_divide(const Array<T>& a, std::type_identity_t<T> b) {
  return binary(BinaryOp::floordiv, a, b);
}
template <class T>
[[nodiscard]] Array<T> floor_divide(std::type_identity_t<T> a, const Array<T>& b) {
  return binary(BinaryOp::floordiv, a, b);
}
/**
 * @brief The remainder a % b with the sign of b (NumPy's mod / remainder, Python's %), so that
 * floor_divide(a, b) * b + mod(a, b) == a. Lazy, not collective. @throws ShapeError as binary().
 */
template <class T>
[[nodiscard]] Array<T> mod(const Array<T>& a, const Array<T>& b) {
  return binary(BinaryOp::mod, a, b);
}
template <class T>
[[nodiscard]] Array<T> mod(const Array<T>& a, std::type_identity_t<T> b) {
  return binary(BinaryOp::mod, a, b);
}
template <class T>
[[nodiscard]] Array<T> mod(std::type_identity_t<T> a, const Array<T>& b) {
  return binary(BinaryOp::mod, a, b);
}

/// Convert elementwise as NumPy's astype: static_cast, so a float converted to an integer type truncates toward
/// zero; NaN, an infinity or a value outside the integer type's range becomes its lowest value (NumPy's result on
/// x86, where C++ leaves it undefined). Lazy, not collective; a device program where the operand is materialised.
template <class U, class T>
[[nodiscard]] Array<U> astype(const Array<T>& a);

#define SLAB_ARRAY_BINARY_OPERATOR(sym, op)                                           \
  template <class T>                                                                  \
  [[nodiscard]] Array<T> operator sym(const Array<T>& a, const Array<T>& b) {         \
    return binary(BinaryOp::op, a, b);                                                \
  }                                                                                   \
  template <class T>                                                                  \
  [[nodiscard]] Array<T> operator sym(const Array<T>& a, std::type_identity_t<T> b) { \
    return binary(BinaryOp::op, a, b);                                                \
  }                                                                                   \
  template <class T>                                                                  \
  [[nodiscard]] Array<T> operator sym(std::type_identity_t<T> a, const Array<T>& b) { \
    return binary(BinaryOp::op, a, b);                                                \
  }
SLAB_ARRAY_BINARY_OPERATOR(+, add)
SLAB_ARRAY_BINARY_OPERATOR(-, sub)
SLAB_ARRAY_BINARY_OPERATOR(*, mul)
SLAB_ARRAY_BINARY_OPERATOR(%, mod)
#undef SLAB_ARRAY_BINARY_OPERATOR

/// a / b is true division (divide()): Array<double> for int64 operands, as NumPy's `/`. There is no `//`
/// in C++: floor division is floor_divide().
template <class T>
[[nodiscard]] Array<true_divide_t<T>> operator/(const Array<T>& a, const Array<T>& b) {
  return divide(a, b);
}
template <class T>
[[nodiscard]] Array<true_divide_t<T>> operator/(const Array<T>& a, std::type_identity_t<T> b) {
  return divide(a, b);
}
template <class T>
[[nodiscard]] Array<true_divide_t<T>> operator/(std::type_identity_t<T> a, const Array<T>& b) {
  return divide(a, b);
}

template <class T>
[[nodiscard]] Array<T> operator-(const Array<T>& a) {
  return unary(UnaryOp::neg, a);
}
template <class T>
[[nodiscard]] Array<T> pow(const Array<T>& a, const Array<T>& b) {
  return binary(BinaryOp::pow, a, b);
}
template <class T>
[[nodiscard]] Array<T> pow(const Array<T>& a, std::type_identity_t<T> b) {
  return binary(BinaryOp::pow, a, b);
}
template <class T>
[[nodiscard]] Array<T> minimum(const Array<T>& a, const Array<T>& b) {
  return binary(BinaryOp::min, a, b);
}
template <class T>
[[nodiscard]] Array<T> maximum(const Array<T>& a, const Array<T>& b) {
  return binary(BinaryOp::max, a, b);
}
template <class T>
[[nodiscard]] Array<T> exp(const Array<T>& a) {
  return unary(UnaryOp::exp, a);
}
template <class T>
[[nodiscard]] Array<T> log(const Array<T>& a) {
  return unary(UnaryOp::log, a);
}
template <class T>
[[nodiscard]] Array<T> sqrt(const Array<T>& a) {
  return unary(UnaryOp::sqrt, a);
}
template <class T>
[[nodiscard]] Array<T> abs(const Array<T>& a) {
  return unary(UnaryOp::abs, a);
}
template <class T>
[[nodiscard]] Array<T> sin(const Array<T>& a) {
  return unary(UnaryOp::sin, a);
}
template <class T>
[[nodiscard]] Array<T> cos(const Array<T>& a) {
  return unary(UnaryOp::cos, a);
}

#define SLAB_ARRAY_COMPARE_OPERATOR(sym, op)                                                     \
  template <class T>                                                                             \
  [[nodiscard]] Array<std::int64_t> operator sym(const Array<T>& a, const Array<T>& b) {         \
    return compare(CompareOp::op, a, b);                                                         \
  }                                                                                              \
  template <class T>                                                                             \
  [[nodiscard]] Array<std::int64_t> operator sym(const Array<T>& a, std::type_identity_t<T> b) { \
    return compare(CompareOp::op, a, b);                                                         \
  }
SLAB_ARRAY_COMPARE_OPERATOR(<, lt)
SLAB_ARRAY_COMPARE_OPERATOR(<=, le)
SLAB_ARRAY_COMPARE_OPERATOR(>, gt)
SLAB_ARRAY_COMPARE_OPERATOR(>=, ge)
#undef SLAB_ARRAY_COMPARE_OPERATOR
/// Elementwise ==, != (named: operator== on arrays would confuse value comparisons).
template <class T>
[[nodiscard]] Array<std::int64_t> equal(const Array<T>& a, const Array<T>& b) {
  return compare(CompareOp::eq, a, b);
}
template <class T>
[[nodiscard]] Array<std::int64_t> not_equal(const Array<T>& a, const Array<T>& b) {
  return compare(CompareOp::ne, a, b);
}

}  // namespace slab
