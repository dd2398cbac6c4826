#pragma once
/// @file expr.hpp
/// @brief A small column expression type: col("x") > 0.5 & col("name") == "Alice", col("x") * 2 + col("y").
/// Evaluated per partition, the whole tree in one task (fused). Nothing here is collective.
///
/// Types: int64 op int64 -> int64 (+, -, *, //, %), '/' -> float64, any float64 -> float64; timestamps compare with
/// timestamps and int64; comparisons, &, |, ~, isnull, notnull, isin -> boolean. Strings compare (==, !=, <,
/// ...) with string literals (by the sorted dictionary) or with string columns of the same dictionary. A string
/// literal compared with a timestamp is parsed as a timestamp (col("ts") >= "2024-03-11", as pandas does); one
/// that does not parse is an InvalidArgument naming it. Functions: log, exp, sqrt, round, clip, where (NumPy's
/// results: log(-1) is NaN, round halves to even, clip keeps NaN), str.contains, str.lower, str.len.
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
  mod,
  log,
  exp,
  sqrt,
  round,
  clip,
  where,
  str_contains,
  str_lower,
  str_len
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
  /// NumPy's log, exp and sqrt of a number (float64; log of a negative number and sqrt of one are NaN, log(0) is
  /// -inf); null stays null.
  [[nodiscard]] Expr log() const;
  [[nodiscard]] Expr exp() const;
  [[nodiscard]] Expr sqrt() const;
  /// numpy.round / pandas' Series.round: to `decimals` digits (negative: tens, hundreds...), halves to even
  /// (rint(x * 10^d) / 10^d, as NumPy computes it: round(2.675, 2) is 2.68 in both, 2.675 * 100 being 267.5). int64
  /// stays int64.
  [[nodiscard]] Expr round(std::int64_t decimals = 0) const;
  /// pandas' Series.clip(lower, upper): bounds are expressions (literals or columns); a null bound is no bound;
  /// NaN and null stay as they are. float64 if any operand is, else int64.
  [[nodiscard]] Expr clip(const Expr& lower, const Expr& upper) const;
  /// pandas' Series.str.contains(pattern, regex=regex): a boolean, null where the string is null (a filter drops
  /// those rows). `regex` uses std::regex's ECMAScript grammar (Python's `re` for the common patterns).
  /// @throws InvalidArgument (when evaluated) naming the pattern when it is not a valid regular expression.
  [[nodiscard]] Expr contains(std::string pattern, bool regex = true) const;
  /// pandas' Series.str.lower of a string column (code point by code point, by the C.UTF-8 locale's towlower;
  /// ASCII only where that locale is missing); null stays null.
  [[nodiscard]] Expr lower() const;
  /// pandas' Series.str.len: code points of the UTF-8 string, int64; null stays null.
  [[nodiscard]] Expr len() const;
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
/// Free-function forms: log(x) == x.log() and so on.
[[nodiscard]] Expr log(const Expr& x);
[[nodiscard]] Expr exp(const Expr& x);
[[nodiscard]] Expr sqrt(const Expr& x);
[[nodiscard]] Expr round(const Expr& x, std::int64_t decimals = 0);
[[nodiscard]] Expr clip(const Expr& x, const Expr& lower, const Expr& upper);
/// numpy.where(cond, a, b): a where cond holds, else b (a null cond picks b). a and b: numbers (float64 if either
/// is, else int64), booleans, or timestamps; the picked side's null stays null.
[[nodiscard]] Expr where(const Expr& cond, const Expr& a, const Expr& b);
/// The dictionary of a string-valued expression over `schema` (a column's, or str.lower()'s of it). Not collective.
/// @throws TypeError when `expr` is not string-valued.
[[nodiscard]] Dictionary string_dictionary(const Expr& expr, const Schema& schema);

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
