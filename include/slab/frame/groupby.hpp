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

}  // namespace slab::frame
