#pragma once
/// @file int_mean_hd.hpp
/// @brief The mean of int64 values from their wrapping sum, min and max (groupby's int64 mean, the array
/// reductions' integer mean), host and device alike.

#include <cstdint>

#include "core/kernels/hd.hpp"

namespace slab::kernels {

/// The mean of n > 0 int64 values (the values' mean, as pandas' and NumPy's, not their wrapped sum's) from a
/// group's or a reduction's states: their sum wrapped modulo 2^64 to `wrapped`, their min lo and max hi, and a
/// running (Welford or Chan) mean `running_mean`. The true sum is the one in [n lo, n hi] congruent to `wrapped`,
/// unique while n (hi - lo) < 2^64: where nothing wrapped it is `wrapped` (the mean wrapped / n), else a 128-bit
/// sum rounded to a double (within an ulp); where the values span more, `running_mean` (within rounding). In 64-bit
/// words, not __int128: the device computes the same bits.
SLAB_HD_INLINE double int64_mean(std::int64_t wrapped, std::int64_t n, std::int64_t lo, std::int64_t hi,
                                 double running_mean) noexcept {
  const auto un = static_cast<std::uint64_t>(n);
  if (mul_hi64(un, static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo)) != 0) return running_mean;
  // n lo as 128 bits (lh, ll), then the sum: n lo + ((wrapped - n lo) mod 2^64), whose low word is `wrapped`.
  const std::uint64_t mag = lo < 0 ? 0 - static_cast<std::uint64_t>(lo) : static_cast<std::uint64_t>(lo);
  std::uint64_t ll = un * mag, lh = mul_hi64(un, mag);
  if (lo < 0) {
    ll = ~ll + 1;
    lh = ~lh + (ll == 0 ? 1 : 0);
  }
  const auto sl = static_cast<std::uint64_t>(wrapped);
  const std::uint64_t sh = lh + (sl < ll ? 1 : 0);  // the carry of ll + (sl - ll)
  const bool fits = sh == (wrapped < 0 ? ~0ull : 0ull);
  const double s =
      fits ? static_cast<double>(wrapped)
           : static_cast<double>(static_cast<std::int64_t>(sh)) * 18446744073709551616.0 + static_cast<double>(sl);
  return s / static_cast<double>(n);
}

}  // namespace slab::kernels
