#pragma once
// The composition of elementwise.hpp: the program validated once on the host (stack depth, operand indices),
// then one functor call per element interpreting it on a register stack.
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include <cmath>
#include <string>
#include <type_traits>

#include "array/kernels/cast_hd.hpp"
#include "core/floor_divide.hpp"  // int_power (constexpr: device code under --expt-relaxed-constexpr)
#include "array/kernels/elementwise.hpp"
#include "core/kernels/hd.hpp"
#include "core/kernels/scratch.hpp"
#include "slab/core/error.hpp"

namespace slab::kernels {
namespace detail {

/// The host's functors of array.cpp (divide, power, vmin, vmax, the unary math through double for integers).
template <class T>
struct ElemMath {
  using D = std::conditional_t<std::is_integral_v<T>, double, T>;
  SLAB_HD_INLINE static bool isnan_(T x) {
    if constexpr (std::is_floating_point_v<T>)
      return x != x;
    else
      return false;
  }
  SLAB_HD_INLINE static T divide(T x, T y) { return x / y; }  // floating T only (check_program)
  SLAB_HD_INLINE static T vmin(T x, T y) {
    if (isnan_(x) || isnan_(y)) return x + y;
    return y < x ? y : x;
  }
  SLAB_HD_INLINE static T vmax(T x, T y) {
    if (isnan_(x) || isnan_(y)) return x + y;
    return x < y ? y : x;
  }
#if defined(__CUDA_ARCH__)
#define SLAB_ELEM_FN(name) ::name
#define SLAB_ELEM_MATH(name) \
  SLAB_HD_INLINE static T name(T x) { return cast_value<T>(::name(static_cast<D>(x))); }
  SLAB_HD_INLINE static T power(T x, T y) {
    if constexpr (std::is_integral_v<T>)
      return y >= 0 ? slab::detail::int_power(x, y) : cast_value<T>(::pow(static_cast<double>(x), static_cast<double>(y)));
    else
      return ::pow(x, y);
  }
#else
#define SLAB_ELEM_FN(name) std::name
#define SLAB_ELEM_MATH(name) \
  SLAB_HD_INLINE static T name(T x) { return cast_value<T>(std::name(static_cast<D>(x))); }
  SLAB_HD_INLINE static T power(T x, T y) {
    if constexpr (std::is_integral_v<T>)
      return y >= 0 ? slab::detail::int_power(x, y) : cast_value<T>(std::pow(static_cast<double>(x), static_cast<double>(y)));
    else
      return std::pow(x, y);
  }
#endif
  // NumPy's absolute: a float's sign bit cleared (abs(-0.0) is 0.0, which x < 0 ? -x : x would keep negative).
  SLAB_HD_INLINE static T absolute(T x) {
    if constexpr (std::is_floating_point_v<T>)
      return SLAB_ELEM_FN(fabs)(x);
    else
      return x < 0 ? static_cast<T>(-x) : x;
  }
  // floor_divide and mod: core/floor_divide.hpp's int_floor_divide / int_mod / float_divmod, operation for
  // operation (fmod, floor and copysign are exact, so both sides agree bitwise).
  SLAB_HD_INLINE static T floordiv(T x, T y) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      if (y == 0) return 0;
      if (y == -1) return static_cast<T>(U(0) - static_cast<U>(x));
      const T q = x / y;
      return (x % y != 0 && ((x < 0) != (y < 0))) ? static_cast<T>(q - 1) : q;
    } else {
      if (y == 0) return x / y;
      T m;
      return float_divmod(x, y, m);
    }
  }
  SLAB_HD_INLINE static T mod(T x, T y) {
    if constexpr (std::is_integral_v<T>) {
      if (y == 0 || y == -1) return 0;
      const T r = x % y;
      return (r != 0 && ((r < 0) != (y < 0))) ? static_cast<T>(r + y) : r;
    } else {
      if (y == 0) return SLAB_ELEM_FN(fmod)(x, y);
      T m;
      float_divmod(x, y, m);
      return m;
    }
  }
  SLAB_HD_INLINE static T float_divmod(T a, T b, T& modulus) {
    T m = SLAB_ELEM_FN(fmod)(a, b);
    T div = (a - m) / b;
    if (m != 0) {
      if ((b < 0) != (m < 0)) {
        m += b;
        div -= T(1);
      }
    } else {
      m = SLAB_ELEM_FN(copysign)(T(0), b);
    }
    T fl;
    if (div != 0) {
      fl = SLAB_ELEM_FN(floor)(div);
      if (div - fl > T(0.5)) fl += T(1);
    } else {
      fl = SLAB_ELEM_FN(copysign)(T(0), a / b);
    }
    modulus = m;
    return fl;
  }
  SLAB_ELEM_MATH(exp)
  SLAB_ELEM_MATH(log)
  SLAB_ELEM_MATH(sqrt)
  SLAB_ELEM_MATH(sin)
  SLAB_ELEM_MATH(cos)
#undef SLAB_ELEM_MATH
#undef SLAB_ELEM_FN
};

template <class T>
struct ElemRun {
  // The program in backend memory, read through a pointer: held by value, the instructions' and operands'
  // dynamic indexing would make every GPU thread copy the whole program into local memory first.
  const ElemProgram<T>* program;
  std::int64_t cols;
  void* out;
  bool out_int64;

  SLAB_HD void operator()(std::int64_t k) const {
    const ElemProgram<T>& p = *program;
    using M = ElemMath<T>;
    const std::int64_t i = k / cols, j = k % cols;
    T st[kMaxElemStack];
    int top = 0;
    for (int pc = 0; pc < p.size; ++pc) {
      const ElemInstr in = p.code[pc];
      switch (in.op) {
        case ElemOp::leaf: {
          const ElemLeaf<T>& l = p.leaves[in.arg];
          st[top++] = l.data[i * l.row_stride + j * l.col_stride];
          break;
        }
        case ElemOp::cond_leaf: {
          const ElemLeaf<std::int64_t>& l = p.cond_leaves[in.arg];
          st[top++] = l.data[i * l.row_stride + j * l.col_stride] != 0 ? T(1) : T(0);
          break;
        }
        case ElemOp::cast_leaf: {
          const ElemCastLeaf& l = p.cast_leaves[in.arg];
          const std::int64_t at = i * l.row_stride + j * l.col_stride;
          switch (l.source) {
            case ElemSource::float64:
              st[top++] = cast_value<T>(static_cast<const double*>(l.data)[at]);
              break;
            case ElemSource::float32:
              st[top++] = cast_value<T>(static_cast<const float*>(l.data)[at]);
              break;
            case ElemSource::int64:
              st[top++] = cast_value<T>(static_cast<const std::int64_t*>(l.data)[at]);
              break;
            default:
              st[top++] = cast_value<T>(static_cast<const std::int32_t*>(l.data)[at]);
              break;
          }
          break;
        }
        case ElemOp::scalar:
          st[top++] = p.scalars[in.arg];
          break;
        case ElemOp::neg:
          st[top - 1] = static_cast<T>(-st[top - 1]);
          break;
        case ElemOp::abs:
          st[top - 1] = M::absolute(st[top - 1]);
          break;
        case ElemOp::exp:
          st[top - 1] = M::exp(st[top - 1]);
          break;
        case ElemOp::log:
          st[top - 1] = M::log(st[top - 1]);
          break;
        case ElemOp::sqrt:
          st[top - 1] = M::sqrt(st[top - 1]);
          break;
        case ElemOp::sin:
          st[top - 1] = M::sin(st[top - 1]);
          break;
        case ElemOp::cos:
          st[top - 1] = M::cos(st[top - 1]);
          break;
        case ElemOp::where: {
          const T b = st[--top], a = st[--top], c = st[--top];
          st[top++] = c != T(0) ? a : b;
          break;
        }
        default: {
          const T y = st[--top], x = st[--top];
          T r{};
          switch (in.op) {
            case ElemOp::add:
              r = static_cast<T>(x + y);
              break;
            case ElemOp::sub:
              r = static_cast<T>(x - y);
              break;
            case ElemOp::mul:
              r = static_cast<T>(x * y);
              break;
            case ElemOp::div:
              r = M::divide(x, y);
              break;
            case ElemOp::floordiv:
              r = M::floordiv(x, y);
              break;
            case ElemOp::mod:
              r = M::mod(x, y);
              break;
            case ElemOp::pow:
              r = M::power(x, y);
              break;
            case ElemOp::min:
              r = M::vmin(x, y);
              break;
            case ElemOp::max:
              r = M::vmax(x, y);
              break;
            case ElemOp::eq:
              r = T(x == y);
              break;
            case ElemOp::ne:
              r = T(x != y);
              break;
            case ElemOp::lt:
              r = T(x < y);
              break;
            case ElemOp::le:
              r = T(x <= y);
              break;
            case ElemOp::gt:
              r = T(x > y);
              break;
            default:
              r = T(x >= y);
              break;
          }
          st[top++] = r;
        }
      }
    }
    if (out_int64)
      static_cast<std::int64_t*>(out)[k] = static_cast<std::int64_t>(st[0]);
    else
      static_cast<T*>(out)[k] = st[0];
  }
};

template <class T>
void check_program(const ElemProgram<T>& p) {
  int depth = 0, deepest = 0;
  SLAB_EXPECTS(p.size >= 1 && p.size <= kMaxElemInstrs && p.nleaves <= kMaxElemLeaves &&
                   p.ncond_leaves <= kMaxElemLeaves && p.ncast_leaves <= kMaxElemCastLeaves &&
                   p.nscalars <= kMaxElemScalars,
               InvalidArgument, "elementwise program: bad size");
  for (int pc = 0; pc < p.size; ++pc) {
    const ElemInstr in = p.code[pc];
    int pops = 0, bad_arg = 0;
    switch (in.op) {
      case ElemOp::leaf:
        bad_arg = in.arg >= p.nleaves;
        break;
      case ElemOp::cond_leaf:
        bad_arg = in.arg >= p.ncond_leaves;
        break;
      case ElemOp::cast_leaf:
        bad_arg = in.arg >= p.ncast_leaves ||
                  static_cast<int>(p.cast_leaves[in.arg].source) > static_cast<int>(ElemSource::int32);
        break;
      case ElemOp::scalar:
        bad_arg = in.arg >= p.nscalars;
        break;
      case ElemOp::neg:
      case ElemOp::exp:
      case ElemOp::log:
      case ElemOp::sqrt:
      case ElemOp::abs:
      case ElemOp::sin:
      case ElemOp::cos:
        pops = 1;
        break;
      case ElemOp::where:
        pops = 3;
        break;
      case ElemOp::div:
        SLAB_EXPECTS(!std::is_integral_v<T>, InvalidArgument,
                     "elementwise program: div of int64 is true division (a float64 program); use floordiv");
        pops = 2;
        break;
      default:
        pops = 2;
        break;
    }
    SLAB_EXPECTS(!bad_arg, InvalidArgument, "elementwise program: operand " + std::to_string(in.arg) + " out of range");
    SLAB_EXPECTS(depth >= pops, InvalidArgument,
                 "elementwise program: stack underflow at instruction " + std::to_string(pc));
    depth += 1 - pops;
    deepest = depth > deepest ? depth : deepest;
  }
  SLAB_EXPECTS(depth == 1 && deepest <= kMaxElemStack, InvalidArgument,
               "elementwise program: it leaves " + std::to_string(depth) + " values or needs more than " +
                   std::to_string(kMaxElemStack) + " registers");
}

}  // namespace detail

template <class B, class T>
void ElementwiseKernels<B, T>::run(const Exec& exec, const ElemProgram<T>& program, std::int64_t rows,
                                   std::int64_t cols, void* out, bool out_int64) {
  detail::check_program(program);
  if (rows <= 0 || cols <= 0) return;
  B b(exec);
  Scratch<ElemProgram<T>, B> on_backend(b, 1);
  b.to_backend(on_backend.get(), &program, sizeof(ElemProgram<T>));
  thrust::counting_iterator<std::int64_t> k(0);
  thrust::for_each(b.policy(), k, k + rows * cols, detail::ElemRun<T>{on_backend.get(), cols, out, out_int64});
}

}  // namespace slab::kernels
