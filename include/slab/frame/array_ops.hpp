#pragma once
/// @file array_ops.hpp
/// @brief NumPy's np.sort, np.unique, np.concatenate and boolean-mask selection (`a[mask]`) for 1-D slab::Arrays. They
/// move rows between ranks, so they are built on the frame layer's sample sort, shuffle, concat and filter over a
/// one-column frame: out of core, any rank count.
#include <cstdint>
#include <vector>

#include "slab/array/array.hpp"

namespace slab {

/**
 * @brief The values of a 1-D array in ascending order, NaN last (numpy.sort), split by rows (rank r's block
 * follows rank r-1's; blocks may be uneven). Stable. Collective (a sample sort).
 * @throws ShapeError (every rank) for a 2-D array.
 */
template <class T>
[[nodiscard]] Array<T> sort(const Array<T>& a);

/**
 * @brief The distinct values of a 1-D array, ascending, NaN once at the end (numpy.unique, equal_nan=True).
 * Collective (a shuffle and a sample sort).
 * @throws ShapeError (every rank) for a 2-D array.
 */
template <class T>
[[nodiscard]] Array<T> unique(const Array<T>& a);

/**
 * @brief The elements of a 1-D array where `mask` is nonzero, in order (NumPy's `a[mask]`; `mask` is what
 * comparisons give, e.g. `a > 0.5`). Split by rows with uneven blocks (each rank keeps its selected rows). Lazy
 * but collective (learns the row counts).
 * @throws ShapeError (every rank) for a 2-D array or a mask of another length.
 */
template <class T>
[[nodiscard]] Array<T> compress(const Array<T>& a, const Array<std::int64_t>& mask);

/**
 * @brief The 1-D arrays one after another (numpy.concatenate along axis 0), split by rows with the rows spread
 * evenly over the ranks. Collective (one row exchange).
 * @throws InvalidArgument for no arrays; ShapeError (every rank) for a 2-D array.
 */
template <class T>
[[nodiscard]] Array<T> concatenate(const std::vector<Array<T>>& arrays);

extern template Array<double> sort(const Array<double>&);
extern template Array<std::int64_t> sort(const Array<std::int64_t>&);
extern template Array<double> unique(const Array<double>&);
extern template Array<std::int64_t> unique(const Array<std::int64_t>&);
extern template Array<double> compress(const Array<double>&, const Array<std::int64_t>&);
extern template Array<std::int64_t> compress(const Array<std::int64_t>&, const Array<std::int64_t>&);
extern template Array<double> concatenate(const std::vector<Array<double>>&);
extern template Array<std::int64_t> concatenate(const std::vector<Array<std::int64_t>>&);

}  // namespace slab
