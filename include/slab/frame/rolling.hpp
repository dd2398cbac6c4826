#pragma once
/// @file rolling.hpp
/// @brief Rolling windows (pandas `Series.rolling`): fixed row counts (`rolling(N)`, min_periods default N)
/// and time spans over a sorted timestamp column (`rolling('1h')`: window (t - span, t], min_periods
/// default 1), with mean, sum, min, max, std (ddof=1) and count. Rows are distributed in global order over
/// the ranks (rank r holds the rows after those of rank r-1, any count, zero included); each rank receives
/// only the halo it needs (the last N-1 rows before its first row, or the rows within the span before it,
/// possibly from several ranks back) and computes its own rows.
///
/// Numerics follow pandas: NaN values are skipped (they count for neither min_periods nor the result, except
/// for `count`, which like pandas applies min_periods to the rows in the window, NaN included); +-inf is
/// skipped like NaN by mean, sum, std, min and max (pandas >= 2 turns infinities into NaN before its window
/// kernels: `pd.Series([1, inf, 2]).rolling(2, min_periods=1).sum()` is 1, 1, 2) and counted by `count`, so an
/// infinity never leaves NaN behind in a running sum and the result does not depend on the rank count;
/// sums and means use pandas' running sum (adds and removes Kahan-compensated, each with a compensation of its
/// own, so that what a huge value's add rounded away comes back once it leaves: `[1e17, 1, 2, 3]` by twos sums
/// to 1e17, 3, 5, as pandas'), std a Welford running variance (recomputed exactly every `window` rows for fixed
/// windows), min/max a monotonic deque; a window whose values are all equal has that value as its mean, n times
/// it as its sum and a std of exactly 0, and a mean of values of one sign never has the other (pandas' rules):
/// results match pandas to ~1e-12 relative.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "slab/comm/comm.hpp"
#include "slab/frame/frame.hpp"
#include "slab/frame/series.hpp"

namespace slab::frame {

/// The aggregations of a rolling window.
enum class RollingOp : std::uint8_t { mean, sum, min, max, std, count };

/// "mean", "sum", "min", "max", "std", "count". Not collective.
std::string_view to_string(RollingOp op) noexcept;
/// Parse a name as above. @throws InvalidArgument naming the text.
RollingOp parse_rolling_op(std::string_view text);

/// A window: `rows` > 0 (fixed row count) or `span_ns` > 0 (time span over a timestamp column).
struct RollingWindow {
  std::int64_t rows = 0;          ///< fixed window of this many rows (0: a time window)
  std::int64_t span_ns = 0;       ///< time window (t - span, t] in nanoseconds (0: a row window)
  std::int64_t min_periods = -1;  ///< fewest non-NaN values for a result; -1: rows (row window) or 1 (time)

  /// rolling(rows) with min_periods (default rows). @throws InvalidArgument when rows < 1 or min_periods > rows.
  static RollingWindow count(std::int64_t rows, std::int64_t min_periods = -1);
  /// rolling(span) with min_periods (default 1). @throws InvalidArgument when span_ns < 1.
  static RollingWindow time(std::int64_t span_ns, std::int64_t min_periods = 1);
  /// "1000" (rows) or a pandas-like offset "1h", "30min", "15s", "500ms", "2d", "100us", "10ns", "1.5h".
  /// @throws InvalidArgument naming the text.
  static RollingWindow parse(std::string_view text);

  [[nodiscard]] bool is_time() const noexcept { return span_ns > 0; }
  /// min_periods with the default resolved.
  [[nodiscard]] std::int64_t effective_min_periods() const noexcept {
    return min_periods >= 0 ? min_periods : (is_time() ? 1 : rows);
  }
  /// "rolling(1000)" / "rolling('1h')" (the span in its largest exact unit, never raw nanoseconds), for messages.
  [[nodiscard]] std::string str() const;
};

/**
 * @brief Serial kernel of a row window: x holds `halo` rows then `n` rows of this rank (contiguous); writes the
 * n results of the own rows into out. Not collective.
 */
void rolling_kernel_rows(const double* x, std::size_t halo, std::size_t n, std::size_t window, std::size_t min_periods,
                         RollingOp op, double* out);
/**
 * @brief Serial kernel of a time window: t (sorted, ns) and x hold `halo` rows then `n` own rows; the window of
 * row i is the rows j <= i with t[j] > t[i] - span (pandas, closed='right'). Not collective.
 */
void rolling_kernel_time(const std::int64_t* t, const double* x, std::size_t halo, std::size_t n, std::int64_t span,
                         std::size_t min_periods, RollingOp op, double* out);

/// What a rank holds after the halo exchange: `halo` rows received from earlier ranks, then its own rows.
struct RollingHalo {
  std::vector<double> x;        ///< halo rows then own rows
  std::vector<std::int64_t> t;  ///< same, time windows only
  std::size_t halo = 0;
};

/**
 * @brief Exchange the halo of a window over row-block distributed columns (rank order = row order).
 * `t` is used (and must be given, globally sorted, no NaT = INT64_MIN) only for time windows. Collective.
 * @throws InvalidArgument (every rank) for an invalid window, a missing or unsorted timestamp column.
 */
RollingHalo rolling_halo(const Comm& comm, std::span<const double> x, std::span<const std::int64_t> t,
                         const RollingWindow& window);

/**
 * @brief Rolling `op` of the distributed column x (one value per own row in the result). `t` as in
 * rolling_halo. Collective. @throws as rolling_halo.
 */
std::vector<double> rolling(const Comm& comm, std::span<const double> x, std::span<const std::int64_t> t,
                            const RollingWindow& window, RollingOp op);

/// Several aggregations over one halo exchange; result[k] belongs to ops[k]. Collective.
std::vector<std::vector<double>> rolling(const Comm& comm, std::span<const double> x, std::span<const std::int64_t> t,
                                         const RollingWindow& window, std::span<const RollingOp> ops);

/**
 * @brief This rank's values of column `column` of `frame`, in row order, as doubles (int64, bool and
 * timestamp converted; nulls NaN). Collective (runs the frame's graph). @throws InvalidArgument for an
 * unknown or string column.
 */
std::vector<double> local_values(const Frame& frame, const std::string& column);
/// This rank's values of an int64 or timestamp column (nulls INT64_MIN). Collective. @throws as local_values.
std::vector<std::int64_t> local_int_values(const Frame& frame, const std::string& column);

/**
 * @brief pandas `frame[column].rolling(window, on=on).<op>()` for each op: a frame with one float64 column per op,
 * named "<column>_<op>", with the input's partitioning (partition k of the result holds the rows of partition k).
 * `on`: the sorted timestamp column of a time window (required for a time window). Out of core: the ranks
 * exchange only the rows a later rank's windows reach, and partition k's (lazy) task reads partition k and the
 * rows of partition k - 1 its windows reach (a carry of at most a window), so one partition is resident at a
 * time. Collective (runs the input's graph, exchanges the halo). @throws InvalidArgument (every rank) for unknown columns, a string
 * value column, a time window without `on`, an unsorted or null `on` column.
 */
Frame rolling(const Frame& frame, const std::string& column, const RollingWindow& window,
              const std::vector<RollingOp>& ops, const std::string& on = {});

/**
 * @brief What df.rolling(window, on) returns: pick a column with [] and aggregate, as pandas'
 * `df.rolling("1h", on="timestamp")["x"].mean()`. Each aggregation is frame::rolling above (collective) and
 * returns a Series aligned with df's rows and partitions, named "<column>_<op>" (so df.assign("m", s) pairs
 * the partitions without moving rows).
 */
class Rolling {
 public:
  Rolling(Frame frame, RollingWindow window, std::string on = {}, std::string column = {})
      : frame_(std::move(frame)), window_(window), on_(std::move(on)), column_(std::move(column)) {}

  /// The same window over column `column`. Not collective (checked when aggregating).
  [[nodiscard]] Rolling operator[](const std::string& column) const { return {frame_, window_, on_, column}; }
  /// Fewest non-NaN values for a result (pandas' min_periods). Not collective.
  /// @throws InvalidArgument when negative or, for a row window, larger than the window.
  Rolling& min_periods(std::int64_t n);
  [[nodiscard]] const RollingWindow& window() const noexcept { return window_; }

  /// The window's sum / mean / std, var (ddof=1) / min / max / count of the selected column. Collective.
  /// @throws InvalidArgument (every rank) when no column was selected, or as frame::rolling.
  [[nodiscard]] Series sum() const { return apply(RollingOp::sum); }
  [[nodiscard]] Series mean() const { return apply(RollingOp::mean); }
  [[nodiscard]] Series std() const { return apply(RollingOp::std); }
  [[nodiscard]] Series var() const;
  [[nodiscard]] Series min() const { return apply(RollingOp::min); }
  [[nodiscard]] Series max() const { return apply(RollingOp::max); }
  [[nodiscard]] Series count() const { return apply(RollingOp::count); }
  [[nodiscard]] Series apply(RollingOp op) const;

 private:
  Frame frame_;
  RollingWindow window_;
  std::string on_;
  std::string column_;
};

}  // namespace slab::frame
