#pragma once
/// @file rolling_hd.hpp
/// @brief The running accumulators of rolling windows (src/frame/rolling.cpp) as SLAB_HD structs: a Kahan-
/// compensated sum with add and remove (pandas' add_sum/remove_sum) and Welford's running mean and sum of
/// squared deviations with add, remove and an exact two-pass recomputation. The host's expressions in the
/// host's order: the same sequence of adds and removes gives the same bits on both sides.

#include <cstdint>

#include "core/kernels/hd.hpp"

namespace slab::frame::kernels {

struct RollingSum {
  double sum = 0, comp = 0;
  std::int64_t nobs = 0;
  SLAB_HD_INLINE void reset() { sum = comp = 0, nobs = 0; }
  SLAB_HD_INLINE void add(double v) {
    if (v == v) {
      ++nobs;
      kahan(v);
    }
  }
  SLAB_HD_INLINE void remove(double v) {
    if (v == v) {
      --nobs;
      kahan(-v);
    }
  }
  SLAB_HD_INLINE void kahan(double v) {
    const double y = v - comp;
    const double t = sum + y;
    comp = (t - sum) - y;
    sum = t;
  }
};

struct RollingVar {
  double mean = 0, ssq = 0;
  std::int64_t nobs = 0;
  SLAB_HD_INLINE void reset() { mean = ssq = 0, nobs = 0; }
  SLAB_HD_INLINE void add(double v) {
    if (v == v) {
      ++nobs;
      const double d = v - mean;
      mean += d / static_cast<double>(nobs);
      ssq += d * (v - mean);
    }
  }
  SLAB_HD_INLINE void remove(double v) {
    if (v == v) {
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
      if (x[j] == x[j]) total += x[j], ++nobs;
    if (nobs == 0) return;
    mean = total / static_cast<double>(nobs);
    double c = 0;
    for (std::int64_t j = s; j < e; ++j)
      if (x[j] == x[j]) {
        const double d = x[j] - mean;
        ssq += d * d, c += d;
      }
    ssq -= c * c / static_cast<double>(nobs);
    mean += c / static_cast<double>(nobs);
  }
};

}  // namespace slab::frame::kernels
