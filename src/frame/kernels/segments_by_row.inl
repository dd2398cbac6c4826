#pragma once
// The group transforms whose every result is exact whatever the order it is accumulated in (segment_op_by_rows):
// one thread a row, and segmented scans (thrust::inclusive_scan_by_key over the segment number of each sorted
// position) where a row needs what comes before or after it in its group. transform.inl takes it for these
// operations instead of the one-thread-a-group pass, whose time is its largest group's: a frame with a few huge
// groups ran on a few threads.
//
// Equality with the host's sequential pass (segments_hd.hpp's segment_op), bit for bit:
// - cumcount, shift, diff, transform's size: each row's result is a function of its position in its group and of
//   one other row; the same expressions as segment_op.
// - integer cumsum, cumprod (modulo 2^64), cummin, cummax; transform's count and integer sum: exact, associative.
// - float cummin / cummax: the scan keeps the earlier of two equal values (v < acc, as segment_op), so -0.0 and
//   0.0 come out as the host's; a null is the operation's identity (+-inf) and comes out NaN.
// - ffill, bfill, transform's first, last, min and max: scans of row positions (the latest with a value; the
//   best value, the earliest of equals), then a copy of that row, as segment_op's copy.
// - transform's nunique, median and quantile (sorted_segment_op_by_rows, after the sort by value): a segmented
//   count, then holistic.hpp's formulas on the group's sorted values, as sorted_segment_op.
// Float cumsum and cumprod and transform's float sum, mean, std and var run in pieces (segments_by_piece.inl):
// their rounding depends on the order of the additions (pandas' Kahan and Welford loops); rolling runs in runs of
// each group (RollingKernels::groups).
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/reverse_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/transform.h>

#include "core/kernels/scratch.hpp"
#include "frame/kernels/segments_hd.hpp"

namespace slab::frame::kernels {

/// Whether segment_op_by_rows computes `op` over values of type `in` into a result of type `out` (the rest take
/// segment_op_by_pieces, sorted_segment_op_by_rows or RollingKernels::groups).
SLAB_HD_INLINE bool segment_op_is_by_rows(const SegmentOp& op, ElementType in, ElementType out) noexcept {
  switch (op.op) {
    case SegmentScan::cumcount:
    case SegmentScan::shift:
    case SegmentScan::diff:
    case SegmentScan::ffill:
    case SegmentScan::bfill:
    case SegmentScan::cummin:
    case SegmentScan::cummax:
      return true;
    case SegmentScan::cumsum:
    case SegmentScan::cumprod:
      return out != ElementType::float64;
    case SegmentScan::transform:
      switch (op.agg) {
        case SegmentAgg::size:
        case SegmentAgg::count:
        case SegmentAgg::min:
        case SegmentAgg::max:
        case SegmentAgg::first:
        case SegmentAgg::last:
          return true;
        case SegmentAgg::sum:
          return in != ElementType::float64;
        default:
          return false;
      }
    default:
      return false;
  }
}

namespace by_rows_detail {

/// A sorted position's group: group[j] - 1 (group[] is the inclusive count of segment heads), its rows
/// offsets[g] .. offsets[g + 1].
struct Segment {
  std::int64_t start, end;
};
SLAB_HD_INLINE Segment segment_of(const std::int64_t* group, const std::int64_t* offsets, std::int64_t j) noexcept {
  const std::int64_t g = group[j] - 1;
  return {offsets[g], offsets[g + 1]};
}

struct HeadCount {
  SLAB_HD std::int64_t operator()(std::uint8_t head) const { return head ? 1 : 0; }
};

/// cumcount, shift, diff and transform's size: each row from its position in its group.
struct RowPass {
  SegmentOp op;
  SegmentValues in;
  SegmentResult out;
  const std::int64_t* perm;
  const std::int64_t* offsets;
  const std::int64_t* group;
  SLAB_HD void operator()(std::int64_t j) const {
    const Segment g = segment_of(group, offsets, j);
    const std::int64_t t = j - g.start, m = g.end - g.start;
    const auto at = static_cast<std::size_t>(j);
    switch (op.op) {
      case SegmentScan::cumcount:
        out.set_i(at, op.ascending ? t : m - 1 - t);
        break;
      case SegmentScan::shift: {
        const std::int64_t s = t - op.periods;
        if (s >= 0 && s < m)
          out.copy(at, in, static_cast<std::size_t>(perm[g.start + s]));
        else
          out.set_null(at);
        break;
      }
      case SegmentScan::diff: {
        const std::int64_t s = t - op.periods;
        out.set_f(at, s >= 0 && s < m
                          ? in.d(static_cast<std::size_t>(perm[j])) - in.d(static_cast<std::size_t>(perm[g.start + s]))
                          : segment_detail::nan());
        break;
      }
      default:  // transform's size
        out.set_i(at, m);
        break;
    }
  }
};

/// A position's own index where its row has a value, -1 where it is null.
struct PositionIfValue {
  SegmentValues in;
  const std::int64_t* perm;
  SLAB_HD std::int64_t operator()(std::int64_t j) const { return in.null(static_cast<std::size_t>(perm[j])) ? -1 : j; }
};

/// The later of two positions that has a value (ffill scanning forward, bfill backward).
struct LatestPosition {
  SLAB_HD std::int64_t operator()(std::int64_t a, std::int64_t b) const { return b >= 0 ? b : a; }
};

/// The position of the better value (min or max), the earlier (a) of equal ones; -1 (null) loses.
struct BestPosition {
  SegmentValues in;
  const std::int64_t* perm;
  bool max;
  SLAB_HD std::int64_t operator()(std::int64_t a, std::int64_t b) const {
    if (a < 0) return b;
    if (b < 0) return a;
    const auto ra = static_cast<std::size_t>(perm[a]), rb = static_cast<std::size_t>(perm[b]);
    const bool better = in.type == ElementType::float64 ? (max ? in.f(rb) > in.f(ra) : in.f(rb) < in.f(ra))
                                                        : (max ? in.i64(rb) > in.i64(ra) : in.i64(rb) < in.i64(ra));
    return better ? b : a;
  }
};

/// Where a row's result is read from the position scan: its own position (ffill, bfill), its group's last
/// (transform's last, min, max) or first (transform's first).
enum class ReadAt : std::uint8_t { own, group_last, group_first };

struct CopyPosition {
  SegmentValues in;
  SegmentResult out;
  const std::int64_t* perm;
  const std::int64_t* offsets;
  const std::int64_t* group;
  const std::int64_t* position;
  ReadAt read;
  SLAB_HD void operator()(std::int64_t j) const {
    const Segment g = segment_of(group, offsets, j);
    const std::int64_t p = position[read == ReadAt::own ? j : read == ReadAt::group_last ? g.end - 1 : g.start];
    if (p >= 0)
      out.copy(static_cast<std::size_t>(j), in, static_cast<std::size_t>(perm[p]));
    else
      out.set_null(static_cast<std::size_t>(j));
  }
};

/// Float cummin / cummax: a null is the identity; the earlier (a) of equal values stays, as segment_op's v < acc.
struct FloatValueOrIdentity {
  SegmentValues in;
  const std::int64_t* perm;
  double identity;
  SLAB_HD double operator()(std::int64_t j) const {
    const auto r = static_cast<std::size_t>(perm[j]);
    return in.null(r) ? identity : in.f(r);
  }
};
struct FloatExtreme {
  bool max;
  SLAB_HD double operator()(double a, double b) const { return (max ? b > a : b < a) ? b : a; }
};
struct WriteFloatScan {
  SegmentValues in;
  SegmentResult out;
  const std::int64_t* perm;
  const double* scan;
  SLAB_HD void operator()(std::int64_t j) const {
    const auto at = static_cast<std::size_t>(j);
    out.set_f(at, in.null(static_cast<std::size_t>(perm[j])) ? segment_detail::nan() : scan[j]);
  }
};

/// Integer cumsum, cumprod (unsigned: modulo 2^64), cummin, cummax, and transform's count and sum, on 64-bit words
/// (min and max compare them as signed); a null is the operation's identity.
struct IntScan {
  SegmentScan op;  ///< cumsum (also count and sum), cumprod, cummin or cummax
  SLAB_HD std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const {
    switch (op) {
      case SegmentScan::cumprod:
        return a * b;
      case SegmentScan::cummin:
        return static_cast<std::int64_t>(b) < static_cast<std::int64_t>(a) ? b : a;
      case SegmentScan::cummax:
        return static_cast<std::int64_t>(b) > static_cast<std::int64_t>(a) ? b : a;
      default:
        return a + b;
    }
  }
  SLAB_HD std::uint64_t identity() const {
    switch (op) {
      case SegmentScan::cumprod:
        return 1;
      case SegmentScan::cummin:
        return static_cast<std::uint64_t>(segment_detail::kInt64Max);
      case SegmentScan::cummax:
        return static_cast<std::uint64_t>(segment_detail::kInt64Min);
      default:
        return 0;
    }
  }
};
struct IntValueOrIdentity {
  SegmentValues in;
  const std::int64_t* perm;
  IntScan scan;
  bool count;  ///< 1 for each value instead of the value
  SLAB_HD std::uint64_t operator()(std::int64_t j) const {
    const auto r = static_cast<std::size_t>(perm[j]);
    if (in.null(r)) return scan.identity();
    return count ? 1 : static_cast<std::uint64_t>(in.i64(r));
  }
};
/// A running value at each row (null where the row is), or the group's total (its last position) at every row.
struct WriteIntScan {
  SegmentValues in;
  SegmentResult out;
  const std::int64_t* perm;
  const std::int64_t* offsets;
  const std::int64_t* group;
  const std::uint64_t* scan;
  bool total;
  SLAB_HD void operator()(std::int64_t j) const {
    const auto at = static_cast<std::size_t>(j);
    if (total)
      out.set_i(at, static_cast<std::int64_t>(scan[segment_of(group, offsets, j).end - 1]));
    else if (in.null(static_cast<std::size_t>(perm[j])))
      out.set_null(at);
    else
      out.set_i(at, static_cast<std::int64_t>(scan[j]));
  }
};

/// transform's nunique, median and quantile over positions sorted by (key, null, value), nulls last in a group:
/// 1 for each value (median, quantile: the group's count of values), or for each value that differs from the one
/// before it in its group (nunique: -0.0 == 0.0, as sorted_segment_op).
struct SortedValueCount {
  SegmentValues in;
  const std::int64_t* perm;
  const std::int64_t* offsets;
  const std::int64_t* group;
  bool distinct;
  SLAB_HD std::uint64_t operator()(std::int64_t j) const {
    const auto r = static_cast<std::size_t>(perm[j]);
    if (in.null(r)) return 0;
    if (!distinct || j == segment_of(group, offsets, j).start) return 1;
    const auto p = static_cast<std::size_t>(perm[j - 1]);  // a value too: nulls come last
    return (in.type == ElementType::float64 ? in.f(r) != in.f(p) : in.i64(r) != in.i64(p)) ? 1 : 0;
  }
};
/// Every row of a group: its distinct count, or holistic.hpp's median / quantile of its sorted values (sorted[s ..
/// s + count), in.d of the sorted rows).
struct WriteSortedAggregate {
  SegmentOp op;
  SegmentResult out;
  const double* sorted;
  const std::int64_t* offsets;
  const std::int64_t* group;
  const std::uint64_t* count;
  SLAB_HD void operator()(std::int64_t j) const {
    const Segment g = segment_of(group, offsets, j);
    const std::uint64_t c = count[g.end - 1];
    if (op.agg == SegmentAgg::nunique)
      out.set_i(static_cast<std::size_t>(j), static_cast<std::int64_t>(c));
    else
      out.set_f(static_cast<std::size_t>(j),
                frame::detail::holistic_value(sorted + g.start, static_cast<std::size_t>(c),
                                              op.agg == SegmentAgg::median ? frame::detail::kMedian : op.q));
  }
};

/// group[j]: the inclusive count of segment heads up to sorted position j (its group's number + 1).
template <class B>
slab::kernels::Scratch<std::int64_t, B> group_numbers(B& b, const std::uint8_t* heads, std::int64_t n) {
  slab::kernels::Scratch<std::int64_t, B> group(b, n);
  thrust::inclusive_scan(b.policy(), thrust::make_transform_iterator(heads, HeadCount{}),
                         thrust::make_transform_iterator(heads + n, HeadCount{}), group.get());
  return group;
}

}  // namespace by_rows_detail

/**
 * @brief segment_op(op) over every group of n sorted positions (segment_op_is_by_rows(op, in.type, out.type)):
 * position j's row perm[j], written to out at j; heads[j] = 1 where a group starts, groups at offsets[g] ..
 * offsets[g + 1]. Bitwise segment_op's results (see the top of this file). Asynchronous.
 */
template <class B>
void segment_op_by_rows(B& b, const SegmentOp& op, const SegmentValues& in, const SegmentResult& out,
                        const std::int64_t* perm, const std::uint8_t* heads, const std::int64_t* offsets,
                        std::int64_t n) {
  using namespace by_rows_detail;
  using I64 = slab::kernels::Scratch<std::int64_t, B>;
  thrust::counting_iterator<std::int64_t> j(0);
  const I64 group = group_numbers(b, heads, n);
  const std::int64_t* g = group.get();
  const thrust::equal_to<std::int64_t> same;
  const bool by_position = op.op == SegmentScan::cumcount || op.op == SegmentScan::shift ||
                           op.op == SegmentScan::diff ||
                           (op.op == SegmentScan::transform && op.agg == SegmentAgg::size);
  if (by_position) {
    thrust::for_each(b.policy(), j, j + n, RowPass{op, in, out, perm, offsets, g});
    return;
  }
  const bool positions = op.op == SegmentScan::ffill || op.op == SegmentScan::bfill ||
                         (op.op == SegmentScan::transform && op.agg != SegmentAgg::count && op.agg != SegmentAgg::sum);
  if (positions) {
    I64 own(b, n), scanned(b, n);
    thrust::transform(b.policy(), j, j + n, own.get(), PositionIfValue{in, perm});
    ReadAt read = ReadAt::own;
    if (op.op == SegmentScan::ffill || (op.op == SegmentScan::transform && op.agg == SegmentAgg::last)) {
      thrust::inclusive_scan_by_key(b.policy(), g, g + n, own.get(), scanned.get(), same, LatestPosition{});
      if (op.op == SegmentScan::transform) read = ReadAt::group_last;
    } else if (op.op == SegmentScan::bfill || op.agg == SegmentAgg::first) {
      auto rg = thrust::make_reverse_iterator(g + n);
      thrust::inclusive_scan_by_key(b.policy(), rg, rg + n, thrust::make_reverse_iterator(own.get() + n),
                                    thrust::make_reverse_iterator(scanned.get() + n), same, LatestPosition{});
      if (op.op == SegmentScan::transform) read = ReadAt::group_first;
    } else {  // transform's min, max
      thrust::inclusive_scan_by_key(b.policy(), g, g + n, own.get(), scanned.get(), same,
                                    BestPosition{in, perm, op.agg == SegmentAgg::max});
      read = ReadAt::group_last;
    }
    thrust::for_each(b.policy(), j, j + n, CopyPosition{in, out, perm, offsets, g, scanned.get(), read});
    return;
  }
  if (out.type == ElementType::float64) {  // cummin, cummax of floats
    const bool max = op.op == SegmentScan::cummax;
    slab::kernels::Scratch<double, B> values(b, n), scanned(b, n);
    thrust::transform(b.policy(), j, j + n, values.get(),
                      FloatValueOrIdentity{in, perm, max ? -segment_detail::infinity() : segment_detail::infinity()});
    thrust::inclusive_scan_by_key(b.policy(), g, g + n, values.get(), scanned.get(), same, FloatExtreme{max});
    thrust::for_each(b.policy(), j, j + n, WriteFloatScan{in, out, perm, scanned.get()});
    return;
  }
  const bool total = op.op == SegmentScan::transform;  // count, sum
  const IntScan scan{total ? SegmentScan::cumsum : op.op};
  slab::kernels::Scratch<std::uint64_t, B> values(b, n), scanned(b, n);
  thrust::transform(b.policy(), j, j + n, values.get(),
                    IntValueOrIdentity{in, perm, scan, total && op.agg == SegmentAgg::count});
  thrust::inclusive_scan_by_key(b.policy(), g, g + n, values.get(), scanned.get(), same, scan);
  thrust::for_each(b.policy(), j, j + n, WriteIntScan{in, out, perm, offsets, g, scanned.get(), total});
}

/**
 * @brief sorted_segment_op(op) (transform's nunique, median, quantile) over every group of n positions sorted by
 * (key, null, segment_value_word): position j's row perm[j], sorted[j] = in.d(perm[j]); the aggregate written to
 * out at every position of its group. One thread a row: a segmented count of the values (nunique: of the values
 * unlike the one before), then holistic.hpp's formulas, so bitwise sorted_segment_op's. Asynchronous.
 */
template <class B>
void sorted_segment_op_by_rows(B& b, const SegmentOp& op, const SegmentValues& in, const SegmentResult& out,
                               const std::int64_t* perm, const double* sorted, const std::uint8_t* heads,
                               const std::int64_t* offsets, std::int64_t n) {
  using namespace by_rows_detail;
  const auto group = group_numbers(b, heads, n);
  const std::int64_t* g = group.get();
  thrust::counting_iterator<std::int64_t> j(0);
  slab::kernels::Scratch<std::uint64_t, B> counted(b, n), count(b, n);
  thrust::transform(b.policy(), j, j + n, counted.get(),
                    SortedValueCount{in, perm, offsets, g, op.agg == SegmentAgg::nunique});
  thrust::inclusive_scan_by_key(b.policy(), g, g + n, counted.get(), count.get());
  thrust::for_each(b.policy(), j, j + n, WriteSortedAggregate{op, out, sorted, offsets, g, count.get()});
}

}  // namespace slab::frame::kernels
