#include "frame/groupby/segments.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "frame/groupby/holistic.hpp"

namespace slab::frame::detail {

namespace {

static_assert(static_cast<int>(kernels::SegmentScan::rolling) == static_cast<int>(GroupScan::rolling) &&
              static_cast<int>(kernels::SegmentScan::cumcount) == static_cast<int>(GroupScan::cumcount) &&
              static_cast<int>(kernels::SegmentScan::transform) == static_cast<int>(GroupScan::transform));
static_assert(static_cast<int>(kernels::SegmentAgg::quantile) == static_cast<int>(AggOp::quantile) &&
              static_cast<int>(kernels::SegmentAgg::first) == static_cast<int>(AggOp::first) &&
              static_cast<int>(kernels::SegmentAgg::size) == static_cast<int>(AggOp::size));
static_assert(static_cast<int>(kernels::RollingKind::count) == static_cast<int>(RollingOp::count) &&
              static_cast<int>(kernels::RollingKind::std) == static_cast<int>(RollingOp::std));

/// transform's aggregates of the group's values sorted (nunique, median, quantile): its rows sorted by (null,
/// value word), as the device sorts them, then segments_hd.hpp's sorted_segment_op.
void broadcast_sorted(const GroupTransform& what, const ValueView& in, const std::int64_t* rows, std::size_t m,
                      ResultColumn& out, std::size_t out0, std::vector<double>& scratch) {
  thread_local std::vector<std::int64_t> order;
  order.assign(rows, rows + m);
  auto word = [&](std::int64_t r) {
    const auto j = static_cast<std::size_t>(r);
    return std::pair<bool, std::uint64_t>(in.null(j), in.null(j) ? 0 : kernels::segment_value_word(in, j));
  };
  std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return word(a) < word(b); });
  scratch.resize(m);
  for (std::size_t t = 0; t < m; ++t) scratch[t] = in.d(static_cast<std::size_t>(order[t]));
  kernels::sorted_segment_op(segment_op_of(what), in, order.data(), scratch.data(), m, out, out0);
}

}  // namespace

kernels::SegmentOp segment_op_of(const GroupTransform& what) noexcept {
  kernels::SegmentOp op;
  op.op = static_cast<kernels::SegmentScan>(what.op);
  op.agg = static_cast<kernels::SegmentAgg>(what.agg);
  op.periods = what.periods;
  op.ascending = what.ascending;
  op.q = what.q;
  op.window = what.window.rows;
  op.min_periods = std::max<std::int64_t>(0, what.window.effective_min_periods());
  op.rolling = static_cast<kernels::RollingKind>(what.rolling_op);
  op.rolling_var = what.rolling_var;
  return op;
}

void transform_segment(const GroupTransform& what, const ValueView& in, const std::int64_t* rows, std::size_t m,
                       ResultColumn& out, std::size_t out0, std::vector<double>& scratch) {
  if (kernels::segment_op(segment_op_of(what), in, rows, m, out, out0)) return;
  if (what.op == GroupScan::transform) {
    broadcast_sorted(what, in, rows, m, out, out0, scratch);
    return;
  }
  // rolling: the group's values in row order, slid as the device slides them
  scratch.resize(m);
  for (std::size_t t = 0; t < m; ++t) scratch[t] = in.d(static_cast<std::size_t>(rows[t]));
  thread_local std::vector<std::int64_t> slots;  // min/max's deque, reused between groups (no allocation a group)
  slots.resize(m);
  kernels::RollingDequeBuffer dq{slots.data()};
  kernels::segment_rolling(segment_op_of(what), scratch.data(), m, dq, reinterpret_cast<double*>(out.data) + out0);
}

}  // namespace slab::frame::detail
