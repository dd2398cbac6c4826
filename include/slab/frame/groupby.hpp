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

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "slab/frame/frame.hpp"

namespace slab::frame {

/// An aggregation. size counts rows (nulls included); count counts non-null values; std/var use ddof=1;
/// first/last are the first/last non-null values in the frame's global row order; nunique ignores nulls.
enum class AggOp : std::uint8_t { sum, mean, count, size, min, max, std, var, first, last, nunique };

/// "sum", "mean", ... (pandas' names). Not collective.
[[nodiscard]] const char* to_string(AggOp op) noexcept;
/// The AggOp named `name`. @throws InvalidArgument for an unknown name. Not collective.
[[nodiscard]] AggOp parse_agg_op(std::string_view name);

/// The aggregations of one value column, e.g. {"x", {AggOp::mean, AggOp::sum}}.
struct Aggregation {
  std::string column;
  std::vector<AggOp> ops;
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
 * wraps modulo 2^64 on overflow, as pandas and NumPy do; mean/std/var are computed in double); min, max,
 * first, last keep the value type (all-null groups give NaN for float64, a null elsewhere). Float keys
 * group by value (-0.0 == 0.0; NaN is null: dropped, or one group with dropna = false).
 *
 * Eager and collective: runs the input's partition tasks (one at a time, folding each into this rank's
 * partial state), exchanges, and returns a frame with one partition per rank holding that rank's groups
 * (out of core: several partitions per rank, produced lazily, one combine task each).
 * @throws InvalidArgument (every rank) for unknown columns, no keys, a key also aggregated, or an empty op
 * list; TypeError (every rank) for sum/mean/std/var of a string or timestamp column.
 */
[[nodiscard]] Frame groupby(const Frame& frame, const std::vector<std::string>& keys,
                            const std::vector<Aggregation>& aggregations, const GroupbyOptions& options = {});

// ---- The pandas-style spelling: df.groupby({"id", "name"}).agg({{"x", {"mean", "sum"}}, {"y", {"min"}}}).

/// One column's aggregations by pandas' names ("sum", "mean", "count", "size", "min", "max", "std", "var",
/// "first", "last", "nunique"; there is no "median"): {"x", {"mean", "sum"}}.
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

/**
 * @brief What df.groupby(keys) returns: keys and options; every aggregation runs frame::groupby (eager and
 * collective) and returns a frame with the keys as columns (as_index=False), sorted by key by default.
 * Output names: "<column>_<op>" (op "size": "size") as frame::groupby names them, or the names of NamedAggs.
 */
class GroupBy {
 public:
  GroupBy(Frame frame, std::vector<std::string> keys, GroupbyOptions options = {})
      : frame_(std::move(frame)), keys_(std::move(keys)), options_(options) {}

  [[nodiscard]] const Frame& frame() const noexcept { return frame_; }
  [[nodiscard]] const std::vector<std::string>& keys() const noexcept { return keys_; }
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
  /// `op` of every column it applies to (see sum()). Collective.
  [[nodiscard]] Frame apply_all(AggOp op) const;

 private:
  Frame frame_;
  std::vector<std::string> keys_;
  GroupbyOptions options_;
};

}  // namespace slab::frame

namespace slab {
using frame::named_agg;  // slab::named_agg("total", "x", "sum")
}  // namespace slab
