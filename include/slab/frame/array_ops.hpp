#pragma once
/// @file array_ops.hpp
/// @brief NumPy's np.sort and np.unique for 1-D slab::Arrays. They move values between ranks by value, so they
/// are built on the frame layer's sample sort and shuffle over a one-column frame: out of core, any rank count.
/// (np.concatenate and `a[mask]` are array operations: slab/array/join.hpp and slab/array/compress.hpp, included
/// here for code that found them here.)
#include <cstdint>
#include <vector>

#include "slab/array/array.hpp"
#include "slab/array/compress.hpp"
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

extern template Array<double> sort(const Array<double>&);
extern template Array<std::int64_t> sort(const Array<std::int64_t>&);
extern template Array<double> unique(const Array<double>&);
extern template Array<std::int64_t> unique(const Array<std::int64_t>&);

}  // namespace slab
