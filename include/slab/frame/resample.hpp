#pragma once
/// @file resample.hpp
/// @brief Resampling by a fixed frequency, pandas' `df.resample("1h", on="timestamp").agg(...)`: a groupby whose
/// key is the row's time floored to its bin, with the empty bins between the first and the last filled in.
///
/// Bins follow pandas' defaults for fixed frequencies (s, min, h, D and multiples such as "15min", "7h", "2D"):
/// closed on the left, labelled by their left edge, laid from midnight of the day of the earliest timestamp
/// (pandas' origin='start_day'; for a frequency that divides a day this is the same as flooring t / freq from the
/// epoch). A row with a null time is dropped. The result has the time column (named as `on`) with every bin from
/// the first non-empty one to the last, in time order, then the aggregations as groupby names them. An empty
/// bin gives what pandas gives for it: count, size and nunique 0, sum 0, mean/std/var NaN, and min/max/first/last
/// NaN in a float64 column and a null in the others (pandas turns such a column into float64 to hold its NaN;
/// slab keeps the type, as its groupby does). first/last are a bin's first/last non-null values in time order,
/// equal times in row order, as in pandas (which sorts by the times, stably, before grouping): when first or last
/// is asked for and the times are out of order, the rows are sorted by time first (sort_values, one shuffle).
///
/// Distributed: the bins are groupby's sorted keys (pre-aggregated on each rank, the partial states range-routed,
/// combined), so the result is sorted in rank order and no rank gathers rows; each rank then fills the gaps before
/// each of its bins, the gap before its first one taken from the last bin of the ranks before it (one allgather
/// of each rank's first and last bin). The filled partitions are split so that none holds more than about
/// MemoryManager::budget(8) bytes, so a sparse series at a fine frequency does not need its bins in memory at once.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "slab/frame/frame.hpp"
#include "slab/frame/groupby.hpp"

namespace slab::frame {

/**
 * @brief The bin width in nanoseconds of a fixed frequency ("1h", "15min", "30s", "1D", "2D", "500ms"; a unit
 * alone is one of it). Not collective.
 * @throws InvalidArgument naming `freq` when it is not a positive fixed frequency (calendar frequencies such as
 * "W", "ME", "YE", "B" have no fixed width).
 */
[[nodiscard]] std::int64_t parse_resample_freq(std::string_view freq);

/**
 * @brief df.resample(freq, on=on).agg({column: ops, ...}) as described above: the time column `on`, then one
 * column per (column, op) in the order given, named and typed as frame::groupby names and types them
 * ("<column>_<op>", "size"). Eager and collective (runs the input's graph; the gap-filling tasks are lazy).
 * @throws InvalidArgument (every rank) for a bad frequency, an unknown column, `on` among the aggregated columns,
 * an empty op list; TypeError (every rank) when `on` is not a timestamp column, or as frame::groupby for
 * sum/mean/std/var of a string or timestamp column.
 */
[[nodiscard]] Frame resample(const Frame& frame, std::int64_t freq_ns, const std::string& on,
                             const std::vector<Aggregation>& aggregations);

/**
 * @brief What df.resample(freq, on) returns: the same aggregation methods as GroupBy, each running
 * frame::resample (eager and collective) and returning the time column `on` then the aggregations.
 */
class Resampler {
 public:
  /// @throws InvalidArgument for a non-positive freq_ns. Not collective.
  Resampler(Frame frame, std::int64_t freq_ns, std::string on);

  [[nodiscard]] const Frame& frame() const noexcept { return frame_; }
  [[nodiscard]] std::int64_t freq_ns() const noexcept { return freq_; }
  [[nodiscard]] const std::string& on() const noexcept { return on_; }

  /// agg({{"x", {"mean", "sum"}}, {"y", {"max"}}}): `on`, then "<column>_<op>" in the order given. Collective.
  /// @throws InvalidArgument (every rank) for an unknown op name, or as frame::resample.
  [[nodiscard]] Frame agg(const std::vector<AggSpec>& aggregations) const;
  /// agg({named_agg("total", "x", "sum"), ...}): `on`, then one column per NamedAgg, named by it. Collective.
  /// @throws InvalidArgument (every rank) for an unknown op, duplicate output names, or as frame::resample.
  [[nodiscard]] Frame agg(const std::vector<NamedAgg>& aggregations) const;
  /// `on` and "size" (rows per bin). Collective. @throws InvalidArgument when the frame has no other column.
  [[nodiscard]] Frame size() const;
  /// `op` of every other column it applies to, as GroupBy's (sum/mean/std/var of int64, float64 and boolean
  /// columns, min/max of those and timestamps, count/first/last/nunique of every column). Collective.
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
  std::int64_t freq_;
  std::string on_;
};

}  // namespace slab::frame
