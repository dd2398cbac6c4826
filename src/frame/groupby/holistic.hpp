#pragma once
/// @file holistic.hpp
/// @brief The holistic aggregations' arithmetic, shared by groupby (median/quantile columns) and
/// group_transform (transform("median")), on the host and the device (GroupbyKernels::holistic): pandas'
/// formulas on a group's sorted non-null values, so all give pandas' bits. Not collective.

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "core/kernels/hd.hpp"

namespace slab::frame::detail {

/// A holistic aggregation as one double: q in [0, 1] for a quantile, kMedian for the median (pandas computes
/// them differently: the median is the mean of the middle two, a quantile interpolates from the lower one).
inline constexpr double kMedian = -1.0;

/// The IEEE total order as an unsigned word (-0.0 before 0.0, NaN last): the order a group's values are sorted in
/// before holistic_value, on the host (combine_values) and the device (GroupbyKernels::holistic) alike, so that
/// both pick the same bits among equal values.
SLAB_HD_INLINE std::uint64_t total_order_word(double v) noexcept {
  const std::uint64_t b = slab::kernels::double_bits(v);
  return (b >> 63) ? ~b : (b | (std::uint64_t{1} << 63));
}

/// pandas' groupby median (calc_median_linear) of v[0, n), sorted ascending without NaN: NaN when n == 0.
[[nodiscard]] SLAB_HD_INLINE double sorted_median(const double* v, std::size_t n) noexcept {
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  return n % 2 ? v[n / 2] : (v[n / 2] + v[n / 2 - 1]) / 2;
}

/// pandas' groupby quantile (group_quantile, interpolation='linear') of v[0, n), sorted ascending without NaN:
/// idx = trunc(q (n - 1)), v[idx] + (v[idx + 1] - v[idx]) * frac. NaN when n == 0.
[[nodiscard]] SLAB_HD_INLINE double sorted_quantile(const double* v, std::size_t n, double q) noexcept {
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  const double pos = q * static_cast<double>(n - 1);
  const auto idx = static_cast<std::size_t>(static_cast<std::int64_t>(pos));
  const double frac = std::fmod(pos, 1.0);
  if (frac == 0.0 || idx + 1 >= n) return v[idx];
  return v[idx] + (v[idx + 1] - v[idx]) * frac;
}

/// q written shortest (0.9 -> "0.9", 0.25 -> "0.25"), for column names and messages.
[[nodiscard]] inline std::string format_q(double q) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, q);
  return std::string(buf, r.ptr);
}

/// sorted_median for kMedian, else sorted_quantile with q = what.
[[nodiscard]] SLAB_HD_INLINE double holistic_value(const double* v, std::size_t n, double what) noexcept {
  return what == kMedian ? sorted_median(v, n) : sorted_quantile(v, n, what);
}

}  // namespace slab::frame::detail
