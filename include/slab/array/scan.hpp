#pragma once
/// @file scan.hpp
/// @brief Prefix sums of slab::Array: NumPy's `np.cumsum(a)` for 1-D arrays.
#include "slab/array/array.hpp"

namespace slab {

/**
 * @brief Running sums of a 1-D array, as numpy.cumsum: out[i] = a[0] + ... + a[i] (a NaN makes every later
 * value NaN; int64 wraps on overflow as NumPy's does; int32 input gives int64 sums, sum_t, as NumPy's), with
 * a's layout. Each chunk is summed locally, the chunk
 * and rank totals are combined in global order (one allgather), and each chunk adds its offset in a lazy task;
 * float sums may differ from a serial loop in the last bits. Collective (runs a's graph for the totals).
 * @throws ShapeError (every rank) for a 2-D array.
 */
template <ArrayElement T>
[[nodiscard]] Array<sum_t<T>> cumsum(const Array<T>& a);

extern template Array<double> cumsum(const Array<double>&);
extern template Array<float> cumsum(const Array<float>&);
extern template Array<std::int64_t> cumsum(const Array<std::int32_t>&);
extern template Array<std::int64_t> cumsum(const Array<std::int64_t>&);

}  // namespace slab
