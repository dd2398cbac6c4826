#pragma once
/// @file frame.hpp
/// @brief slab::frame::Frame: a distributed data frame. Each rank holds an ordered list of partitions, each a
/// lazy task whose output buffer is one Batch (batch.hpp). The global row order is rank 0's partitions in
/// order, then rank 1's, and so on. A shared handle: copies refer to the same partitions.

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "slab/engine/engine.hpp"
#include "slab/frame/batch.hpp"
#include "slab/frame/column.hpp"
#include "slab/frame/schema.hpp"

namespace slab::frame {

// The argument and result types of Frame's pandas-style methods, defined in their concept headers
// (slab/slab.hpp includes them all): expr.hpp, groupby.hpp, merge.hpp, sort.hpp, rolling.hpp, resample.hpp,
// series.hpp.
class Expr;
class GroupBy;
class Resampler;
class Rolling;
class Series;
struct MergeArgs;
struct SortKey;

class Frame {
 public:
  Frame() = default;
  /// Wrap this rank's partitions (each task's output a Batch with `schema`'s column types). `rows`: the
  /// partitions' row counts where known (empty = all unknown; else one per partition). Not collective.
  Frame(Engine& engine, Schema schema, std::vector<Chunk> partitions,
        std::vector<std::optional<std::int64_t>> rows = {});

  [[nodiscard]] bool valid() const noexcept { return state_ != nullptr; }
  [[nodiscard]] const Schema& schema() const;
  [[nodiscard]] Engine& engine() const;
  [[nodiscard]] std::vector<std::string> columns() const { return schema().names(); }
  /// This rank's partitions, in order.
  [[nodiscard]] const std::vector<Chunk>& partitions() const;
  [[nodiscard]] std::size_t num_partitions() const { return partitions().size(); }
  /// Known row counts of this rank's partitions (nullopt = not known before running).
  [[nodiscard]] const std::vector<std::optional<std::int64_t>>& partition_rows() const;

  /// Run every local partition and keep them (spillable); learn row counts. Collective.
  Frame& persist();
  /// Row counts of this rank's partitions (persists when any is unknown). Collective.
  [[nodiscard]] std::vector<std::int64_t> local_partition_rows() const;
  /// Rows on this rank. Collective.
  [[nodiscard]] std::int64_t local_len() const;
  /// Total rows. Collective.
  [[nodiscard]] std::int64_t len() const;
  /// (rows, columns). Collective.
  [[nodiscard]] std::pair<std::int64_t, std::int64_t> shape() const;
  /// Global row index of this rank's first row (sum of earlier ranks' rows). Collective.
  [[nodiscard]] std::int64_t global_offset() const;

  /// This rank's rows as a host table (index = global row numbers). Collective (runs the graph).
  [[nodiscard]] LocalTable local_table() const;
  /// The whole frame on `root` (an empty table with the columns elsewhere). Collective.
  [[nodiscard]] LocalTable gather(int root = 0) const;
  /// The whole frame on every rank. Collective.
  [[nodiscard]] LocalTable gather_all() const;

  /**
   * @brief A frame from each rank's local rows (stacked in rank order), split into partitions of
   * `rows_per_partition` rows (<= 0: one partition per rank; a rank with no rows gets no partition).
   * String dictionaries are unified over all ranks (allgatherv of distinct strings, sorted union, recode).
   * Collective. @throws InvalidArgument (every rank) when the ranks' column names/types differ.
   */
  [[nodiscard]] static Frame from_local_table(Engine& engine, const LocalTable& table,
                                              std::int64_t rows_per_partition = 0);
  /**
   * @brief A frame from a small table that every rank built the same (a lookup table, the merge's dimension
   * table): each rank keeps its balanced share of the rows (rank r: rows [r n / p, (r + 1) n / p)), so the
   * frame holds the table once, not once per rank as from_local_table would stack it. Partitions as
   * from_local_table. Collective.
   * @throws InvalidArgument (every rank) when the ranks' tables differ (names, types, lengths or values;
   * compared by a hash of the contents) or a column has another length.
   */
  [[nodiscard]] static Frame from_replicated_table(Engine& engine, const LocalTable& table,
                                                   std::int64_t rows_per_partition = 0);

  // ---- pandas-style methods (src/frame/methods.cpp). Each is the free function of its concept header applied to
  // this frame, with the same laziness and collectiveness (said again below); the argument types come from
  // those headers. Lists of column names take an initializer_list<const char*> overload beside the vector so
  // that a braced list of names ({"a", "b"}) never reads as a std::string or a list of SortKeys.

  /// df.groupby(keys): a GroupBy (groupby.hpp) whose agg/size/sum/... run frame::groupby. Not collective.
  [[nodiscard]] GroupBy groupby(const std::vector<std::string>& keys) const;
  [[nodiscard]] GroupBy groupby(std::initializer_list<const char*> keys) const;
  [[nodiscard]] GroupBy groupby(const std::string& key) const;
  /// df.merge(right, {.on = {"k"}, .how = "left"}) (MergeArgs, merge.hpp). Collective, as frame::merge.
  /// @throws InvalidArgument for a bad `how` (naming it) or keys given both ways / neither way.
  [[nodiscard]] Frame merge(const Frame& right, const MergeArgs& args) const;
  /// df.sort_values({{"k1", true}, {"name", false}}) ((column, ascending) pairs), sort.hpp. Collective.
  [[nodiscard]] Frame sort_values(std::initializer_list<SortKey> keys) const;
  [[nodiscard]] Frame sort_values(const std::vector<SortKey>& keys) const;
  /// df.sort_values({"k1", "k2"}, ascending) and df.sort_values("k"). Collective.
  [[nodiscard]] Frame sort_values(std::initializer_list<const char*> by, bool ascending = true) const;
  [[nodiscard]] Frame sort_values(const std::vector<std::string>& by, bool ascending = true) const;
  [[nodiscard]] Frame sort_values(const std::string& by, bool ascending = true) const;
  /// df.rolling(1000) (a row window; min_periods -1 = the window) and df.rolling("1h", "timestamp") (a time
  /// window over the sorted timestamp column `on`; also "1000" rows): a Rolling (rolling.hpp); select a column
  /// with [] and aggregate. Not collective (the aggregation is). @throws InvalidArgument for a bad window.
  [[nodiscard]] Rolling rolling(std::int64_t rows, std::int64_t min_periods = -1) const;
  [[nodiscard]] Rolling rolling(std::string_view window, std::string on = {}, std::int64_t min_periods = -1) const;
  /// df.resample("1h", "timestamp"): a Resampler (resample.hpp) binning the rows by the fixed frequency `freq`
  /// ("30s", "15min", "1h", "1D", "2D", ...) over the timestamp column `on` (slab frames have no index, so `on` is
  /// required); aggregate with agg/sum/mean/count/... as GroupBy's. Not collective (the aggregation is).
  /// @throws InvalidArgument for a bad frequency or an unknown `on`; TypeError when `on` is not a timestamp.
  [[nodiscard]] Resampler resample(std::string_view freq, std::string on) const;
  /// The first / last n rows, replicated on every rank (ops.hpp head/tail). Collective.
  [[nodiscard]] LocalTable head(std::int64_t n = 5) const;
  [[nodiscard]] LocalTable tail(std::int64_t n = 5) const;
  /// Rows where `predicate` holds (ops.hpp filter). Lazy.
  [[nodiscard]] Frame filter(const Expr& predicate) const;
  /// Add or replace column `name` computed from `value` (ops.hpp assign). Lazy.
  [[nodiscard]] Frame assign(const std::string& name, const Expr& value) const;
  /**
   * @brief Attach `values` (a Series of the same length, e.g. a rolling result) as column `name`, row i next to
   * row i. Zero-copy pairing of partitions when the partition row counts match (rolling keeps them); otherwise
   * the Series' rows are moved to this frame's partitioning (one shuffle). Collective.
   * @throws InvalidArgument (every rank) when the lengths differ or the engines differ.
   */
  [[nodiscard]] Frame assign(const std::string& name, const Series& values) const;
  /// Columns renamed by (old, new) pairs; the rest kept. Zero-copy, not collective.
  /// @throws InvalidArgument for an unknown old name or a resulting duplicate.
  [[nodiscard]] Frame rename(const std::vector<std::pair<std::string, std::string>>& names) const;
  /// The named columns, in that order (ops.hpp select). Lazy.
  [[nodiscard]] Frame select(const std::vector<std::string>& columns) const;
  /// ops.hpp drop_duplicates / dropna. Lazy (drop_duplicates: collective, a shuffle).
  [[nodiscard]] Frame drop_duplicates(const std::vector<std::string>& subset = {}) const;
  [[nodiscard]] Frame dropna(const std::vector<std::string>& subset = {}) const;
  /// ops.hpp describe / value_counts / nunique (replicated results). Collective.
  [[nodiscard]] LocalTable describe() const;
  [[nodiscard]] LocalTable value_counts(const std::string& column) const;
  [[nodiscard]] std::int64_t nunique(const std::string& column) const;
  /// df["x"]: column x as a Series (series.hpp). Not collective. @throws InvalidArgument for an unknown column.
  [[nodiscard]] Series operator[](const std::string& column) const;
  /// df[{"a", "b"}]: the named columns (select). Lazy.
  [[nodiscard]] Frame operator[](const std::vector<std::string>& columns) const;
  [[nodiscard]] Frame operator[](std::initializer_list<const char*> columns) const;

  /// @private Shared state (src/frame/frame.cpp).
  struct State;

 private:
  std::shared_ptr<State> state_;
};

/// The function of map_partitions: read `in`, write one Batch to ctx.output (e.g. with BatchBuilder).
using PartitionFn = std::function<void(const BatchView& in, TaskContext& ctx)>;

/**
 * @brief One lazy task per partition: fn(in, ctx) writes the output batch with `out`'s column types.
 * `keeps_rows`: the output has the input's row count (row counts carry over). Not collective.
 */
[[nodiscard]] Frame map_partitions(const Frame& frame, Schema out, std::string name, PartitionFn fn,
                                   bool keeps_rows = false);

/// Pin a ready chunk and view its batch on the host (keep the returned Pin alive while using the view): where the
/// device tier is GPU memory the view owns a host copy. Not collective.
[[nodiscard]] std::pair<Pin, BatchView> view_chunk(const Chunk& chunk);

namespace detail {
/**
 * Pin a ready chunk and view its batch where it lies: in device memory on a GPU, with no copy (view_chunk copies
 * the whole partition to the host), for reads of a few rows by slab::copy or of columns by device kernels. Keep the
 * Pin alive while using the view. The partition_read fault site, as view_chunk. Not collective.
 */
[[nodiscard]] std::pair<Pin, BatchView> view_chunk_in_place(const Chunk& chunk);
}  // namespace detail

/// This rank's (computed) partitions concatenated, in order, into one batch held by `storage`; returns a view
/// of it. Not collective: persist the frame first.
[[nodiscard]] BatchView concat_local_partitions(const Frame& frame, std::vector<std::byte>& storage);

/// A batch's rows as a host table (strings decoded with schema's dictionaries; index = first_row + i).
[[nodiscard]] LocalTable to_local_table(const BatchView& batch, const Schema& schema, std::int64_t first_row = 0);

/// Write `table`'s rows [begin, end) as a batch (strings encoded with schema's dictionaries; strings not in
/// the dictionary become null). Masks only for columns with nulls.
void write_batch(const LocalTable& table, const Schema& schema, std::int64_t begin, std::int64_t end, TaskContext& ctx);
void write_batch(const LocalTable& table, const Schema& schema, std::int64_t begin, std::int64_t end,
                 std::vector<std::byte>& storage);

}  // namespace slab::frame
