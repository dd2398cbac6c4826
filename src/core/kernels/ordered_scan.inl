#pragma once
// A running sum of floats that gives the same bits every run, on every backend: ordered_inclusive_scan.
// thrust::inclusive_scan on CUDA is CUB's decoupled look-back scan: each tile adds whichever of its predecessors'
// totals and prefixes are ready when it looks, so float sums change from run to run (NVIDIA/cccl#1327). Here the
// order is fixed by the data's length alone:
// 1. the values are cut into tiles of kOrderedScanTile; one thread a tile folds its values in order;
// 2. the tiles' totals are scanned the same way (recursively: a level per factor of kOrderedScanTile), which
//    gives each tile the value carried into it;
// 3. one thread a tile runs its values again from that carry, writing each running sum.
// Against the sequential loop (acc = x[0]; acc = acc + x[i]): bitwise up to one tile (the first tile always),
// and on exactly summable data; otherwise within rounding, with the infinities and NaN where the loop has them
// (a sum holding an infinity is that infinity, or NaN with both signs, in any order). Exact operations (integer
// sums) need none of this: a parallel scan gives their bits.
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include <cstdint>

#include "core/kernels/hd.hpp"
#include "core/kernels/scratch.hpp"

namespace slab::kernels {

/// Values per tile: a thread's sequential work, and the factor by which each level shrinks (20M values: 3 levels).
inline constexpr std::int64_t kOrderedScanTile = 128;

namespace ordered_scan_detail {

/// totals[t] = in[b] op in[b + 1] op ... over tile t, in order.
template <class S, class In, class Op>
struct FoldTile {
  In in;
  std::int64_t n;
  S* totals;
  Op op;
  SLAB_HD void operator()(std::int64_t t) const {
    const std::int64_t b = t * kOrderedScanTile, e = b + kOrderedScanTile < n ? b + kOrderedScanTile : n;
    S acc = static_cast<S>(in[b]);
    for (std::int64_t i = b + 1; i < e; ++i) acc = op(acc, static_cast<S>(in[i]));
    totals[t] = acc;
  }
};

/// out[i] = the running sum through i of tile t, from the value carried into it: carried[t - 1] for t > 0;
/// tile 0 from its first value as it is.
template <class S, class In, class Op>
struct ScanTile {
  In in;
  std::int64_t n;
  const S* carried;
  S* out;
  Op op;
  SLAB_HD void operator()(std::int64_t t) const {
    const std::int64_t b = t * kOrderedScanTile, e = b + kOrderedScanTile < n ? b + kOrderedScanTile : n;
    std::int64_t i = b;
    S acc;
    if (t > 0) {
      acc = carried[t - 1];
    } else {
      acc = static_cast<S>(in[b]);
      out[i++] = acc;
    }
    for (; i < e; ++i) out[i] = acc = op(acc, static_cast<S>(in[i]));
  }
};

}  // namespace ordered_scan_detail

/**
 * @brief out[i] = in[0] op ... op in[i] for i in [0, n), in the fixed order above (a starting value goes into
 * in[0], as the frame cumsum's offset does). in: an iterator over backend memory whose values convert to S; out:
 * backend memory of n, not overlapping the input. Asynchronous; its scratch is released stream-ordered.
 */
template <class B, class S, class In, class Op>
void ordered_inclusive_scan(B& b, In in, std::int64_t n, S* out, Op op) {
  if (n <= 0) return;
  const std::int64_t tiles = (n + kOrderedScanTile - 1) / kOrderedScanTile;
  thrust::counting_iterator<std::int64_t> t(0);
  Scratch<S, B> carried(b, tiles - 1);  // carried[k]: the running sum through tile k, for the tile after it
  if (tiles > 1) {
    Scratch<S, B> totals(b, tiles - 1);  // the last tile's total carries into nothing
    thrust::for_each(b.policy(), t, t + (tiles - 1),
                     ordered_scan_detail::FoldTile<S, In, Op>{in, (tiles - 1) * kOrderedScanTile, totals.get(), op});
    ordered_inclusive_scan(b, static_cast<const S*>(totals.get()), tiles - 1, carried.get(), op);
  }
  thrust::for_each(b.policy(), t, t + tiles,
                   ordered_scan_detail::ScanTile<S, In, Op>{in, n, carried.get(), out, op});
}

}  // namespace slab::kernels
