#pragma once
/// @file segments_hd.hpp
/// @brief group_transform's per-group operations as SLAB_HD code: one group's rows (in the frame's row order) in,
/// one result per row out, in one sequential pass with pandas' numerics (Kahan-compensated sums as pandas'
/// group_cumsum / group_sum / group_mean, Welford variance as group_var). The one source of the host's loop
/// (groupby/segments.cpp) and of the device's pieces of a group (segments_by_piece.inl: float cumsum, cumprod,
/// sum, mean, std and var, each piece by these loops); the device computes the operations exact in any order
/// row-parallel (segments_by_row.inl). transform's nunique, median and quantile read a group's values sorted
/// (sorted_segment_op(), after a sort that each side makes); rolling reads them as doubles in row order and slides
/// rolling_hd.hpp's window over them (segment_rolling(); the device: RollingKernels::groups). No CUDA header.
#include <cstddef>
#include <cstdint>

#include "core/kernels/counter_rng_hd.hpp"
#include "core/kernels/hd.hpp"
#include "frame/groupby/holistic.hpp"
#include "frame/kernels/agg_hd.hpp"
#include "frame/kernels/rolling_hd.hpp"
#include "slab/core/element_type.hpp"

namespace slab::frame::kernels {

/// slab::frame::GroupScan and AggOp, in their orders (checked where they meet, groupby/segments.cpp).
enum class SegmentScan : std::uint8_t {
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
enum class SegmentAgg : std::uint8_t {
  sum,
  mean,
  count,
  size,
  min,
  max,
  std,
  var,
  first,
  last,
  nunique,
  median,
  quantile
};

/// What to compute over each group (GroupTransform's fields that the sequential pass reads).
struct SegmentOp {
  SegmentScan op = SegmentScan::cumsum;
  SegmentAgg agg = SegmentAgg::sum;  ///< transform
  std::int64_t periods = 1;          ///< shift, diff
  bool ascending = true;             ///< cumcount
  double q = 0.5;                    ///< transform's quantile
  std::int64_t window = 1;           ///< rolling: the window's rows (>= 1)
  std::int64_t min_periods = 0;      ///< rolling: RollingWindow::effective_min_periods(), at least 0
  RollingKind rolling = RollingKind::mean;
  bool rolling_var = false;  ///< rolling: the variance (the square of the std)
};

/// Whether the sequential pass (segment_op) computes `op`; the rest needs sorted values (segment_op_is_sorted) or
/// a window.
SLAB_HD_INLINE bool segment_op_is_sequential(const SegmentOp& op) noexcept {
  if (op.op == SegmentScan::rolling) return false;
  return op.op != SegmentScan::transform ||
         (op.agg != SegmentAgg::nunique && op.agg != SegmentAgg::median && op.agg != SegmentAgg::quantile);
}

/// Whether `op` is a rolling window within each group (segment_rolling).
SLAB_HD_INLINE bool segment_op_is_windowed(const SegmentOp& op) noexcept { return op.op == SegmentScan::rolling; }

/// transform's aggregates of a group's values sorted (sorted_segment_op): nunique, median, quantile.
SLAB_HD_INLINE bool segment_op_is_sorted(const SegmentOp& op) noexcept {
  return op.op == SegmentScan::transform &&
         (op.agg == SegmentAgg::nunique || op.agg == SegmentAgg::median || op.agg == SegmentAgg::quantile);
}

namespace segment_detail {
SLAB_HD_INLINE double nan() noexcept { return slab::kernels::bits_double(0x7FF8000000000000ull); }
SLAB_HD_INLINE double infinity() noexcept { return slab::kernels::bits_double(0x7FF0000000000000ull); }
inline constexpr std::int64_t kInt64Max = 0x7FFFFFFFFFFFFFFFll;
inline constexpr std::int64_t kInt64Min = -kInt64Max - 1;
}  // namespace segment_detail

/// A value column as the operations read it: null like pandas (masked, NaN, string code -1).
struct SegmentValues {
  ElementType type = ElementType::float64;
  const std::byte* data = nullptr;
  const std::uint8_t* valid = nullptr;

  [[nodiscard]] SLAB_HD_INLINE double f(std::size_t i) const noexcept {
    return reinterpret_cast<const double*>(data)[i];
  }
  [[nodiscard]] SLAB_HD_INLINE bool null(std::size_t i) const noexcept {
    if (valid && !valid[i]) return true;
    if (type == ElementType::float64) return f(i) != f(i);
    if (type == ElementType::string) return reinterpret_cast<const std::int32_t*>(data)[i] < 0;
    return false;
  }
  /// int64 / timestamp values, booleans as 0/1, string codes.
  [[nodiscard]] SLAB_HD_INLINE std::int64_t i64(std::size_t i) const noexcept {
    switch (type) {
      case ElementType::boolean:
        return reinterpret_cast<const std::uint8_t*>(data)[i] ? 1 : 0;
      case ElementType::string:
        return reinterpret_cast<const std::int32_t*>(data)[i];
      default:
        return reinterpret_cast<const std::int64_t*>(data)[i];
    }
  }
  /// The value as double (NaN when null).
  [[nodiscard]] SLAB_HD_INLINE double d(std::size_t i) const noexcept {
    if (null(i)) return segment_detail::nan();
    return type == ElementType::float64 ? f(i) : static_cast<double>(i64(i));
  }
};

/// The result column being written: values of `type`, a mask (nullptr for float64 results, whose nulls are NaN).
struct SegmentResult {
  ElementType type = ElementType::float64;
  std::byte* data = nullptr;
  std::uint8_t* valid = nullptr;

  SLAB_HD_INLINE void set_f(std::size_t i, double v) const noexcept { reinterpret_cast<double*>(data)[i] = v; }
  SLAB_HD void set_null(std::size_t i) const noexcept {
    if (valid) valid[i] = 0;
    switch (type) {
      case ElementType::float64:
        set_f(i, segment_detail::nan());
        break;
      case ElementType::boolean:
        reinterpret_cast<std::uint8_t*>(data)[i] = 0;
        break;
      case ElementType::string:
        reinterpret_cast<std::int32_t*>(data)[i] = -1;
        break;
      default:
        reinterpret_cast<std::int64_t*>(data)[i] = 0;
        break;
    }
  }
  /// int64 / timestamp / boolean (0/1) / string code, by type.
  SLAB_HD void set_i(std::size_t i, std::int64_t v) const noexcept {
    if (valid) valid[i] = 1;
    switch (type) {
      case ElementType::float64:
        set_f(i, static_cast<double>(v));
        break;
      case ElementType::boolean:
        reinterpret_cast<std::uint8_t*>(data)[i] = v != 0 ? 1 : 0;
        break;
      case ElementType::string:
        reinterpret_cast<std::int32_t*>(data)[i] = static_cast<std::int32_t>(v);
        break;
      default:
        reinterpret_cast<std::int64_t*>(data)[i] = v;
        break;
    }
  }
  /// Row j of `in` (same type as this column), null included.
  SLAB_HD void copy(std::size_t i, const SegmentValues& in, std::size_t j) const noexcept {
    if (in.null(j))
      set_null(i);
    else if (type == ElementType::float64)
      set_f(i, in.d(j));
    else
      set_i(i, in.i64(j));
  }
};

namespace segment_detail {

/// pandas' compensated add (group_sum / group_mean): a compensation made NaN by an infinity is reset, so a sum
/// with +-inf stays +-inf.
struct KahanSum {
  double sum = 0, comp = 0;
  SLAB_HD_INLINE void add(double v) noexcept {
    const double y = v - comp;
    const double t = sum + y;
    comp = t - sum - y;
    if (comp != comp) comp = 0;
    sum = t;
  }
};

/// pandas' group_cumsum step: Kahan-compensated, a compensation made NaN by an infinity kept (no reset), so the
/// sums after an infinity are NaN as pandas'.
SLAB_HD_INLINE void cumsum_step(double& acc, double& comp, double v) noexcept {
  const double y = v - comp;
  const double s = acc + y;
  comp = s - acc - y;
  acc = s;
}

/// A float running sum / product / min / max (out float64) over rows[0, m), nulls skipped (NaN at them), from the
/// state (acc, comp) (comp: cumsum's compensation) instead of the operation's identity. From the identity it is
/// pandas' group_cumsum, group_cumprod and group_cummin_max; the device starts a group's later pieces from the
/// state their earlier pieces leave (segments_by_piece.inl).
SLAB_HD inline void float_scan_from(SegmentScan op, const SegmentValues& in, const std::int64_t* rows, std::size_t m,
                                    const SegmentResult& out, std::size_t out0, double acc, double comp) {
  for (std::size_t t = 0; t < m; ++t) {
    const auto j = static_cast<std::size_t>(rows[t]);
    if (in.null(j)) {
      out.set_f(out0 + t, nan());
      continue;
    }
    const double v = in.f(j);
    switch (op) {
      case SegmentScan::cumsum:
        cumsum_step(acc, comp, v);
        break;
      case SegmentScan::cumprod:
        acc *= v;
        break;
      case SegmentScan::cummin:
        if (v < acc) acc = v;
        break;
      default:
        if (v > acc) acc = v;
        break;
    }
    out.set_f(out0 + t, acc);
  }
}

/// Running sum / product / min / max, nulls skipped (null at them), as pandas' group_cumsum (Kahan, no reset),
/// group_cumprod and group_cummin_max.
SLAB_HD inline void scan(SegmentScan op, const SegmentValues& in, const std::int64_t* rows, std::size_t m,
                         const SegmentResult& out, std::size_t out0) {
  if (out.type == ElementType::float64) {
    const double identity = op == SegmentScan::cumprod  ? 1.0
                            : op == SegmentScan::cummin ? infinity()
                            : op == SegmentScan::cummax ? -infinity()
                                                        : 0.0;
    float_scan_from(op, in, rows, m, out, out0, identity, 0.0);
    return;
  }
  std::uint64_t acc = op == SegmentScan::cumprod ? 1 : 0;  // unsigned: wraps modulo 2^64 without overflow
  std::int64_t best = op == SegmentScan::cummin ? kInt64Max : kInt64Min;
  for (std::size_t t = 0; t < m; ++t) {
    const auto j = static_cast<std::size_t>(rows[t]);
    if (in.null(j)) {
      out.set_null(out0 + t);
      continue;
    }
    const std::int64_t v = in.i64(j);
    switch (op) {
      case SegmentScan::cumsum:
        acc += static_cast<std::uint64_t>(v);
        out.set_i(out0 + t, static_cast<std::int64_t>(acc));
        break;
      case SegmentScan::cumprod:
        acc *= static_cast<std::uint64_t>(v);
        out.set_i(out0 + t, static_cast<std::int64_t>(acc));
        break;
      case SegmentScan::cummin:
        best = v < best ? v : best;
        out.set_i(out0 + t, best);
        break;
      default:
        best = v > best ? v : best;
        out.set_i(out0 + t, best);
        break;
    }
  }
}

/// The group's aggregate (every agg but nunique, median and quantile), written to every one of its rows.
SLAB_HD inline void broadcast(SegmentAgg agg, const SegmentValues& in, const std::int64_t* rows, std::size_t m,
                              const SegmentResult& out, std::size_t out0) {
  const bool isf = in.type == ElementType::float64;
  // The result, as one of: a double, an int64, a row of `in` to copy, or null.
  enum { kDouble, kInt, kRow, kNull } kind = kNull;
  double dv = nan();
  std::int64_t iv = 0;
  std::size_t row = 0;
  std::int64_t n = 0;  // non-null values
  switch (agg) {
    case SegmentAgg::size:
      kind = kInt, iv = static_cast<std::int64_t>(m);
      break;
    case SegmentAgg::count:
      for (std::size_t t = 0; t < m; ++t) n += in.null(static_cast<std::size_t>(rows[t])) ? 0 : 1;
      kind = kInt, iv = n;
      break;
    case SegmentAgg::sum:
      if (isf) {
        KahanSum s;
        for (std::size_t t = 0; t < m; ++t)
          if (!in.null(static_cast<std::size_t>(rows[t]))) s.add(in.f(static_cast<std::size_t>(rows[t])));
        kind = kDouble, dv = s.sum;
      } else {
        std::uint64_t s = 0;  // wraps modulo 2^64, as NumPy
        for (std::size_t t = 0; t < m; ++t)
          if (!in.null(static_cast<std::size_t>(rows[t])))
            s += static_cast<std::uint64_t>(in.i64(static_cast<std::size_t>(rows[t])));
        kind = kInt, iv = static_cast<std::int64_t>(s);
      }
      break;
    case SegmentAgg::mean: {
      KahanSum s;
      for (std::size_t t = 0; t < m; ++t)
        if (!in.null(static_cast<std::size_t>(rows[t]))) s.add(in.d(static_cast<std::size_t>(rows[t]))), ++n;
      kind = kDouble, dv = n > 0 ? s.sum / static_cast<double>(n) : nan();
      break;
    }
    case SegmentAgg::std:
    case SegmentAgg::var: {
      double mean = 0, m2 = 0;
      for (std::size_t t = 0; t < m; ++t) {
        const auto j = static_cast<std::size_t>(rows[t]);
        if (in.null(j)) continue;
        ++n;
        welford_add(mean, m2, static_cast<double>(n), in.d(j));
      }
      const double var = n > 1 ? m2 / static_cast<double>(n - 1) : nan();
      kind = kDouble, dv = agg == SegmentAgg::std ? slab::kernels::portable::sqrt(var) : var;
      break;
    }
    case SegmentAgg::min:
    case SegmentAgg::max: {
      const bool mx = agg == SegmentAgg::max;
      for (std::size_t t = 0; t < m; ++t) {
        const auto j = static_cast<std::size_t>(rows[t]);
        if (in.null(j)) continue;
        const bool better = n == 0 || (isf ? (mx ? in.f(j) > in.f(row) : in.f(j) < in.f(row))
                                           : (mx ? in.i64(j) > in.i64(row) : in.i64(j) < in.i64(row)));
        if (better) row = j;
        ++n;
      }
      kind = n > 0 ? kRow : kNull;
      break;
    }
    case SegmentAgg::first:
    case SegmentAgg::last:
      for (std::size_t k = 0; k < m; ++k) {
        const std::size_t t = agg == SegmentAgg::first ? k : m - 1 - k;
        if (!in.null(static_cast<std::size_t>(rows[t]))) {
          kind = kRow, row = static_cast<std::size_t>(rows[t]);
          break;
        }
      }
      break;
    default:  // nunique, median, quantile: not sequential (segment_op_is_sequential)
      break;
  }
  for (std::size_t t = 0; t < m; ++t) {
    const std::size_t i = out0 + t;
    switch (kind) {
      case kDouble:
        out.set_f(i, dv);
        break;
      case kInt:
        out.set_i(i, iv);
        break;
      case kRow:
        out.copy(i, in, row);
        break;
      case kNull:
        out.set_null(i);
        break;
    }
  }
}

}  // namespace segment_detail

/**
 * @brief `op` over one group: rows[t] (t < m, in row order) index `in` (unused by cumcount and size); result t goes
 * to out at out0 + t. Returns false, writing nothing, for what segment_op_is_sequential() refuses.
 */
SLAB_HD inline bool segment_op(const SegmentOp& op, const SegmentValues& in, const std::int64_t* rows, std::size_t m,
                               const SegmentResult& out, std::size_t out0) {
  const auto sm = static_cast<std::int64_t>(m);
  switch (op.op) {
    case SegmentScan::cumcount:
      for (std::size_t t = 0; t < m; ++t)
        out.set_i(out0 + t, op.ascending ? static_cast<std::int64_t>(t) : static_cast<std::int64_t>(m - 1 - t));
      return true;
    case SegmentScan::cumsum:
    case SegmentScan::cumprod:
    case SegmentScan::cummin:
    case SegmentScan::cummax:
      segment_detail::scan(op.op, in, rows, m, out, out0);
      return true;
    case SegmentScan::shift:
      for (std::int64_t t = 0; t < sm; ++t) {
        const std::int64_t s = t - op.periods;
        if (s >= 0 && s < sm)
          out.copy(out0 + static_cast<std::size_t>(t), in, static_cast<std::size_t>(rows[s]));
        else
          out.set_null(out0 + static_cast<std::size_t>(t));
      }
      return true;
    case SegmentScan::diff:
      for (std::int64_t t = 0; t < sm; ++t) {
        const std::int64_t s = t - op.periods;
        const double v = s >= 0 && s < sm
                             ? in.d(static_cast<std::size_t>(rows[t])) - in.d(static_cast<std::size_t>(rows[s]))
                             : segment_detail::nan();
        out.set_f(out0 + static_cast<std::size_t>(t), v);
      }
      return true;
    case SegmentScan::ffill:
    case SegmentScan::bfill: {
      const bool fwd = op.op == SegmentScan::ffill;
      std::int64_t have = -1;  // the row last seen with a value
      for (std::size_t k = 0; k < m; ++k) {
        const std::size_t t = fwd ? k : m - 1 - k;
        if (!in.null(static_cast<std::size_t>(rows[t]))) have = rows[t];
        if (have >= 0)
          out.copy(out0 + t, in, static_cast<std::size_t>(have));
        else
          out.set_null(out0 + t);
      }
      return true;
    }
    case SegmentScan::transform:
      if (!segment_op_is_sequential(op)) return false;
      segment_detail::broadcast(op.agg, in, rows, m, out, out0);
      return true;
    default:  // rolling
      return false;
  }
}

/// A value's sort word for sorted_segment_op (nulls aside): float64 in the IEEE total order (-0.0 before 0.0), the
/// other types (int64, timestamp, boolean, string codes) as signed integers.
SLAB_HD_INLINE std::uint64_t segment_value_word(const SegmentValues& in, std::size_t i) noexcept {
  return in.type == ElementType::float64 ? frame::detail::total_order_word(in.f(i))
                                         : static_cast<std::uint64_t>(in.i64(i)) ^ (std::uint64_t{1} << 63);
}

/**
 * @brief transform's nunique, median or quantile (segment_op_is_sorted) over one group: rows[t] (t < m) are its
 * rows sorted by (null, segment_value_word), nulls last, and sorted[t] = in.d(rows[t]). Every row of the group
 * gets the aggregate, at out0 + t: nunique counts distinct non-null values (-0.0 == 0.0), median and quantile are
 * holistic.hpp's formulas on the sorted non-null values.
 */
SLAB_HD inline void sorted_segment_op(const SegmentOp& op, const SegmentValues& in, const std::int64_t* rows,
                                      const double* sorted, std::size_t m, const SegmentResult& out, std::size_t out0) {
  std::size_t values = 0;
  while (values < m && !in.null(static_cast<std::size_t>(rows[values]))) ++values;
  if (op.agg == SegmentAgg::nunique) {
    std::int64_t distinct = 0;
    for (std::size_t t = 0; t < values; ++t) {
      const auto j = static_cast<std::size_t>(rows[t]);
      const auto p = static_cast<std::size_t>(rows[t > 0 ? t - 1 : 0]);
      const bool fresh = t == 0 || (in.type == ElementType::float64 ? in.f(j) != in.f(p) : in.i64(j) != in.i64(p));
      distinct += fresh ? 1 : 0;
    }
    for (std::size_t t = 0; t < m; ++t) out.set_i(out0 + t, distinct);
    return;
  }
  const double v =
      frame::detail::holistic_value(sorted, values, op.agg == SegmentAgg::median ? frame::detail::kMedian : op.q);
  for (std::size_t t = 0; t < m; ++t) out.set_f(out0 + t, v);
}

/**
 * @brief rolling (segment_op_is_windowed) over one group: x[t] (t < m) its values as doubles in row order (in.d of
 * its rows: a null is NaN), out[t] the result of row t: rolling.hpp's row window of op.window rows over the group's
 * own rows, by rolling_slide() as the host's rolling_kernel_rows, squared for the variance. `dq` starts empty (min
 * and max use it: a RollingDequeBuffer of m slots on both sides).
 */
template <class Deque>
SLAB_HD void segment_rolling(const SegmentOp& op, const double* x, std::size_t m, Deque& dq, double* out) {
  const std::int64_t window = op.window > 1 ? op.window : 1;
  rolling_slide(x, 0, static_cast<std::int64_t>(m), op.min_periods, op.rolling, window, RollingRowStart{window}, dq,
                out);
  if (op.rolling_var)
    for (std::size_t t = 0; t < m; ++t) out[t] *= out[t];
}

}  // namespace slab::frame::kernels
