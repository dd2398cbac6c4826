#pragma once
/// @file ops.hpp
/// @brief Frame operations. "Lazy" ones only add tasks (not collective unless stated); the others run the
/// graph and are collective (every rank calls them in the same order).

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "slab/frame/expr.hpp"
#include "slab/frame/frame.hpp"

namespace slab::frame {

/// The named columns, in that order. Lazy. @throws InvalidArgument for unknown names.
[[nodiscard]] Frame select(const Frame& frame, const std::vector<std::string>& columns);
/// Rows where `predicate` (boolean; null = false) holds; the whole expression fused in one task per partition. Lazy.
[[nodiscard]] Frame filter(const Frame& frame, const Expr& predicate);
/// Add (or replace) column `name` computed from `value` (fused, one task per partition). Lazy.
[[nodiscard]] Frame assign(const Frame& frame, const std::string& name, const Expr& value);
/// Convert `column` to `to` (int64 <-> float64 <-> boolean <-> timestamp; float->int truncates, NaN -> null). Lazy.
[[nodiscard]] Frame astype(const Frame& frame, const std::string& column, ElementType to);
/// Replace nulls (and NaN) of `columns` (empty = every column whose type fits `value`) by `value`. Lazy. A float
/// fits int64 and timestamp columns only when it is an integer (2.0 fills as 2; 2.5 fits float64 columns only),
/// as pandas refuses 2.5 for an Int64 column. @throws TypeError naming the column when a named one does not fit.
[[nodiscard]] Frame fillna(const Frame& frame, const Scalar& value, const std::vector<std::string>& columns = {});
/// Drop rows with a null (or NaN) in any of `subset` (empty = all columns). Lazy.
[[nodiscard]] Frame dropna(const Frame& frame, const std::vector<std::string>& subset = {});
/// Boolean frame-wise helpers: isnull/notnull of one column as an expression: col(c).isnull().

/// Column dtypes, in order. Not collective.
[[nodiscard]] std::vector<std::pair<std::string, ElementType>> dtypes(const Frame& frame);

/// The first / last n rows, on every rank (index = global row numbers). As in pandas, a negative n means all
/// rows but the last |n| (head) or the first |n| (tail): head(f, -2) of 5 rows is rows 0-2. Collective.
[[nodiscard]] LocalTable head(const Frame& frame, std::int64_t n = 5);
[[nodiscard]] LocalTable tail(const Frame& frame, std::int64_t n = 5);

/**
 * @brief pandas describe() of the numeric (int64, float64) columns: rows count, mean, std (ddof=1), min,
 * 25%, 50%, 75%, max (exact quantiles with linear interpolation, quantile.hpp: the distributed sort, so no rank
 * holds a whole column and columns larger than memory work). Nulls and NaN skipped. Result replicated. Collective.
 */
[[nodiscard]] LocalTable describe(const Frame& frame);

/// Distinct values of `column` (nulls dropped) per distinct value, sorted by count descending then value;
/// columns [column, "count"]. Via a hash shuffle. Replicated. Collective.
[[nodiscard]] LocalTable value_counts(const Frame& frame, const std::string& column);
/// Distinct values of `column` (null included once if present), sorted. Replicated. Collective.
[[nodiscard]] LocalTable unique(const Frame& frame, const std::string& column);
/// Number of distinct non-null values. Collective.
[[nodiscard]] std::int64_t nunique(const Frame& frame, const std::string& column);
/// Rows with distinct `subset` keys (empty = all columns), the first occurrence in each shuffle partition
/// (global order is not kept: the result is hash partitioned). Lazy but collective (a shuffle).
[[nodiscard]] Frame drop_duplicates(const Frame& frame, const std::vector<std::string>& subset = {});

/// Running sum of `columns` (empty = every int64/float64 column) over the global row order, nulls skipped
/// (stay null). Partition sums, then a collective task exchanging per-rank totals (an exclusive scan), then
/// one task per partition. Lazy but collective (every rank must call it in the same order).
[[nodiscard]] Frame cumsum(const Frame& frame, const std::vector<std::string>& columns = {});
/// Shift `columns` (empty = all) by `periods` rows over the global order (rows from neighbouring partitions
/// and ranks, any number of rows per rank including none); vacated rows are null. Lazy but collective.
[[nodiscard]] Frame shift(const Frame& frame, std::int64_t periods = 1, const std::vector<std::string>& columns = {});
/// x - shift(x, periods) for numeric `columns` (empty = every int64/float64 column); others kept. Lazy but collective.
[[nodiscard]] Frame diff(const Frame& frame, std::int64_t periods = 1, const std::vector<std::string>& columns = {});

}  // namespace slab::frame
