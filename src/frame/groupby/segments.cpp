#include "frame/groupby/segments.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "frame/groupby/holistic.hpp"

namespace slab::frame::detail {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// pandas' compensated add (group_sum / group_mean): a compensation made NaN by an infinity is reset, so a sum
/// with +-inf stays +-inf.
struct KahanSum {
  double sum = 0, comp = 0;
  void add(double v) noexcept {
    const double y = v - comp;
    const double t = sum + y;
    comp = t - sum - y;
    if (comp != comp) comp = 0;
    sum = t;
  }
};

/// The group's aggregate, written to every one of its rows.
void broadcast(const GroupTransform& what, const ValueView& in, const std::int64_t* rows, std::size_t m,
               ResultColumn& out, std::size_t out0, std::vector<double>& scratch) {
  const bool isf = in.type == ElementType::float64;
  // The result, as one of: a double, an int64, a row of `in` to copy, or null.
  enum { kDouble, kInt, kRow, kNull } kind = kNull;
  double dv = kNaN;
  std::int64_t iv = 0;
  std::size_t row = 0;
  std::int64_t n = 0;  // non-null values
  switch (what.agg) {
    case AggOp::size:
      kind = kInt, iv = static_cast<std::int64_t>(m);
      break;
    case AggOp::count:
      for (std::size_t t = 0; t < m; ++t) n += in.null(static_cast<std::size_t>(rows[t])) ? 0 : 1;
      kind = kInt, iv = n;
      break;
    case AggOp::nunique: {
      std::vector<std::uint64_t> seen;
      seen.reserve(m);
      for (std::size_t t = 0; t < m; ++t) {
        const auto j = static_cast<std::size_t>(rows[t]);
        if (in.null(j)) continue;
        seen.push_back(isf ? std::bit_cast<std::uint64_t>(in.f(j) == 0 ? 0.0 : in.f(j))
                           : static_cast<std::uint64_t>(in.i64(j)));
      }
      std::sort(seen.begin(), seen.end());
      kind = kInt, iv = static_cast<std::int64_t>(std::unique(seen.begin(), seen.end()) - seen.begin());
      break;
    }
    case AggOp::sum:
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
    case AggOp::mean: {
      KahanSum s;
      for (std::size_t t = 0; t < m; ++t)
        if (!in.null(static_cast<std::size_t>(rows[t]))) s.add(in.d(static_cast<std::size_t>(rows[t]))), ++n;
      kind = kDouble, dv = n > 0 ? s.sum / static_cast<double>(n) : kNaN;
      break;
    }
    case AggOp::std:
    case AggOp::var: {
      double mean = 0, m2 = 0;
      for (std::size_t t = 0; t < m; ++t) {
        const auto j = static_cast<std::size_t>(rows[t]);
        if (in.null(j)) continue;
        const double x = in.d(j), old = mean;
        ++n;
        mean += (x - old) / static_cast<double>(n);
        m2 += (x - mean) * (x - old);
      }
      const double var = n > 1 ? m2 / static_cast<double>(n - 1) : kNaN;
      kind = kDouble, dv = what.agg == AggOp::std ? std::sqrt(var) : var;
      break;
    }
    case AggOp::min:
    case AggOp::max: {
      const bool mx = what.agg == AggOp::max;
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
    case AggOp::first:
    case AggOp::last:
      for (std::size_t k = 0; k < m; ++k) {
        const std::size_t t = what.agg == AggOp::first ? k : m - 1 - k;
        if (!in.null(static_cast<std::size_t>(rows[t]))) {
          kind = kRow, row = static_cast<std::size_t>(rows[t]);
          break;
        }
      }
      break;
    case AggOp::median:
    case AggOp::quantile:
      scratch.clear();
      for (std::size_t t = 0; t < m; ++t)
        if (!in.null(static_cast<std::size_t>(rows[t]))) scratch.push_back(in.d(static_cast<std::size_t>(rows[t])));
      std::sort(scratch.begin(), scratch.end());
      kind = kDouble, dv = holistic_value(scratch.data(), scratch.size(), what.agg == AggOp::median ? kMedian : what.q);
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

/// Running sum / product / min / max, nulls skipped (null at them), as pandas' group_cumsum (Kahan, no reset),
/// group_cumprod and group_cummin_max.
void scan(GroupScan op, const ValueView& in, const std::int64_t* rows, std::size_t m, ResultColumn& out,
          std::size_t out0) {
  if (out.type == ElementType::float64) {
    double acc = op == GroupScan::cumprod  ? 1.0
                 : op == GroupScan::cummin ? std::numeric_limits<double>::infinity()
                 : op == GroupScan::cummax ? -std::numeric_limits<double>::infinity()
                                           : 0.0;
    double comp = 0;
    for (std::size_t t = 0; t < m; ++t) {
      const auto j = static_cast<std::size_t>(rows[t]);
      if (in.null(j)) {
        out.set_f(out0 + t, kNaN);
        continue;
      }
      const double v = in.f(j);
      switch (op) {
        case GroupScan::cumsum: {
          const double y = v - comp;
          const double s = acc + y;
          comp = s - acc - y;
          acc = s;
          break;
        }
        case GroupScan::cumprod:
          acc *= v;
          break;
        case GroupScan::cummin:
          if (v < acc) acc = v;
          break;
        default:
          if (v > acc) acc = v;
          break;
      }
      out.set_f(out0 + t, acc);
    }
    return;
  }
  std::uint64_t acc = op == GroupScan::cumprod ? 1 : 0;  // unsigned: wraps modulo 2^64 without overflow
  std::int64_t best =
      op == GroupScan::cummin ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
  for (std::size_t t = 0; t < m; ++t) {
    const auto j = static_cast<std::size_t>(rows[t]);
    if (in.null(j)) {
      out.set_null(out0 + t);
      continue;
    }
    const std::int64_t v = in.i64(j);
    switch (op) {
      case GroupScan::cumsum:
        acc += static_cast<std::uint64_t>(v);
        out.set_i(out0 + t, static_cast<std::int64_t>(acc));
        break;
      case GroupScan::cumprod:
        acc *= static_cast<std::uint64_t>(v);
        out.set_i(out0 + t, static_cast<std::int64_t>(acc));
        break;
      case GroupScan::cummin:
        best = std::min(best, v);
        out.set_i(out0 + t, best);
        break;
      default:
        best = std::max(best, v);
        out.set_i(out0 + t, best);
        break;
    }
  }
}

}  // namespace

double ValueView::d(std::size_t i) const noexcept {
  if (null(i)) return kNaN;
  return type == ElementType::float64 ? f(i) : static_cast<double>(i64(i));
}

void ResultColumn::set_null(std::size_t i) noexcept {
  if (valid) valid[i] = 0;
  switch (type) {
    case ElementType::float64:
      set_f(i, kNaN);
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

void ResultColumn::set_i(std::size_t i, std::int64_t v) noexcept {
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

void ResultColumn::copy(std::size_t i, const ValueView& in, std::size_t j) noexcept {
  if (in.null(j))
    set_null(i);
  else if (type == ElementType::float64)
    set_f(i, in.d(j));
  else
    set_i(i, in.i64(j));
}

void transform_segment(const GroupTransform& what, const ValueView& in, const std::int64_t* rows, std::size_t m,
                       ResultColumn& out, std::size_t out0, std::vector<double>& scratch) {
  const auto sm = static_cast<std::int64_t>(m);
  switch (what.op) {
    case GroupScan::cumcount:
      for (std::size_t t = 0; t < m; ++t)
        out.set_i(out0 + t, what.ascending ? static_cast<std::int64_t>(t) : static_cast<std::int64_t>(m - 1 - t));
      return;
    case GroupScan::cumsum:
    case GroupScan::cumprod:
    case GroupScan::cummin:
    case GroupScan::cummax:
      scan(what.op, in, rows, m, out, out0);
      return;
    case GroupScan::shift:
      for (std::int64_t t = 0; t < sm; ++t) {
        const std::int64_t s = t - what.periods;
        if (s >= 0 && s < sm)
          out.copy(out0 + static_cast<std::size_t>(t), in, static_cast<std::size_t>(rows[s]));
        else
          out.set_null(out0 + static_cast<std::size_t>(t));
      }
      return;
    case GroupScan::diff:
      for (std::int64_t t = 0; t < sm; ++t) {
        const std::int64_t s = t - what.periods;
        const double v =
            s >= 0 && s < sm ? in.d(static_cast<std::size_t>(rows[t])) - in.d(static_cast<std::size_t>(rows[s])) : kNaN;
        out.set_f(out0 + static_cast<std::size_t>(t), v);
      }
      return;
    case GroupScan::ffill:
    case GroupScan::bfill: {
      const bool fwd = what.op == GroupScan::ffill;
      std::int64_t have = -1;  // the row last seen with a value
      for (std::size_t k = 0; k < m; ++k) {
        const std::size_t t = fwd ? k : m - 1 - k;
        if (!in.null(static_cast<std::size_t>(rows[t]))) have = rows[t];
        if (have >= 0)
          out.copy(out0 + t, in, static_cast<std::size_t>(have));
        else
          out.set_null(out0 + t);
      }
      return;
    }
    case GroupScan::transform:
      broadcast(what, in, rows, m, out, out0, scratch);
      return;
    case GroupScan::rolling: {
      scratch.resize(m);
      for (std::size_t t = 0; t < m; ++t) scratch[t] = in.d(static_cast<std::size_t>(rows[t]));
      double* dst = reinterpret_cast<double*>(out.data) + out0;
      rolling_kernel_rows(scratch.data(), 0, m, static_cast<std::size_t>(what.window.rows),
                          static_cast<std::size_t>(what.window.effective_min_periods()), what.rolling_op, dst);
      if (what.rolling_var)
        for (std::size_t t = 0; t < m; ++t) dst[t] *= dst[t];
      return;
    }
  }
}

}  // namespace slab::frame::detail
