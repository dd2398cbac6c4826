#pragma once
/// @file compress.hpp
/// @brief Boolean-mask selection, NumPy's `a[mask]`: slab::compress(a, mask), also spelt `a[mask]`
/// (Array::operator[]). The mask is what comparisons give (`a > 0.0`: an Array<std::int64_t> of 0/1; any
/// non-zero value selects). Counting the selected elements is count_nonzero(mask) (reduction.hpp). Note that
/// this is `a[mask]`, not numpy.compress(condition, a, axis), whose condition may be shorter than the axis.

#include <cstdint>

#include "slab/array/array.hpp"

namespace slab {

/**
 * @brief `a[mask]` as NumPy selects with a boolean mask:
 * - `mask` of a's shape: the elements of `a` where mask is non-zero, in C order (row-major), as a 1-D array;
 * - `a` 2-D and `mask` 1-D of length a.rows(): the rows of `a` where mask is non-zero, a 2-D k x cols array.
 *
 * The result is split by rows with uneven blocks: each rank keeps what it selected of its own block (an array
 * split by columns is resplit by rows first, and a mask whose blocks differ from a's is redistributed to them);
 * it is replicated when `a` is. Each chunk of `a` is selected by one task into a piece (kept, spillable, until
 * the result's chunks are made from them), the pieces' sizes give the blocks (one allgather), then each result
 * chunk is one lazy task copying the pieces it overlaps, so memory stays at about one chunk per task plus the
 * selected values. Collective: runs a's and mask's graphs to learn the counts.
 * @throws ShapeError (every rank, from global shapes) when mask's shape is neither a's shape nor, for a 2-D
 * `a`, (a.rows(),), naming both shapes.
 */
template <class T>
[[nodiscard]] Array<T> compress(const Array<T>& a, const Array<std::int64_t>& mask);

}  // namespace slab
