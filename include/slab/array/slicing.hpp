#pragma once
/// @file slicing.hpp
/// @brief Slicing and redistribution of slab::Array.
///
/// Slices are lazy views (no communication): the result keeps the source's split and its data where it is,
/// so its blocks may be uneven and ranks may hold no rows (Layout::bounds); rebalance() makes them even
/// again. Redistribution (rebalance, resplit, redistribute) records one collective task (alltoallv) that
/// runs at the next persist (every rank runs pending collectives in the same order).

#include <cstdint>
#include <vector>

#include "slab/array/array.hpp"

namespace slab {

template <class T>
class Array;
struct Layout;
enum class Split;

/// Rows [begin, end) (clamped like Python slices with non-negative bounds). Lazy, not collective.
/// @throws ShapeError when begin > end or end > rows.
template <class T>
[[nodiscard]] Array<T> row_range(const Array<T>& a, std::int64_t begin, std::int64_t end);
/// Columns [begin, end) of a 2-D array. Lazy, not collective. @throws ShapeError for a bad range or 1-D.
template <class T>
[[nodiscard]] Array<T> col_range(const Array<T>& a, std::int64_t begin, std::int64_t end);
/// The first min(n, rows) rows. Lazy, not collective.
template <class T>
[[nodiscard]] Array<T> head(const Array<T>& a, std::int64_t n);
/// The listed columns, in order (repeats allowed). Split rows or none: lazy, local; split cols: resplits
/// to rows and back (collective). @throws ShapeError for an index out of range.
template <class T>
[[nodiscard]] Array<T> select_cols(const Array<T>& a, const std::vector<std::int64_t>& columns);
/// The transpose, NumPy's a.T: a lazy view that records what it transposes (transpose_of() is `a`, and
/// transpose(transpose(a)) is `a` itself), so linalg::matmul(a, transpose(a)) is seen as a Gram and never
/// transposes anything. Its chunks are recorded only when something reads them: a row-split array gives a
/// column-split one with locally transposed blocks (no communication; one task per chunk), a replicated one a
/// replicated transpose in one chunk. A 1-D array is returned as is. Lazy, not collective.
template <class T>
[[nodiscard]] Array<T> transpose(const Array<T>& a);
/// The same array with balanced blocks (alltoallv along the split axis). Collective (recorded lazily).
template <class T>
[[nodiscard]] Array<T> rebalance(const Array<T>& a);
/// The same array split along `split` (rows <-> cols <-> none; alltoallv). Collective (recorded lazily).
template <class T>
[[nodiscard]] Array<T> resplit(const Array<T>& a, Split split);
/// The same array in any `target` layout of the same shape (one alltoallv). Collective (recorded lazily).
/// @throws ShapeError when target's shape or rank count differs.
template <class T>
[[nodiscard]] Array<T> redistribute(const Array<T>& a, const Layout& target);
/// The same blocks cut into chunks of `chunk` (<= 0: the default). Lazy, local, not collective.
template <class T>
[[nodiscard]] Array<T> rechunk(const Array<T>& a, std::int64_t chunk);

}  // namespace slab
