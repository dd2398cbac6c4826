#pragma once
/// @file elementwise.hpp
/// @brief Fused elementwise expressions on the device: the expression tree of src/array/expr.hpp compiled to a
/// small postfix program (operand pushes of leaves and scalars, then operations on a stack of registers) that
/// one kernel interprets per element of a chunk, so `(a * 2.0 + b).exp()` is one pass however deep the tree.
/// Entry points of elementwise.inl; T = float, double, std::int64_t or std::int32_t.
///
/// Leaves are strided views of the operands as the target chunk sees them: element (i, j) of leaf l is
/// data[i * row_stride + j * col_stride], so broadcasting a row vector is row_stride = 0 and a column vector
/// col_stride = 0 (the host's Leaf with bcast_rows / bcast_cols), and an offset slice is a moved data pointer.
/// Each operation is the host functor's expression (array.cpp: divide, power, vmin, vmax, floor_divide_value,
/// mod_value, ...): +, -, *, / (floating T only: int64 / int64 is true division, a float64 program, as on the
/// host), floordiv, mod, min, max, neg, abs, sqrt, the comparisons and where are bitwise the host's; exp, log, sin, cos
/// and pow call the platform's libm (the reference: glibc, as the host; the device: CUDA's, within its documented
/// ulps).

#include <cstdint>

#include "core/kernels/exec.hpp"

namespace slab::kernels {

enum class ElemOp : std::uint8_t {
  leaf,       ///< push leaves[arg] at the element
  cond_leaf,  ///< push int64 leaf cond_leaves[arg] (a where() condition; non-zero = true) as T 0/1
  cast_leaf,  ///< push cast_leaves[arg] at the element, converted to T by cast_hd.hpp's cast_value (astype)
  scalar,     ///< push scalars[arg]
  neg,
  exp,
  log,
  sqrt,
  abs,
  sin,
  cos,  // pop x, push f(x)
  add,
  sub,
  mul,
  div,
  pow,
  min,
  max,
  floordiv,  ///< NumPy's floor_divide (core/floor_divide.hpp), in T
  mod,       // NumPy's remainder, in T; binaries pop y, pop x, push f(x, y)
  eq,
  ne,
  lt,
  le,
  gt,
  ge,     // pop y, pop x, push T(x op y) (0 or 1)
  where,  // pop b, pop a, pop c, push c != 0 ? a : b
};

struct ElemInstr {
  ElemOp op = ElemOp::scalar;
  std::uint8_t arg = 0;
};

template <class T>
struct ElemLeaf {
  const T* data = nullptr;
  std::int64_t row_stride = 0, col_stride = 1;
};

/// The element type of a cast leaf's operand.
enum class ElemSource : std::uint8_t { float64, float32, int64, int32 };

/// A leaf of another element type, read as T (astype, and integer true division in float64).
struct ElemCastLeaf {
  const void* data = nullptr;
  std::int64_t row_stride = 0, col_stride = 1;
  ElemSource source = ElemSource::float64;
};

inline constexpr int kMaxElemInstrs = 32;
inline constexpr int kMaxElemLeaves = 8;
inline constexpr int kMaxElemCastLeaves = 4;
inline constexpr int kMaxElemScalars = 8;
inline constexpr int kMaxElemStack = 12;

/// A compiled expression: passed by value to the kernel (a few hundred bytes of kernel parameters).
template <class T>
struct ElemProgram {
  ElemInstr code[kMaxElemInstrs];
  int size = 0;
  ElemLeaf<T> leaves[kMaxElemLeaves];
  int nleaves = 0;
  ElemLeaf<std::int64_t> cond_leaves[kMaxElemLeaves];
  int ncond_leaves = 0;
  ElemCastLeaf cast_leaves[kMaxElemCastLeaves];
  int ncast_leaves = 0;
  T scalars[kMaxElemScalars] = {};
  int nscalars = 0;
};

template <class B, class T>
struct ElementwiseKernels {
  /**
   * @brief out[i * cols + j] = the program at element (i, j), for a rows x cols chunk. `out_int64`: write the
   * result as std::int64_t (a comparison at the root: Array<int64_t> 0/1) into out instead of T.
   * @throws InvalidArgument for a malformed program (stack under/overflow, bad operand index), checked on the host
   * before any kernel runs. Asynchronous.
   */
  static void run(const Exec& exec, const ElemProgram<T>& program, std::int64_t rows, std::int64_t cols, void* out,
                  bool out_int64 = false);
};

}  // namespace slab::kernels
