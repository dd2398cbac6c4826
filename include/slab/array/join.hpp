#pragma once
/// @file join.hpp
/// @brief Joining slab::Arrays as NumPy does: concatenate (along axis 0 or 1), stack, vstack, hstack and
/// column_stack. slab arrays have 1 or 2 dimensions, so stack (which adds an axis) takes 1-D arrays only.
///
/// Along axis 0 the inputs follow one another in C order: the result is split by rows with balanced blocks
/// (replicated when every input is) and made as reshape makes its result (slab/array/reshape.hpp): local tasks
/// where no element changes rank, otherwise rounds of one collective alltoallv task per result chunk, each
/// reading only the input chunks its pieces come from, so it streams under the memory limit. Along axis 1 the
/// result keeps the row blocks of the first input split by rows (uneven blocks too; replicated when every input
/// is); an input whose blocks differ is redistributed to them first (one recorded alltoallv, as
/// redistribute()), then each result chunk is one local task that lays the inputs' rows side by side. All
/// lazy; collective where rows move (every rank calls these in the same order, as every Array operation).
/// Each function also takes a braced list, `slab::concatenate({a, b}, 1)`, which deduces T.
///
/// Shape errors are thrown on every rank together (they depend on global shapes only), with NumPy's wording.

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "slab/array/array.hpp"

namespace slab {

/**
 * @brief numpy.concatenate(arrays, axis): the arrays one after another along `axis` (0 or 1; -1 is the last
 * axis). 1-D arrays join along axis 0 only. Split of the result: see the file comment.
 * @throws InvalidArgument for no arrays; ShapeError when the arrays' numbers of dimensions differ, when their
 * extents differ along the other axis, or when `axis` is out of bounds (naming the arrays' indices and extents).
 */
template <class T>
[[nodiscard]] Array<T> concatenate(const std::vector<Array<T>>& arrays, int axis = 0);
template <class T>
[[nodiscard]] Array<T> concatenate(std::initializer_list<Array<T>> arrays, int axis = 0) {
  return concatenate(std::vector<Array<T>>(arrays), axis);
}

/**
 * @brief numpy.stack(arrays, axis) of 1-D arrays of one length n: axis 0 gives k x n (array i is row i), axis 1
 * (or -1) gives n x k (array i is column i).
 * @throws InvalidArgument for no arrays; ShapeError for 2-D inputs (the result would be 3-D), inputs of
 * different lengths, or an axis outside [-2, 1].
 */
template <class T>
[[nodiscard]] Array<T> stack(const std::vector<Array<T>>& arrays, int axis = 0);
template <class T>
[[nodiscard]] Array<T> stack(std::initializer_list<Array<T>> arrays, int axis = 0) {
  return stack(std::vector<Array<T>>(arrays), axis);
}

/**
 * @brief numpy.vstack: rows on top of one another; a 1-D array of length n is one row (1 x n). The result is
 * 2-D. @throws InvalidArgument for no arrays; ShapeError when the column counts differ.
 */
template <class T>
[[nodiscard]] Array<T> vstack(const std::vector<Array<T>>& arrays);
template <class T>
[[nodiscard]] Array<T> vstack(std::initializer_list<Array<T>> arrays) {
  return vstack(std::vector<Array<T>>(arrays));
}

/**
 * @brief numpy.hstack: 1-D arrays one after another (concatenate along axis 0), 2-D arrays side by side
 * (along axis 1). @throws InvalidArgument for no arrays; ShapeError for a mix of 1-D and 2-D arrays or
 * extents that differ (as concatenate).
 */
template <class T>
[[nodiscard]] Array<T> hstack(const std::vector<Array<T>>& arrays);
template <class T>
[[nodiscard]] Array<T> hstack(std::initializer_list<Array<T>> arrays) {
  return hstack(std::vector<Array<T>>(arrays));
}

/**
 * @brief numpy.column_stack: side by side, a 1-D array of length n being one column (n x 1). The result is
 * 2-D. @throws InvalidArgument for no arrays; ShapeError when the row counts differ.
 */
template <class T>
[[nodiscard]] Array<T> column_stack(const std::vector<Array<T>>& arrays);
template <class T>
[[nodiscard]] Array<T> column_stack(std::initializer_list<Array<T>> arrays) {
  return column_stack(std::vector<Array<T>>(arrays));
}

}  // namespace slab
