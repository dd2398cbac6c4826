#pragma once
/// @file quantile.hpp
/// @brief Exact quantiles of a column, as pandas' Series.quantile (linear interpolation, NumPy's formula) and
/// Series.median: the column's non-null values are sorted by the distributed sample sort (out of core), and the
/// ranks holding the two order statistics around q * (n - 1) give them to every rank.

#include <string>
#include <vector>

#include "slab/frame/frame.hpp"

namespace slab::frame {

/**
 * @brief pandas' `frame[column].quantile(q)` for each q of `qs` (in [0, 1]): nulls and NaN skipped, NaN when no
 * value is left. Replicated. Collective (a sort of the column, a few allreduces).
 * @throws InvalidArgument (every rank) for an unknown column or a q outside [0, 1]; TypeError for a column that
 * is not int64, float64 or boolean.
 */
[[nodiscard]] std::vector<double> quantile(const Frame& frame, const std::string& column,
                                           const std::vector<double>& qs);
/// One quantile. Collective. @throws as above.
[[nodiscard]] double quantile(const Frame& frame, const std::string& column, double q);
/// pandas' `frame[column].median()`: quantile 0.5. Collective. @throws as above.
[[nodiscard]] double median(const Frame& frame, const std::string& column);

}  // namespace slab::frame
