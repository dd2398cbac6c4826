#pragma once
// The group transforms whose float results depend on the order of their additions (segment_op_by_pieces): float
// cumsum and cumprod, and transform's float sum, mean, std and var. One thread a group made their time their
// largest group's (a frame of a few huge groups ran on a few threads); they run in pieces instead, groupby's
// canonical unit (kGroupPiece consecutive rows of a group, groupby.hpp):
// 1. each piece folds its rows in row order, from the identity, into a state (cumsum: the compensated sum and its
//    compensation, cumprod: the product as a mantissa and an exponent, sum and mean: KahanSum and the count, std
//    and var: Welford's count, mean and M2), as segments_hd.hpp's loops do;
// 2. each group walks its pieces in order: a scan records the state before each piece (cumsum_step of the
//    pieces' sums; the product of their products, but a piece whose running products from that state come near
//    the range of doubles, by the exponents the piece's own reach, is multiplied again row by row, so that
//    overflow to an infinity and underflow to 0 stick where the host's do), an aggregate combines them (KahanSum
//    of the sums, Chan's formula, agg_hd.hpp's chan_combine);
// 3. a scan's pieces run float_scan_from() again from the state before them; an aggregate is written to each row.
// Equality with the host's sequential pass (segment_op): a group of at most kGroupPiece rows is one piece that
// starts from the identity (or is taken as it is), so its results are bitwise the host's; a larger one differs
// only in the rounding of its additions and products (exactly summable data, and products of powers of two:
// bitwise), with infinities, NaN and zeros where the host has them. The same inputs give the same bits run to run.
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/scan.h>
#include <thrust/transform.h>

#include "core/kernels/scratch.hpp"
#include "frame/kernels/agg_hd.hpp"
#include "frame/kernels/groupby.hpp"
#include "frame/kernels/segments_hd.hpp"

namespace slab::frame::kernels {

/// Whether segment_op_by_pieces computes `op` over values of type `in` into a result of type `out`: exactly the
/// sequential operations that segment_op_is_by_rows refuses.
SLAB_HD_INLINE bool segment_op_is_by_pieces(const SegmentOp& op, ElementType in, ElementType out) noexcept {
  switch (op.op) {
    case SegmentScan::cumsum:
    case SegmentScan::cumprod:
      return out == ElementType::float64;
    case SegmentScan::transform:
      switch (op.agg) {
        case SegmentAgg::sum:
          return in == ElementType::float64;
        case SegmentAgg::mean:
        case SegmentAgg::std:
        case SegmentAgg::var:
          return true;
        default:
          return false;
      }
    default:
      return false;
  }
}

namespace by_piece_detail {

/// One piece's (or a group's) state: cumsum (a, b) = (sum, compensation); sum and mean (a, b) = KahanSum's (sum,
/// comp) and n the values; std and var (a, b) = Welford's (mean, M2) and n the values. cumprod: the product a 2^n
/// with 0.5 <= |a| < 1 while it is finite and not 0 (a alone once it is 0, infinite or NaN: those stick), and
/// lo, hi: the least and greatest exponent n of its running products, so that a group's walk sees where a
/// running product from the state before the piece leaves the doubles' range although the piece's own does not.
struct PieceState {
  double a = 0, b = 0;
  std::int64_t n = 0, lo = 0, hi = 0;
};

/// v (finite, not 0) = m 2^e with 0.5 <= |m| < 1 (frexp's convention), from its bits.
SLAB_HD_INLINE std::int64_t split_exponent(double v, double& m) noexcept {
  std::uint64_t u = slab::kernels::double_bits(v);
  std::int64_t shift = 0;
  if (((u >> 52) & 0x7FF) == 0) {  // subnormal: scale it into the normal range first
    u = slab::kernels::double_bits(v * 0x1p54);
    shift = -54;
  }
  m = slab::kernels::bits_double((u & ~(std::uint64_t{0x7FF} << 52)) | (std::uint64_t{1022} << 52));
  return static_cast<std::int64_t>((u >> 52) & 0x7FF) - 1022 + shift;
}

SLAB_HD_INLINE bool finite_nonzero(double v) noexcept { return slab::kernels::is_finite(v) && v != 0; }

/// a 2^e as a double: infinite past the range, 0 or subnormal below it (one rounding).
SLAB_HD_INLINE double scaled(double a, std::int64_t e) noexcept {
  while (e != 0) {
    const std::int64_t step = e > 1000 ? 1000 : e < -1000 ? -1000 : e;
    a *= slab::kernels::bits_double(static_cast<std::uint64_t>(step + 1023) << 52);
    e -= step;
  }
  return a;
}

/// cumprod's state times v (a row's value, or a later piece's mantissa with its exponent ev).
SLAB_HD_INLINE void multiply(PieceState& s, double v, std::int64_t ev) noexcept {
  if (!finite_nonzero(s.a) || !finite_nonzero(v)) {
    s.a *= v;  // 0, an infinity or NaN: sticks (0 x inf = NaN, signs multiply), as the host's running product
    return;
  }
  double m = 0;
  s.n += ev + split_exponent(s.a * v, m);
  s.a = m;
}

/// The identity state of op (cumprod's product 1 = 0.5 2^1).
SLAB_HD_INLINE PieceState identity(const SegmentOp& op) noexcept {
  PieceState s;
  if (op.op == SegmentScan::cumprod) s.a = 0.5, s.n = s.lo = s.hi = 1;
  return s;
}

/// Step 1: piece p's rows folded in row order, as segments_hd.hpp's loops fold them.
struct FoldPiece {
  SegmentOp op;
  SegmentValues in;
  const std::int64_t* perm;
  const std::int64_t* piece0;
  const std::int64_t* offsets;
  std::int64_t groups;
  PieceState* pieces;
  SLAB_HD void operator()(std::int64_t p) const {
    const GroupPiece piece = piece_at(piece0, offsets, groups, p);
    if (piece.group < 0) return;
    PieceState s = identity(op);
    segment_detail::KahanSum sum;
    for (std::int64_t t = piece.begin; t < piece.end; ++t) {
      const auto j = static_cast<std::size_t>(perm[t]);
      if (in.null(j)) continue;
      const double x = in.d(j);
      switch (op.op) {
        case SegmentScan::cumsum:
          segment_detail::cumsum_step(s.a, s.b, x);
          break;
        case SegmentScan::cumprod: {
          double m = x;
          const std::int64_t e = finite_nonzero(x) ? split_exponent(x, m) : 0;
          multiply(s, m, e);
          if (finite_nonzero(s.a)) s.lo = s.n < s.lo ? s.n : s.lo, s.hi = s.n > s.hi ? s.n : s.hi;
          break;
        }
        default:  // transform
          ++s.n;
          if (op.agg == SegmentAgg::std || op.agg == SegmentAgg::var)
            welford_add(s.a, s.b, static_cast<double>(s.n), x);  // as segment_detail::broadcast
          else
            sum.add(x);
          break;
      }
    }
    if (op.op == SegmentScan::transform && op.agg != SegmentAgg::std && op.agg != SegmentAgg::var)
      s.a = sum.sum, s.b = sum.comp;
    pieces[p] = s;
  }
};

/// Step 2: group g's pieces in order. A scan: before[q] = the state before piece q. An aggregate: total[g].
struct WalkPieces {
  SegmentOp op;
  SegmentValues in;
  const std::int64_t* perm;
  const std::int64_t* offsets;
  const std::int64_t* piece0;
  const PieceState* pieces;
  PieceState* before;
  PieceState* total;
  SLAB_HD void operator()(std::int64_t g) const {
    const std::int64_t q0 = piece0[g], q1 = piece0[g + 1];
    if (op.op != SegmentScan::transform) {
      PieceState s = identity(op);
      for (std::int64_t q = q0; q < q1; ++q) {
        const PieceState& p = pieces[q];
        if (op.op == SegmentScan::cumsum) {
          before[q] = s;
          segment_detail::cumsum_step(s.a, s.b, p.a);
          continue;
        }
        const double from = finite_nonzero(s.a) ? scaled(s.a, s.n) : s.a;
        before[q] = {from, 0, 0, 0, 0};
        // The running products from s are s times the piece's, of exponent s.n + n - 1 or s.n + n. Where they
        // come near the range's bounds (subnormal, or past the largest double: the host's product sticks at an
        // infinity or 0 there), the piece is multiplied again row by row from `from`, as the host does.
        if (finite_nonzero(s.a) && (s.n + p.hi > 1020 || s.n + p.lo < -1018)) {
          const GroupPiece piece = group_piece(offsets, g, q - q0);
          double acc = from;
          for (std::int64_t t = piece.begin; t < piece.end; ++t) {
            const auto j = static_cast<std::size_t>(perm[t]);
            if (!in.null(j)) acc *= in.f(j);
          }
          s.a = acc, s.n = 0;
          if (finite_nonzero(acc)) s.n = split_exponent(acc, s.a);
          continue;
        }
        multiply(s, p.a, p.n);
      }
      return;
    }
    PieceState s = pieces[q0];  // one piece: the host's state as it is
    const bool welford = op.agg == SegmentAgg::std || op.agg == SegmentAgg::var;
    segment_detail::KahanSum sum{s.a, s.b};
    for (std::int64_t q = q0 + 1; q < q1; ++q) {
      const PieceState& p = pieces[q];
      if (welford) {
        if (p.n > 0) chan_combine(s.a, s.b, s.n, p.n, p.a, p.b);
      } else {
        sum.add(p.a);
      }
      s.n += p.n;
    }
    if (!welford) s.a = sum.sum, s.b = sum.comp;
    total[g] = s;
  }
};

/// Step 3 of a scan: piece p again, from the state before it.
struct ScanPiece {
  SegmentOp op;
  SegmentValues in;
  SegmentResult out;
  const std::int64_t* perm;
  const std::int64_t* piece0;
  const std::int64_t* offsets;
  std::int64_t groups;
  const PieceState* before;
  SLAB_HD void operator()(std::int64_t p) const {
    const GroupPiece piece = piece_at(piece0, offsets, groups, p);
    if (piece.group < 0) return;
    segment_detail::float_scan_from(op.op, in, perm + piece.begin, static_cast<std::size_t>(piece.end - piece.begin),
                                    out, static_cast<std::size_t>(piece.begin), before[p].a, before[p].b);
  }
};

/// Step 3 of an aggregate: sorted position j gets its group's value, as segment_detail::broadcast finishes it.
struct WriteAggregate {
  SegmentAgg agg;
  SegmentResult out;
  const std::int64_t* offsets;
  std::int64_t groups;
  const PieceState* total;
  SLAB_HD void operator()(std::int64_t j) const {
    const PieceState& s = total[slab::kernels::segment_holding(offsets, groups, j)];
    double v = s.a;  // sum: 0 when every value is null, as pandas
    if (agg == SegmentAgg::mean) {
      v = s.n > 0 ? s.a / static_cast<double>(s.n) : segment_detail::nan();
    } else if (agg == SegmentAgg::std || agg == SegmentAgg::var) {
      const double var = s.n > 1 ? s.b / static_cast<double>(s.n - 1) : segment_detail::nan();
      v = agg == SegmentAgg::std ? slab::kernels::portable::sqrt(var) : var;
    }
    out.set_f(static_cast<std::size_t>(j), v);
  }
};

}  // namespace by_piece_detail

/**
 * @brief segment_op(op) over every group of n sorted positions (segment_op_is_by_pieces(op, in.type, out.type)):
 * position j's row perm[j], written to out at j; `groups` groups at offsets[g] .. offsets[g + 1] (backend memory,
 * offsets[groups] = n). In pieces of kGroupPiece rows (the top of this file). Asynchronous.
 */
template <class B>
void segment_op_by_pieces(B& b, const SegmentOp& op, const SegmentValues& in, const SegmentResult& out,
                          const std::int64_t* perm, const std::int64_t* offsets, std::int64_t groups, std::int64_t n) {
  using namespace by_piece_detail;
  using slab::kernels::Scratch;
  if (groups <= 0) return;
  thrust::counting_iterator<std::int64_t> i(0);
  Scratch<std::int64_t, B> piece0(b, groups + 1);
  thrust::transform(b.policy(), i, i + groups, piece0.get(), PiecesOf{offsets});
  b.zero(piece0.get() + groups, sizeof(std::int64_t));
  thrust::exclusive_scan(b.policy(), piece0.get(), piece0.get() + groups + 1, piece0.get());
  const std::int64_t max_pieces = groups + n / kGroupPiece + 1;  // a bound: no synchronisation for the count
  Scratch<PieceState, B> pieces(b, max_pieces);
  thrust::for_each(b.policy(), i, i + max_pieces, FoldPiece{op, in, perm, piece0.get(), offsets, groups, pieces.get()});
  if (op.op == SegmentScan::transform) {
    Scratch<PieceState, B> total(b, groups);
    thrust::for_each(b.policy(), i, i + groups,
                     WalkPieces{op, in, perm, offsets, piece0.get(), pieces.get(), nullptr, total.get()});
    thrust::for_each(b.policy(), i, i + n, WriteAggregate{op.agg, out, offsets, groups, total.get()});
    return;
  }
  Scratch<PieceState, B> before(b, max_pieces);
  thrust::for_each(b.policy(), i, i + groups,
                   WalkPieces{op, in, perm, offsets, piece0.get(), pieces.get(), before.get(), nullptr});
  thrust::for_each(b.policy(), i, i + max_pieces,
                   ScanPiece{op, in, out, perm, piece0.get(), offsets, groups, before.get()});
}

}  // namespace slab::frame::kernels
