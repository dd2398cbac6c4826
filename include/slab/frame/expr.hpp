#pragma once
/// @file expr.hpp
/// @brief A small column expression type: col("x") > 0.5 & col("name") == "Alice", col("x") * 2 + col("y").
/// Evaluated per partition, the whole tree in one task (fused). Nothing here is collective.
///
/// Types: int64 op int64 -> int64 (+, -, *, //, %), '/' -> float64, any float64 -> float64; timestamps compare with
/// timestamps and int64; comparisons, &, |, ~, isnull, notnull, isin -> boolean. Strings compare (==, !=, <,
/// ...) with string literals (by the sorted dictionary) or with string columns of the same dictionary.
/// Nulls: arithmetic with a null is null; a comparison with a null is false (except != which is true),
/// like pandas with NaN; & and | treat null as false.
/// Division as pandas: '/' is true division (float64, x / 0 is +-inf, 0 / 0 NaN); floordiv ('//') floors
/// toward -inf and mod ('%') has the divisor's sign (-7 // 2 == -4, -7 % 2 == 1; NumPy's floor_divide and
/// remainder, also for floats: x // 0.0 is +-inf, x % 0.0 NaN). Integer floordiv and mod by zero give 0, as
/// pandas' nullable Int64 does (slab's int64 columns, with their nulls, are that type) and NumPy; pandas'
/// NumPy-backed int64 would turn the column into float64 holding +-inf / NaN there.

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "slab/frame/batch.hpp"
#include "slab/frame/schema.hpp"

namespace slab::frame {

/// A literal value.
using Scalar = std::variant<std::monostate, std::int64_t, double, bool, std::string>;

enum class ExprOp : std::uint8_t {
  column,
  literal,
  add,
  sub,
  mul,
  div,
  eq,
  ne,
  lt,
  le,
  gt,
  ge,
  logical_and,
  logical_or,
  logical_not,
  neg,
  abs,
  isnull,
  notnull,
  isin,
  floordiv,
  mod
};

struct ExprNode;

class Expr {
 public:
  Expr() = default;
  explicit Expr(std::shared_ptr<const ExprNode> node) : node_(std::move(node)) {}
  Expr(double v);        // NOLINT(google-explicit-constructor)
  Expr(std::int64_t v);  // NOLINT
  Expr(int v);           // NOLINT
  Expr(bool v);          // NOLINT
  Expr(const char* v);   // NOLINT
  Expr(std::string v);   // NOLINT

  [[nodiscard]] const ExprNode& node() const { return *node_; }
  [[nodiscard]] bool valid() const noexcept { return node_ != nullptr; }
  [[nodiscard]] Expr isnull() const;
  [[nodiscard]] Expr notnull() const;
  [[nodiscard]] Expr abs() const;
  [[nodiscard]] Expr isin(std::vector<Scalar> values) const;
  /// pandas' Series.floordiv (`a // b`) and Series.mod (`a % b`); see the file comment.
  [[nodiscard]] Expr floordiv(const Expr& divisor) const;
  [[nodiscard]] Expr mod(const Expr& divisor) const;
  /// The result type over `schema`. @throws InvalidArgument for unknown columns, TypeError for bad operands.
  [[nodiscard]] ElementType type(const Schema& schema) const;
  /// Column names used.
  [[nodiscard]] std::vector<std::string> columns() const;
  /// "(x > 0.5)" etc.
  [[nodiscard]] std::string to_string() const;

 private:
  std::shared_ptr<const ExprNode> node_;
};

struct ExprNode {
  ExprOp op = ExprOp::literal;
  std::string column;          ///< for column
  Scalar value;                ///< for literal
  std::vector<Scalar> values;  ///< for isin
  std::vector<Expr> args;
};

[[nodiscard]] Expr col(std::string name);
[[nodiscard]] Expr lit(Scalar value);

Expr operator+(const Expr& a, const Expr& b);
Expr operator-(const Expr& a, const Expr& b);
Expr operator*(const Expr& a, const Expr& b);
Expr operator/(const Expr& a, const Expr& b);
/// a % b: the remainder with the divisor's sign (Python's and pandas' %); a.mod(b).
Expr operator%(const Expr& a, const Expr& b);
/// a // b (C++ has no // operator): the quotient floored toward -inf; a.floordiv(b).
[[nodiscard]] Expr floordiv(const Expr& a, const Expr& b);
Expr operator-(const Expr& a);
Expr operator==(const Expr& a, const Expr& b);
Expr operator!=(const Expr& a, const Expr& b);
Expr operator<(const Expr& a, const Expr& b);
Expr operator<=(const Expr& a, const Expr& b);
Expr operator>(const Expr& a, const Expr& b);
Expr operator>=(const Expr& a, const Expr& b);
Expr operator&(const Expr& a, const Expr& b);
Expr operator|(const Expr& a, const Expr& b);
Expr operator~(const Expr& a);

/// An evaluated column: values in the vector of its type (ints for int64/timestamp, floats, bools (0/1),
/// codes for string), valid empty = all valid.
struct EvalColumn {
  ElementType type = ElementType::float64;
  std::vector<std::int64_t> ints;
  std::vector<double> floats;
  std::vector<std::uint8_t> bools;
  std::vector<std::int32_t> codes;
  std::vector<std::uint8_t> valid;
  Dictionary dictionary;  ///< for string results (a column reference)
};

/// Evaluate `expr` over one batch.
[[nodiscard]] EvalColumn evaluate(const Expr& expr, const BatchView& batch, const Schema& schema);

}  // namespace slab::frame
