#pragma once
/// @file array_ops.hpp
/// @brief NumPy's np.sort, np.unique and boolean-mask selection (`a[mask]`) for 1-D slab::Arrays. They move rows
/// between ranks, so they are built on the frame layer's sample sort, shuffle and filter over a one-column frame:
/// out of core, any rank count. (np.concatenate is an array operation: slab/array/join.hpp, included here for code
/// that found it here.)
#include <cstdint>
#include <vector>

#include "slab/array/array.hpp"
#include "slab/array/join.hpp"

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

extern template Array<double> sort(const Array<double>&);
extern template Array<std::int64_t> sort(const Array<std::int64_t>&);
extern template Array<double> unique(const Array<double>&);
extern template Array<std::int64_t> unique(const Array<std::int64_t>&);
extern template Array<double> compress(const Array<double>&, const Array<std::int64_t>&);
extern template Array<std::int64_t> compress(const Array<std::int64_t>&, const Array<std::int64_t>&);

}  // namespace slab
