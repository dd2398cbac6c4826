#pragma once
/// @file reshape.hpp
/// @brief NumPy's reshape and ravel for slab::Array: the same elements in C order (row-major flat index
/// preserved) in another shape.
///
/// The result is split by rows with balanced blocks (replicated when the input is), so each rank's block is one
/// range of flat indices; elements move between ranks only where that range's elements are held by another
/// rank. A reshape that keeps each rank's flat range (whole rows of a row-split array whose blocks line up, as
/// (6, 4) -> (12, 2) or -> (24,) on 3 ranks, or any reshape of a replicated array) moves nothing: one local task
/// per result chunk, lazy and not collective. Otherwise the result is made in rounds of one collective task
/// each (an alltoallv of the pieces of one chunk per rank, reading only the input chunks those pieces come
/// from, so it streams under the memory limit; but a column chunk of an array split by columns holds part of
/// every row, so such an input is read whole by every round), recorded lazily. Only the ndim changing,
/// (n,) <-> (n, 1), is a view: no task at all. Result chunks hold about as many elements as the input's.

#include "slab/array/array.hpp"
#include "slab/array/layout.hpp"

namespace slab {

/**
 * @brief `a` in shape `shape` (numpy.reshape(a, shape), order 'C'): `Shape{n}` is 1-D, `Shape{r, c}` 2-D, and
 * one extent may be -1 (inferred from the size, as NumPy's -1). Collective where elements move (see the file
 * comment; every rank calls it in the same order, as every Array operation).
 * @throws ShapeError (every rank, from global shapes) naming both shapes when the sizes differ, when more than
 * one extent is -1, when an extent is below -1, or when -1 cannot be inferred (the other extent is 0).
 */
template <class T>
[[nodiscard]] Array<T> reshape(const Array<T>& a, Shape shape);

/// @brief The elements of `a` as a 1-D array in C order (numpy.ravel; reshape(a, Shape{-1})). As reshape.
template <class T>
[[nodiscard]] Array<T> ravel(const Array<T>& a);

}  // namespace slab
