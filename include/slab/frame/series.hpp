#pragma once
/// @file series.hpp
/// @brief slab::frame::Series: one column of a distributed frame (what df["x"] and df.rolling(...)["x"].mean()
/// return), with pandas' distributed reductions; and concat, pandas' vertical concat of frames.
///
/// A Series is a frame and the name of one of its columns (a shared handle, like Frame): nothing is copied, and
/// its rows are the frame's rows, in the frame's global row order and partitioning. Reductions skip nulls and
/// NaN as pandas does (skipna=True); std/var use ddof=1.

#include <cstdint>
#include <string>
#include <vector>

#include "slab/frame/column.hpp"
#include "slab/frame/frame.hpp"

namespace slab::frame {

class Series {
 public:
  Series() = default;
  /// Column `column` of `frame`. Not collective. @throws InvalidArgument for an unknown column.
  Series(Frame frame, std::string column);

  [[nodiscard]] bool valid() const noexcept { return frame_.valid(); }
  /// The column's name in its frame: "x" for df["x"], "x_mean" for df.rolling(...)["x"].mean().
  [[nodiscard]] const std::string& name() const noexcept { return column_; }
  [[nodiscard]] ElementType dtype() const;
  /// The frame holding the column (it may hold other columns too).
  [[nodiscard]] const Frame& frame() const noexcept { return frame_; }
  /// A one-column frame of this Series (named `name()`). Lazy.
  [[nodiscard]] Frame to_frame() const;

  /// Number of rows (nulls included). Collective.
  [[nodiscard]] std::int64_t len() const { return frame_.len(); }
  /// Non-null values. Collective.
  [[nodiscard]] std::int64_t count() const;
  /// Sum of the non-null values (0 when none), in double (an int64 column's sum is exact up to 2^53); +inf and
  /// -inf together give NaN, as in pandas. Collective. @throws TypeError (every rank) for a string column.
  [[nodiscard]] double sum() const;
  /// Mean (NaN when no values). Collective. @throws as sum.
  [[nodiscard]] double mean() const;
  /// Sample variance / standard deviation, ddof=1 (NaN for fewer than 2 values). Collective. @throws as sum.
  [[nodiscard]] double var() const;
  [[nodiscard]] double std() const;
  /// Smallest / largest value as double (NaN when no values; timestamps in ns). Collective. @throws as sum.
  [[nodiscard]] double min() const;
  [[nodiscard]] double max() const;
  /// Distinct non-null values (any type). Collective.
  [[nodiscard]] std::int64_t nunique() const;
  /// pandas value_counts(): [name, "count"], by count descending then value. Replicated. Collective.
  [[nodiscard]] LocalTable value_counts() const;
  /// The first / last n values (a one-column table, index = global row numbers), replicated. Collective.
  [[nodiscard]] LocalTable head(std::int64_t n = 5) const;
  [[nodiscard]] LocalTable tail(std::int64_t n = 5) const;
  /// The whole column on every rank. Collective.
  [[nodiscard]] LocalColumn gather_all() const;

 private:
  Frame frame_;
  std::string column_;
};

/**
 * @brief pandas concat(frames) (axis=0, ignore_index=True): the rows of frames[0], then frames[1], ..., in that
 * global order, spread evenly over the ranks (the rows move to their new rank through one shuffle). String
 * columns get the sorted union of the frames' dictionaries. Collective (persists the inputs).
 * @throws InvalidArgument (every rank) for no frames, or a frame whose column names or types differ from the
 * first frame's, naming the first mismatching column.
 */
[[nodiscard]] Frame concat(const std::vector<Frame>& frames);

/**
 * @brief `frame`'s rows moved so that rank r holds `partition_rows[r]`'s partitions (their row counts, in
 * order; the counts sum to frame.len()), keeping the global row order. Collective (persists `frame`, one
 * shuffle). @throws InvalidArgument (every rank) when the total differs from frame.len().
 */
[[nodiscard]] Frame repartition_rows(const Frame& frame, const std::vector<std::int64_t>& partition_rows);

}  // namespace slab::frame

namespace slab {
using frame::concat;  // slab::concat({df1, df2}) (and the LocalTable overload of column.hpp)
using frame::Series;  // slab::Series
}  // namespace slab
