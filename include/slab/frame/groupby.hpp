#pragma once
/// @file groupby.hpp
/// @brief Distributed groupby-aggregate, Cylon style: local hash pre-aggregation into partial states per
/// rank (sum, count, Welford mean/M2, min, max, first/last with their row order, distinct values for
/// nunique), one all-to-all of the PARTIAL states (never rows) routed by key, then a final combine (Chan's
/// formula for M2). A key holding half of all rows therefore sends one partial record per rank, not half of
/// the data: the shuffle is bounded by the number of distinct (rank, group) pairs.
///
/// Ordering: with sort = true the groups are range-partitioned by key (splitters from a sample of every
/// rank's pre-aggregated keys) and sorted on each rank, so the result is globally sorted in rank order
/// (pandas' order: strings by value, nulls last). With sort = false groups are hash-routed and the order is
/// unspecified (pandas gives first-appearance order).
///
/// Out of core: a rank's partial state that grows past 1/8 of the memory limit (many distinct keys) is
/// written out as a spillable chunk of partial records and started afresh. If any rank wrote one, the
/// records go through the streaming shuffle (shuffle_routed: range-routed by sampled splitters when sorted,
/// hashed otherwise) and each shuffled partition is combined on its own into one result partition, so no
/// step holds more than about one partition. Aggregations with nunique keep their distinct sets in memory.
///
/// median and quantile are holistic (no partial state can be merged): every non-null value travels, as
/// (key words, value) rows routed by the same partitioner as the partial records, so each group's values meet
/// its records in the same result partition; there they are sorted per group. Out of core the values stream
/// through shuffle_routed in partitions sized to the memory budget; a partition (so a single group) whose
/// values do not fit in memory fails with OutOfMemory.
///
/// Per-group operations that keep the input's rows (cumsum, shift, diff, transform, rolling, ...) are in
/// groupby_transform.hpp; GroupBy below exposes them with pandas' names.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "slab/frame/frame.hpp"
#include "slab/frame/rolling.hpp"
#include "slab/frame/series.hpp"

namespace slab::frame {

/// An aggregation. size counts rows (nulls included); count counts non-null values; std/var use ddof=1;
/// first/last are the first/last non-null values in the frame's global row order; nunique ignores nulls;
/// median and quantile (holistic) interpolate linearly between the two order statistics around q * (n - 1) of
/// the group's non-null values, as pandas (median: the mean of the middle two), NaN for a group without values.
enum class AggOp : std::uint8_t { sum, mean, count, size, min, max, std, var, first, last, nunique, median, quantile };

/// "sum", "mean", ..., "median", "quantile" (pandas' names). Not collective.
[[nodiscard]] const char* to_string(AggOp op) noexcept;
/// The AggOp named `name`: pandas' names, and for quantile "quantile" (q = 0.5, pandas' default), "q0.9" or
/// "quantile(0.9)" (any q in [0, 1]). Not collective.
/// @throws InvalidArgument for an unknown name or a q outside [0, 1], naming the text.
[[nodiscard]] AggOp parse_agg_op(std::string_view name);
/// As above, and the quantile's q in `q` (0.5 for "quantile"; left alone for other ops). Not collective.
[[nodiscard]] AggOp parse_agg_op(std::string_view name, double& q);
/// The result column of `op` of `column`: "<column>_<op>" ("x_mean", "x_median"), "size" for size, and
/// "<column>_q<q>" for quantile with q written shortest ("x_q0.9", "x_q0.5"). Not collective.
[[nodiscard]] std::string agg_column_name(const std::string& column, AggOp op, double q = 0.5);

/// The aggregations of one value column, e.g. {"x", {AggOp::mean, AggOp::sum}} or, with quantiles,
/// {"x", {AggOp::median, AggOp::quantile, AggOp::quantile}, {0.1, 0.9}}.
struct Aggregation {
  std::string column;
  std::vector<AggOp> ops;
  /// The q of each AggOp::quantile in `ops`, in order (missing ones are 0.5, pandas' default).
  std::vector<double> quantiles = {};
};

/// Per-rank counters of the last groupby (for tests and tuning).
struct GroupbyStats {
  std::int64_t rows_in = 0;           ///< input rows on this rank
  std::int64_t local_groups = 0;      ///< groups after local pre-aggregation
  std::int64_t records_sent = 0;      ///< partial-state records this rank sent (to all ranks)
  std::int64_t records_received = 0;  ///< partial-state records this rank received
  std::int64_t groups_out = 0;        ///< groups this rank holds in the result (0 when written out)
  std::int64_t records_written = 0;   ///< partial records written out as spillable chunks (out of core)
};

struct GroupbyOptions {
  bool sort = true;               ///< result sorted by key (globally, in rank order); false: unspecified order
  bool dropna = true;             ///< drop rows whose key has a null (NaN, masked, string code -1), like pandas
  GroupbyStats* stats = nullptr;  ///< filled on this rank when set
};

/**
 * @brief df.groupby(keys).agg({column: ops, ...}) with the keys as columns (as_index=False).
 *
 * Result columns: the key columns (their types; strings keep the input dictionary), then one column per
 * (column, op) in the order given, named "<column>_<op>" (op "size" is named "size"). Types: count, size,
 * nunique int64; mean, std, var float64; sum float64 for float64 values and int64 for int64/bool (an int64 sum
 * wraps modulo 2^64 on overflow, as pandas and NumPy do, but an int64 mean is the values' mean: exact but for
 * its rounding where the values span less than 2^64 / count, else Welford's, within rounding); min, max,
 * first, last keep the value type (all-null groups give NaN for float64, a null elsewhere); median and
 * quantile float64 (of int64, float64 or boolean values; NaN for a group without values). Quantile columns are
 * named "<column>_q<q>" (agg_column_name). Float keys group by value (-0.0 == 0.0; NaN is null: dropped, or one
 * group with dropna = false).
 *
 * Eager and collective: runs the input's partition tasks (one at a time, folding each into this rank's
 * partial state), exchanges, and returns a frame with one partition per rank holding that rank's groups
 * (out of core: several partitions per rank, produced lazily, one combine task each; with median or quantile
 * computed before returning, spillable).
 * @throws InvalidArgument (every rank) for unknown columns, no keys, a key also aggregated, an empty op
 * list or a quantile's q outside [0, 1]; TypeError (every rank) for sum/mean/std/var/median/quantile of a
 * string or timestamp column. OutOfMemory (every rank) when one partition of median/quantile values, so at
 * least one group's values, cannot be held in memory.
 */
[[nodiscard]] Frame groupby(const Frame& frame, const std::vector<std::string>& keys,
                            const std::vector<Aggregation>& aggregations, const GroupbyOptions& options = {});

// ---- The pandas-style spelling: df.groupby({"id", "name"}).agg({{"x", {"mean", "sum"}}, {"y", {"min"}}}).

/// One column's aggregations by pandas' names ("sum", "mean", "count", "size", "min", "max", "std", "var",
/// "first", "last", "nunique", "median", and quantiles as "quantile" (q = 0.5), "q0.9" or "quantile(0.9)"):
/// {"x", {"median", "mean", "q0.9"}} gives "x_median", "x_mean", "x_q0.9".
struct AggSpec {
  std::string column;
  std::vector<std::string> ops;
};

/// A named output, pandas' agg(total=("x", "sum")): build it with named_agg("total", "x", "sum") or write
/// {"total", "x", "sum"} (three strings, so it never reads as an AggSpec's two parts).
struct NamedAgg {
  NamedAgg(std::string name, std::string column, std::string op)
      : name(std::move(name)), column(std::move(column)), op(std::move(op)) {}
  std::string name;    ///< the output column's name
  std::string column;  ///< the input column
  std::string op;      ///< pandas' name of the aggregation
};
/// NamedAgg{name, column, op}: agg({named_agg("total", "x", "sum"), named_agg("n", "x", "count")}). Not collective.
[[nodiscard]] inline NamedAgg named_agg(std::string name, std::string column, std::string op) {
  return {std::move(name), std::move(column), std::move(op)};
}

class GroupRolling;
class SeriesGroupBy;

/**
 * @brief What df.groupby(keys) returns: keys and options; every aggregation runs frame::groupby (eager and
 * collective) and returns a frame with the keys as columns (as_index=False), sorted by key by default.
 * Output names: "<column>_<op>" (op "size": "size") as frame::groupby names them, or the names of NamedAggs.
 *
 * The per-group operations that keep the rows (cumsum, cumcount, shift, diff, ffill, bfill, transform,
 * rolling) run frame::group_transform (groupby_transform.hpp): each returns a Series aligned with the input's
 * rows and partitions, so df.assign("x_cum", gb.cumsum("x")) attaches it without moving rows. Rows whose key
 * is null get a null (NaN for float64 results) unless dropna(false). Eager and collective.
 */
class GroupBy {
 public:
  GroupBy(Frame frame, std::vector<std::string> keys, GroupbyOptions options = {})
      : frame_(std::move(frame)), keys_(std::move(keys)), options_(options) {}

  [[nodiscard]] const Frame& frame() const noexcept { return frame_; }
  [[nodiscard]] const std::vector<std::string>& keys() const noexcept { return keys_; }
  [[nodiscard]] const GroupbyOptions& options() const noexcept { return options_; }
  /// sort=false / dropna=false as pandas' groupby(..., sort=False, dropna=False). Not collective.
  GroupBy& sort(bool on) {
    options_.sort = on;
    return *this;
  }
  GroupBy& dropna(bool on) {
    options_.dropna = on;
    return *this;
  }

  /// agg({{"x", {"mean", "sum"}}, {"y", {"min", "max"}}}): the keys, then "<column>_<op>" in the order given.
  /// Collective. @throws InvalidArgument (every rank) for an unknown op name, or as frame::groupby.
  [[nodiscard]] Frame agg(const std::vector<AggSpec>& aggregations) const;
  /// agg({named_agg("total", "x", "sum"), ...}): the keys, then one column per NamedAgg, named by it, in
  /// order (the same (column, op) may appear under several names). Collective.
  /// @throws InvalidArgument (every rank) for an unknown op, duplicate output names, or as frame::groupby.
  [[nodiscard]] Frame agg(const std::vector<NamedAgg>& aggregations) const;
  /// The keys and "size" (rows per group, nulls included). Collective.
  /// @throws InvalidArgument when the frame has no column besides the keys.
  [[nodiscard]] Frame size() const;
  /// `op` of every non-key column it applies to ("<column>_<op>"): sum/mean/std/var of int64, float64 and
  /// boolean columns, min/max of those and timestamps, count/first/last/nunique of every column. Collective.
  /// @throws InvalidArgument when no column qualifies.
  [[nodiscard]] Frame sum() const { return apply_all(AggOp::sum); }
  [[nodiscard]] Frame mean() const { return apply_all(AggOp::mean); }
  [[nodiscard]] Frame std() const { return apply_all(AggOp::std); }
  [[nodiscard]] Frame var() const { return apply_all(AggOp::var); }
  [[nodiscard]] Frame min() const { return apply_all(AggOp::min); }
  [[nodiscard]] Frame max() const { return apply_all(AggOp::max); }
  [[nodiscard]] Frame count() const { return apply_all(AggOp::count); }
  [[nodiscard]] Frame first() const { return apply_all(AggOp::first); }
  [[nodiscard]] Frame last() const { return apply_all(AggOp::last); }
  [[nodiscard]] Frame nunique() const { return apply_all(AggOp::nunique); }
  /// median / quantile(q) of every int64, float64 and boolean non-key column ("<column>_median",
  /// "<column>_q<q>"). Collective. @throws InvalidArgument when no column qualifies or q is outside [0, 1].
  [[nodiscard]] Frame median() const { return apply_all(AggOp::median); }
  [[nodiscard]] Frame quantile(double q = 0.5) const;
  /// `op` of every column it applies to (see sum()). Collective.
  [[nodiscard]] Frame apply_all(AggOp op) const;

  /// df.groupby(keys)[column]: the same groups, one column selected (pandas' SeriesGroupBy). Not collective.
  /// @throws InvalidArgument (every rank) for an unknown column.
  [[nodiscard]] SeriesGroupBy operator[](const std::string& column) const;

  // ---- Per-group operations that keep the rows (groupby_transform.hpp): a Series aligned with the input.
  // Each is eager and collective (two shuffles) and throws, on every rank, InvalidArgument for unknown
  // columns and TypeError for a column type the operation does not take (see group_transform).

  /// Running sum / product / minimum / maximum within each group in row order, nulls skipped (null there).
  /// int64 and boolean give int64 (sums wrap), float64 float64; cummin/cummax also keep timestamps.
  [[nodiscard]] Series cumsum(const std::string& column) const;
  [[nodiscard]] Series cumprod(const std::string& column) const;
  [[nodiscard]] Series cummin(const std::string& column) const;
  [[nodiscard]] Series cummax(const std::string& column) const;
  /// 0, 1, 2, ... within each group in row order (ascending = false: n - 1 down to 0), int64 ("cumcount").
  [[nodiscard]] Series cumcount(bool ascending = true) const;
  /// The value `periods` rows earlier in the group (later for periods < 0), null where there is none:
  /// float64 for int64 and float64 columns (NaN, as pandas), the column's type (with nulls) otherwise.
  [[nodiscard]] Series shift(const std::string& column, std::int64_t periods = 1) const;
  /// x - shift(x, periods) within each group, float64 (int64, float64, boolean columns).
  [[nodiscard]] Series diff(const std::string& column, std::int64_t periods = 1) const;
  /// Nulls filled with the last (ffill) / next (bfill) non-null value of the group; the column's type.
  [[nodiscard]] Series ffill(const std::string& column) const;
  [[nodiscard]] Series bfill(const std::string& column) const;
  /// pandas transform(op): the group's aggregate `op` (parse_agg_op's names, median and quantiles included)
  /// on every row of the group, typed as frame::groupby types it ("x_mean", "x_q0.9", "size").
  /// @throws InvalidArgument for an unknown op.
  [[nodiscard]] Series transform(const std::string& column, const std::string& op) const;
  /// Rolling windows within each group (pandas groupby(keys)[c].rolling(n).mean(), aligned with the input
  /// rows instead of pandas' group-major index): select a column with [] and aggregate.
  /// @throws InvalidArgument when window < 1 or min_periods is outside [0, window].
  [[nodiscard]] GroupRolling rolling(std::int64_t window, std::int64_t min_periods = -1) const;

 private:
  Frame frame_;
  std::vector<std::string> keys_;
  GroupbyOptions options_;
};

/**
 * @brief What df.groupby(keys)[column] returns: the same operations with the column given once, as pandas'
 * SeriesGroupBy. Aggregations return a frame of the keys and one column (as_index=False); the row-preserving
 * operations a Series aligned with the input.
 */
class SeriesGroupBy {
 public:
  SeriesGroupBy(GroupBy groupby, std::string column) : groupby_(std::move(groupby)), column_(std::move(column)) {}
  [[nodiscard]] const std::string& column() const noexcept { return column_; }

  /// agg({"median", "q0.9", ...}): the keys, then "<column>_<op>" per op. Collective. @throws as GroupBy::agg.
  [[nodiscard]] Frame agg(const std::vector<std::string>& ops) const { return groupby_.agg({{column_, ops}}); }
  [[nodiscard]] Frame sum() const { return agg({"sum"}); }
  [[nodiscard]] Frame mean() const { return agg({"mean"}); }
  [[nodiscard]] Frame count() const { return agg({"count"}); }
  [[nodiscard]] Frame min() const { return agg({"min"}); }
  [[nodiscard]] Frame max() const { return agg({"max"}); }
  [[nodiscard]] Frame std() const { return agg({"std"}); }
  [[nodiscard]] Frame var() const { return agg({"var"}); }
  [[nodiscard]] Frame first() const { return agg({"first"}); }
  [[nodiscard]] Frame last() const { return agg({"last"}); }
  [[nodiscard]] Frame nunique() const { return agg({"nunique"}); }
  [[nodiscard]] Frame median() const { return agg({"median"}); }
  /// The keys and "<column>_q<q>". Collective. @throws InvalidArgument for q outside [0, 1].
  [[nodiscard]] Frame quantile(double q = 0.5) const;

  /// As GroupBy's row-preserving operations on this column. Eager and collective.
  [[nodiscard]] Series cumsum() const { return groupby_.cumsum(column_); }
  [[nodiscard]] Series cumprod() const { return groupby_.cumprod(column_); }
  [[nodiscard]] Series cummin() const { return groupby_.cummin(column_); }
  [[nodiscard]] Series cummax() const { return groupby_.cummax(column_); }
  [[nodiscard]] Series cumcount(bool ascending = true) const { return groupby_.cumcount(ascending); }
  [[nodiscard]] Series shift(std::int64_t periods = 1) const { return groupby_.shift(column_, periods); }
  [[nodiscard]] Series diff(std::int64_t periods = 1) const { return groupby_.diff(column_, periods); }
  [[nodiscard]] Series ffill() const { return groupby_.ffill(column_); }
  [[nodiscard]] Series bfill() const { return groupby_.bfill(column_); }
  [[nodiscard]] Series transform(const std::string& op) const { return groupby_.transform(column_, op); }
  [[nodiscard]] GroupRolling rolling(std::int64_t window, std::int64_t min_periods = -1) const;

 private:
  GroupBy groupby_;
  std::string column_;
};

/**
 * @brief What df.groupby(keys).rolling(n, min_periods) returns: pick a column with [] and aggregate; each
 * aggregation is a row window within each group (rolling.hpp's numerics: NaN and infinities skipped but by
 * count), float64, aligned with the input's rows and partitions, named "<column>_<op>". Eager and collective.
 */
class GroupRolling {
 public:
  GroupRolling(GroupBy groupby, RollingWindow window, std::string column = {})
      : groupby_(std::move(groupby)), window_(window), column_(std::move(column)) {}
  /// The same windows over column `column`. Not collective (checked when aggregating).
  [[nodiscard]] GroupRolling operator[](const std::string& column) const { return {groupby_, window_, column}; }
  [[nodiscard]] const RollingWindow& window() const noexcept { return window_; }

  /// The window's sum / mean / std, var (ddof=1) / min / max / count of the selected column.
  /// @throws InvalidArgument (every rank) when no column was selected, or as GroupBy's operations.
  [[nodiscard]] Series sum() const { return apply(RollingOp::sum); }
  [[nodiscard]] Series mean() const { return apply(RollingOp::mean); }
  [[nodiscard]] Series std() const { return apply(RollingOp::std); }
  [[nodiscard]] Series var() const;
  [[nodiscard]] Series min() const { return apply(RollingOp::min); }
  [[nodiscard]] Series max() const { return apply(RollingOp::max); }
  [[nodiscard]] Series count() const { return apply(RollingOp::count); }
  [[nodiscard]] Series apply(RollingOp op) const;

 private:
  GroupBy groupby_;
  RollingWindow window_;
  std::string column_;
};

}  // namespace slab::frame

namespace slab {
using frame::named_agg;  // slab::named_agg("total", "x", "sum")
}  // namespace slab
