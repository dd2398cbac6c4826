#include "frame/groupby/segments.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "frame/groupby/holistic.hpp"

namespace slab::frame::detail {

namespace {

static_assert(static_cast<int>(kernels::SegmentScan::rolling) == static_cast<int>(GroupScan::rolling) &&
              static_cast<int>(kernels::SegmentScan::cumcount) == static_cast<int>(GroupScan::cumcount) &&
              static_cast<int>(kernels::SegmentScan::transform) == static_cast<int>(GroupScan::transform));
static_assert(static_cast<int>(kernels::SegmentAgg::quantile) == static_cast<int>(AggOp::quantile) &&
              static_cast<int>(kernels::SegmentAgg::first) == static_cast<int>(AggOp::first) &&
              static_cast<int>(kernels::SegmentAgg::size) == static_cast<int>(AggOp::size));

/// transform's aggregates that need the group's values sorted: nunique, median, quantile.
void broadcast_sorted(const GroupTransform& what, const ValueView& in, const std::int64_t* rows, std::size_t m,
                      ResultColumn& out, std::size_t out0, std::vector<double>& scratch) {
  if (what.agg == AggOp::nunique) {
    const bool isf = in.type == ElementType::float64;
    std::vector<std::uint64_t> seen;
    seen.reserve(m);
    for (std::size_t t = 0; t < m; ++t) {
      const auto j = static_cast<std::size_t>(rows[t]);
      if (in.null(j)) continue;
      seen.push_back(isf ? std::bit_cast<std::uint64_t>(in.f(j) == 0 ? 0.0 : in.f(j))
                         : static_cast<std::uint64_t>(in.i64(j)));
    }
    std::sort(seen.begin(), seen.end());
    const auto distinct = static_cast<std::int64_t>(std::unique(seen.begin(), seen.end()) - seen.begin());
    for (std::size_t t = 0; t < m; ++t) out.set_i(out0 + t, distinct);
    return;
  }
  scratch.clear();
  for (std::size_t t = 0; t < m; ++t)
    if (!in.null(static_cast<std::size_t>(rows[t]))) scratch.push_back(in.d(static_cast<std::size_t>(rows[t])));
  std::sort(scratch.begin(), scratch.end());
  const double v = holistic_value(scratch.data(), scratch.size(), what.agg == AggOp::median ? kMedian : what.q);
  for (std::size_t t = 0; t < m; ++t) out.set_f(out0 + t, v);
}

}  // namespace

kernels::SegmentOp segment_op_of(const GroupTransform& what) noexcept {
  kernels::SegmentOp op;
  op.op = static_cast<kernels::SegmentScan>(what.op);
  op.agg = static_cast<kernels::SegmentAgg>(what.agg);
  op.periods = what.periods;
  op.ascending = what.ascending;
  return op;
}

void transform_segment(const GroupTransform& what, const ValueView& in, const std::int64_t* rows, std::size_t m,
                       ResultColumn& out, std::size_t out0, std::vector<double>& scratch) {
  if (kernels::segment_op(segment_op_of(what), in, rows, m, out, out0)) return;
  if (what.op == GroupScan::transform) {
    broadcast_sorted(what, in, rows, m, out, out0, scratch);
    return;
  }
  // rolling
  scratch.resize(m);
  for (std::size_t t = 0; t < m; ++t) scratch[t] = in.d(static_cast<std::size_t>(rows[t]));
  double* dst = reinterpret_cast<double*>(out.data) + out0;
  rolling_kernel_rows(scratch.data(), 0, m, static_cast<std::size_t>(what.window.rows),
                      static_cast<std::size_t>(what.window.effective_min_periods()), what.rolling_op, dst);
  if (what.rolling_var)
    for (std::size_t t = 0; t < m; ++t) dst[t] *= dst[t];
}

}  // namespace slab::frame::detail
