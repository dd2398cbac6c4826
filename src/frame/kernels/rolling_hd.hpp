#pragma once
/// @file rolling_hd.hpp
/// @brief The running accumulators of rolling windows as SLAB_HD structs, the one source for the host's
/// serial kernels (src/frame/rolling.cpp calls these) and the device's runs (rolling.inl): a Kahan-compensated
/// sum with add and remove (pandas' add_sum/remove_sum), Welford's running mean and sum of squared deviations
/// with add, remove and an exact two-pass recomputation, and the window's std from them. The same sequence of
/// adds and removes gives the same bits on both sides.
///
/// Which values count: pandas turns +-inf into NaN before its window kernels (BaseWindow._prep_values), so an
/// infinity is missing for sum, mean, std, min and max (rolling_usable), while count (of the non-NaN rows) still
/// counts it. Skipping infinities also keeps them out of the running sums, where inf - inf would leave NaN
/// behind after the infinity has left the window.

#include <cstdint>

#include "core/kernels/counter_rng_hd.hpp"
#include "core/kernels/hd.hpp"

namespace slab::frame::kernels {

/// A value every aggregation but count takes: a finite one.
SLAB_HD_INLINE bool rolling_usable(double v) { return slab::kernels::is_finite(v); }

/// Kahan-compensated running sum of the usable values (`nobs` of them); `nvalid` counts the non-NaN values
/// (count's answer).
struct RollingSum {
  double sum = 0, comp = 0;
  std::int64_t nobs = 0, nvalid = 0;
  SLAB_HD_INLINE void reset() { sum = comp = 0, nobs = nvalid = 0; }
  SLAB_HD_INLINE void add(double v) {
    nvalid += v == v;
    if (rolling_usable(v)) {
      ++nobs;
      kahan(v);
    }
  }
  SLAB_HD_INLINE void remove(double v) {
    nvalid -= v == v;
    if (rolling_usable(v)) {
      --nobs;
      kahan(-v);
    }
  }

 private:
  SLAB_HD_INLINE void kahan(double v) {
    const double y = v - comp;
    const double t = sum + y;
    comp = (t - sum) - y;
    sum = t;
  }
};

/// Welford running mean and sum of squared deviations of the usable values, with add and remove.
struct RollingVar {
  double mean = 0, ssq = 0;
  std::int64_t nobs = 0;
  SLAB_HD_INLINE void reset() { mean = ssq = 0, nobs = 0; }
  SLAB_HD_INLINE void add(double v) {
    if (rolling_usable(v)) {
      ++nobs;
      const double d = v - mean;
      mean += d / static_cast<double>(nobs);
      ssq += d * (v - mean);
    }
  }
  SLAB_HD_INLINE void remove(double v) {
    if (rolling_usable(v)) {
      --nobs;
      if (nobs == 0) {
        mean = ssq = 0;
        return;
      }
      const double d = v - mean;
      mean -= d / static_cast<double>(nobs);
      ssq -= d * (v - mean);
    }
  }
  /// Exact two-pass recomputation over x[s, e).
  SLAB_HD_INLINE void recompute(const double* x, std::int64_t s, std::int64_t e) {
    reset();
    double total = 0;
    for (std::int64_t j = s; j < e; ++j)
      if (rolling_usable(x[j])) total += x[j], ++nobs;
    if (nobs == 0) return;
    mean = total / static_cast<double>(nobs);
    double c = 0;
    for (std::int64_t j = s; j < e; ++j)
      if (rolling_usable(x[j])) {
        const double d = x[j] - mean;
        ssq += d * d, c += d;
      }
    ssq -= c * c / static_cast<double>(nobs);
    mean += c / static_cast<double>(nobs);
  }
  /// The window's sample std (ddof 1), or NaN below `min_periods` (>= 1) values or with fewer than two.
  /// Rounding can leave a tiny negative ssq: it is clamped, but a NaN passes through.
  [[nodiscard]] SLAB_HD_INLINE double std_or_nan(std::int64_t min_periods) const {
    if (nobs < min_periods || nobs <= 1) return slab::kernels::bits_double(0x7FF8000000000000ull);
    const double var = ssq / static_cast<double>(nobs - 1);
    return slab::kernels::portable::sqrt(var < 0 ? 0.0 : var);
  }
};

}  // namespace slab::frame::kernels
