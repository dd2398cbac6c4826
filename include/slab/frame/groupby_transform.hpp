#pragma once
/// @file groupby_transform.hpp
/// @brief Per-group operations that keep the input's rows, as pandas' groupby(...).cumsum() / cumcount() /
/// shift(n) / diff(n) / ffill() / bfill() / transform(op) / rolling(n).<op>(): one result per input row, in the
/// input's global row order and partition layout, computed within each group in the frame's global row order.
///
/// How: every row is tagged with its global row number; (key words, row number, value) go through
/// shuffle_routed to the bucket of the key's hash (the frame layer's one hash partitioner), so a group meets in
/// one partition; each shuffled partition is sorted by (key, row number) and scanned group by group; the
/// (row number, result) pairs go back through shuffle_routed to the partition that owns the row, which scatters
/// them into place. So nothing is gathered, every step holds about one partition, and out of core the first
/// exchange uses as many partitions as keep one under the memory budget (choose_nparts). A partition holds
/// whole groups, so a single group larger than memory fails with OutOfMemory.
///
/// Nulls follow pandas: null values are skipped by the scans and aggregates (the result is null at a null
/// value for cumsum/cumprod/cummin/cummax); rows whose key is null get a null result (NaN for float64 results,
/// a null elsewhere) unless dropna = false makes the null key a group. Where pandas turns an int64 result into
/// float64 only to hold NaN for null-key rows, slab keeps the type of the no-null-key case and marks those rows
/// null (its int64 columns are nullable): dtypes do not depend on the data.

#include <cstdint>
#include <string>
#include <vector>

#include "slab/frame/frame.hpp"
#include "slab/frame/groupby.hpp"
#include "slab/frame/rolling.hpp"
#include "slab/frame/series.hpp"

namespace slab::frame {

/// The row-preserving operations.
enum class GroupScan : std::uint8_t {
  cumsum,
  cumprod,
  cummin,
  cummax,
  cumcount,
  shift,
  diff,
  ffill,
  bfill,
  transform,
  rolling
};

/// "cumsum", "cumprod", ... (pandas' names). Not collective.
[[nodiscard]] const char* to_string(GroupScan op) noexcept;

/// One row-preserving operation and its arguments.
struct GroupTransform {
  GroupScan op = GroupScan::cumsum;
  std::string column;        ///< the value column (unused by cumcount and transform "size")
  std::int64_t periods = 1;  ///< shift, diff: rows back (< 0: forward)
  bool ascending = true;     ///< cumcount: 0 up (true) or n - 1 down (false)
  AggOp agg = AggOp::sum;    ///< transform: the aggregate broadcast to the group's rows
  double q = 0.5;            ///< transform with AggOp::quantile
  RollingWindow window{};    ///< rolling: a row window (rows >= 1, min_periods as rolling.hpp)
  RollingOp rolling_op = RollingOp::mean;
  bool rolling_var = false;  ///< rolling: the variance (the square of rolling_op std)
};

/**
 * @brief The per-group operation `what` over `frame` grouped by `keys`: a Series of one column with frame's
 * partition layout (partition k of the result holds the rows of partition k), row i next to row i.
 *
 * Result columns and types (named "<column>_<op>": "x_cumsum", "x_shift", "x_mean" for transform and rolling
 * means, "x_q0.9", "cumcount", "size"):
 * - cumsum, cumprod: int64 and boolean give int64 (wrapping modulo 2^64 as NumPy), float64 float64 (a
 *   Kahan-compensated running sum, as pandas); null (NaN) at null values.
 * - cummin, cummax: the column's type (int64, float64, boolean, timestamp); null at null values.
 * - cumcount: int64, 0-based in row order (ascending = false: counts down to 0).
 * - shift: float64 for int64 and float64 (NaN where there is no row `periods` back in the group); boolean,
 *   timestamp and string keep their type with nulls there.
 * - diff: float64 (int64, float64, boolean): x - x `periods` rows back in the group.
 * - ffill, bfill: the column's type, nulls replaced by the previous / next non-null value of the group.
 * - transform: frame::groupby's type for the op (sum of int64: int64; mean, std, var, median, quantile:
 *   float64; count, size, nunique: int64; min, max, first, last: the column's type), the same value on every
 *   row of the group; sums and means Kahan-compensated, std/var Welford with ddof=1, as pandas.
 * - rolling: float64 (int64, float64, boolean columns), each group's own rows only in each window, with
 *   rolling_kernel_rows' numerics.
 *
 * Eager and collective: every rank calls it in the same order. It persists `frame` (learning its partition row
 * counts), runs both shuffles and the per-group tasks, and returns with the result's partitions computed (and
 * spillable), so that a failure is reported here, on every rank together, naming the operation.
 * @throws InvalidArgument (every rank) for no keys, a key given twice, an unknown key or value column, a
 * transform of a quantile q outside [0, 1], or a rolling window that is not a row window >= 1;
 * TypeError (every rank) for a value column type the operation does not take (cumsum/cumprod/diff/rolling/
 * transform sum/mean/std/var/median/quantile of a string or timestamp column, cummin/cummax of a string);
 * OutOfMemory (every rank) naming the operation when a partition of whole groups cannot be held in memory.
 */
[[nodiscard]] Series group_transform(const Frame& frame, const std::vector<std::string>& keys,
                                     const GroupTransform& what, const GroupbyOptions& options = {});

}  // namespace slab::frame
