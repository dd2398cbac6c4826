#pragma once
/// @file reduction.hpp
/// @brief Reductions of slab::Array.
///
/// Full reductions are collective and run the graph: one task per local chunk computes a partial (fused
/// with any pending elementwise expression, tile by tile); partials are merged on each rank in chunk order,
/// then across ranks with Comm::tree_allreduce_bytes (a fixed tree), so results are bitwise identical from
/// run to run at a fixed rank count, and every rank returns the same value. The mean is NumPy's sum / n (the
/// canonical sum); variances merge (count, mean, M2) with Chan's formula. NaN follows NumPy: sum/mean/var/min/max of
/// data with NaN are NaN; nansum and nanmean skip NaN. Infinities follow NumPy too, at every rank count and along
/// either axis: the mean is what sum / n gives (+inf with +inf values, -inf with -inf values, NaN with both), var and
/// std are NaN, min and max are the infinities. (Mean and M2 are merged over the finite values only and the infinities
/// flagged, so Chan's update never meets inf - inf.) A sum of finite values that overflows is inf, and so
/// is the mean, as NumPy's.
/// Reductions of an empty array: sum 0, mean/var NaN, min/max throw ShapeError. var with ddof >= n is NumPy's
/// M2 / max(n - ddof, 0): inf, or NaN (0 / 0) where every value is the same (NumPy can give inf there too, when its
/// mean's rounding leaves M2 nonzero: [0.1] * 3; slab's answer does not depend on the chunks and ranks).
/// int64 overflow follows NumPy: sums of int64 (sum, nansum, reduce_stats' sum, axis sums) wrap modulo 2^64
/// silently (two's complement); the mean of int64 is the values' mean (a wrapped sum is placed by the min and
/// max: exact but for its rounding while the values span less than 2^64 / n, else Chan's mean), var and std
/// accumulate in double: none wraps. Sums of int32
/// are int64 (sum_t, as NumPy's np.sum of an int32 array), so they do not wrap at 2^31.
/// Axis reductions (axis 0: over rows, one value per column; axis 1: over columns, one per row) return a
/// 1-D array: split like the source along the kept axis when that axis is the split one (lazy, no
/// communication), replicated (Split::none, collective, runs the graph) otherwise.

#include <cstdint>

#include "slab/array/array.hpp"

namespace slab {

template <class T>
class Array;
struct Stats;

/// sum/mean/var/std/min/max/count in ONE fused pass (one task per chunk). Collective.
template <class T>
[[nodiscard]] Stats reduce_stats(const Array<T>& a, int ddof = 0);

template <class T>
[[nodiscard]] sum_t<T> sum(const Array<T>& a);
template <class T>
[[nodiscard]] double mean(const Array<T>& a);
/// Variance with `ddof` delta degrees of freedom (NumPy's var). Collective.
template <class T>
[[nodiscard]] double var(const Array<T>& a, int ddof = 0);
template <class T>
[[nodiscard]] double std(const Array<T>& a, int ddof = 0);
/// @throws ShapeError (every rank) for an empty array.
template <class T>
[[nodiscard]] T min(const Array<T>& a);
template <class T>
[[nodiscard]] T max(const Array<T>& a);
/// Flat global index i * cols + j of the first minimum (of the first NaN when there is one). Collective.
template <class T>
[[nodiscard]] std::int64_t argmin(const Array<T>& a);
template <class T>
[[nodiscard]] std::int64_t argmax(const Array<T>& a);
/**
 * @brief numpy.argmax(a, axis) / numpy.argmin(a, axis): the index along `axis` (0: the row of each column's
 * extreme; 1: the column of each row's; -1 and -2 count from the end) of the first maximum / minimum, or of
 * the first NaN where there is one (NumPy's NaN propagation: the NaN wins, for argmin too), as a 1-D
 * Array<std::int64_t>. A 1-D array is its one column: axis 0 gives a one-element array holding the index
 * (NumPy returns that scalar, which argmax(a) returns as std::int64_t). Along the axis that is not split (axis
 * 1 of an array split by rows, axis 0 of one split by columns, either of a replicated one) each result value is
 * local: one lazy task per chunk, the result split like the source's kept axis (uneven blocks kept); along the
 * split axis each rank folds its chunks' candidates in one streaming reduction and the candidates are merged
 * over the comm's fixed tree (earliest index on ties), so the global index comes back replicated (Split::none):
 * collective, runs the graph.
 * @throws ShapeError (every rank) when `axis` is out of bounds for a.ndim(), or when the axis has length 0
 * ("attempt to get argmax of an empty sequence", as NumPy; an empty result along a non-empty axis is fine).
 */
template <class T>
[[nodiscard]] Array<std::int64_t> argmax(const Array<T>& a, int axis);
template <class T>
[[nodiscard]] Array<std::int64_t> argmin(const Array<T>& a, int axis);
/// 2-norm of a vector, Frobenius norm of a matrix. Collective.
template <class T>
[[nodiscard]] double norm(const Array<T>& a);
template <class T>
[[nodiscard]] std::int64_t count_nonzero(const Array<T>& a);
template <class T>
[[nodiscard]] sum_t<T> nansum(const Array<T>& a);
template <class T>
[[nodiscard]] double nanmean(const Array<T>& a);

/// Which reduction along an axis.
enum class AxisOp { sum, mean, var, std, min, max };
/// Reduce along `axis` (0 or 1, or -1 for the last, as NumPy; 1-D arrays have axis 0 only) to a 1-D Array<double>
/// (also as members: `x.sum(0)`, `x.mean(0)`, `x.min(1)`, `x.max(-1)`)
/// (see the file comment). var and std with ddof >= n are NumPy's M2 / 0: inf, or NaN for equal values.
/// @throws ShapeError for an axis out of bounds, and for min or max along an axis of length 0 (NumPy: "zero-size
/// array to reduction operation minimum which has no identity"; sum is 0 and mean NaN there).
template <class T>
[[nodiscard]] Array<double> reduce_axis(const Array<T>& a, AxisOp op, int axis, int ddof = 0);
template <class T>
[[nodiscard]] Array<double> sum(const Array<T>& a, int axis) {
  return reduce_axis(a, AxisOp::sum, axis);
}
template <class T>
[[nodiscard]] Array<double> mean(const Array<T>& a, int axis) {
  return reduce_axis(a, AxisOp::mean, axis);
}
template <class T>
[[nodiscard]] Array<double> var(const Array<T>& a, int axis, int ddof) {
  return reduce_axis(a, AxisOp::var, axis, ddof);
}
template <class T>
[[nodiscard]] Array<double> std(const Array<T>& a, int axis, int ddof) {
  return reduce_axis(a, AxisOp::std, axis, ddof);
}
template <class T>
[[nodiscard]] Array<double> min(const Array<T>& a, int axis) {
  return reduce_axis(a, AxisOp::min, axis);
}
template <class T>
[[nodiscard]] Array<double> max(const Array<T>& a, int axis) {
  return reduce_axis(a, AxisOp::max, axis);
}

}  // namespace slab
