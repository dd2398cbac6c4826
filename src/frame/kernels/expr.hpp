#pragma once
/// @file expr.hpp
/// @brief Frame expressions (slab/frame/expr.hpp) on the device: the expression tree compiled on the host
/// (frame/expr_program.hpp) into a short list of steps, one per tree node in post order, that one kernel
/// interprets per row. Each step leaves a value (64 bits: an int64, a double, a boolean 0/1 or a string code)
/// and a validity bit (the host EvalColumn's mask at that row, 1 where it has none); nulls are what the host's
/// null_at says (an invalid row, a NaN float, a negative string code). Every step is the host evaluation's
/// expression (expr.cpp's eval), so results are bitwise the host's; log, exp and sqrt call the platform's libm
/// (the reference: glibc, as the host; the device: CUDA's, within its documented ulps). Entry points of
/// expr.inl.

#include <cstdint>

#include "core/kernels/exec.hpp"
#include "frame/kernels/columns.hpp"

namespace slab::frame::kernels {

using slab::kernels::Exec;

/// Steps and column operands per program (a larger tree runs on the host, recorded as a fallback).
inline constexpr int kMaxExprSteps = 48;
inline constexpr int kMaxExprColumns = 16;

/// What a step's value is.
enum class ExprKind : std::uint8_t { int64, float64, boolean, code };

enum class ExprStepOp : std::uint8_t {
  column,         ///< columns[index] at the row (its mask gives the validity)
  literal,        ///< bits
  compare,        ///< a op b (op: 0 ==, 1 !=, 2 <, 3 <=, 4 >, 5 >=); mode 0 codes, 1 int64, 2 double
  compare_codes,  ///< code a op a string literal: lo, hi = its lower and upper bound in the dictionary
  arith,          ///< a op b (op: 0 +, 1 -, 2 *, 3 /, 4 //, 5 %), in the step's kind
  neg,
  abs,
  math,  ///< op: 0 log, 1 exp, 2 sqrt of a as a double (null: NaN)
  round,
  clip,        ///< a clipped to [b, c] (a null bound does not clip)
  where,       ///< b where a else c
  code_table,  ///< tables[index + code of a] (str.contains, str.len, str.lower); a null code: -1, or lo with mode 1
  isnull,
  notnull,
  logical_and,
  logical_or,
  logical_not,
  isin_codes,   ///< a's code among tables[index, index + count) (sorted)
  isin_values,  ///< a as a double among the doubles' bits at tables[index, index + count) (sorted, no NaN)
  cast,         ///< astype: a in the step's kind (float64, boolean != 0, int64 truncated with NaN invalid)
};

struct ExprStep {
  ExprStepOp op = ExprStepOp::literal;
  ExprKind kind = ExprKind::float64;
  std::uint8_t sub = 0;  ///< compare / arith / math op, compare mode
  std::uint8_t mode = 0;
  std::int16_t a = -1, b = -1, c = -1;  ///< operand steps
  std::uint64_t bits = 0;               ///< literal value; column / table index
  std::int64_t lo = 0, hi = 0;          ///< compare_codes bounds; round decimals (lo); table count (hi)
  double scale = 1;                     ///< round: 10^|decimals|
};

struct ExprProgram {
  ExprStep steps[kMaxExprSteps];
  int nsteps = 0;
  ColumnView columns[kMaxExprColumns];
  int ncolumns = 0;
  const std::uint64_t* tables = nullptr;  ///< backend memory
};

template <class B>
struct ExprKernels {
  /**
   * @brief The program's last step for n rows: out[i] in the batch layout of `out_type` (8-byte values, a
   * boolean byte, an int32 string code) and valid[i] its validity bit. Returns the number of rows whose bit is
   * 0 (synchronises).
   */
  static std::int64_t evaluate(const Exec& exec, const ExprProgram& program, std::int64_t n, ElementType out_type,
                               void* out, std::uint8_t* valid);
};

}  // namespace slab::frame::kernels
