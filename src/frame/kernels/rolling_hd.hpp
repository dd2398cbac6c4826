#pragma once
/// @file rolling_hd.hpp
/// @brief The running accumulators of rolling windows as SLAB_HD structs, the one source for the host's
/// serial kernels (src/frame/rolling.cpp calls these) and the device's runs (rolling.inl): a Kahan-compensated
/// sum with add and remove (pandas' add_sum/remove_sum), Welford's running mean and sum of squared deviations
/// with add, remove and an exact two-pass recomputation, and the window's std from them. The same sequence of
/// adds and removes gives the same bits on both sides.
///
/// rolling_slide() is the host's whole sequential slide over one column (rolling.cpp's kernels call it): a
/// device thread runs the same function over one group's rows (groupby rolling, segments_hd.hpp), so those
/// results are bitwise the host's. Its min/max deque is a template parameter: std::deque on the host (bounded
/// by the window), RollingDequeBuffer (one slot per row) on the device.
///
/// Which values count: pandas turns +-inf into NaN before its window kernels (BaseWindow._prep_values), so an
/// infinity is missing for sum, mean, std, min and max (rolling_usable), while count (of the non-NaN rows) still
/// counts it. Skipping infinities also keeps them out of the running sums, where inf - inf would leave NaN
/// behind after the infinity has left the window.

#include <cstdint>

#include "core/kernels/counter_rng_hd.hpp"
#include "core/kernels/hd.hpp"

namespace slab::frame::kernels {

/// The rolling aggregations (the values of slab::frame::RollingOp, in its order).
enum class RollingKind : std::uint8_t { mean, sum, min, max, std, count };

/// A value every aggregation but count takes: a finite one.
SLAB_HD_INLINE bool rolling_usable(double v) { return slab::kernels::is_finite(v); }

/// pandas' running sum of the usable values (`nobs` of them; `nvalid` counts the non-NaN values, count's answer):
/// adds and removes each Kahan-compensated with a compensation of their own (pandas' add_sum/remove_sum), so that
/// what a huge value's add rounded away comes back once it is removed (1e17, 1, 2 by twos: 3, not 0); `same`
/// counts the last values added that equal `last` (pandas' num_consecutive_same_value: a window of equal values
/// sums to last * nobs and averages to last exactly) and `neg` the values with the sign bit (a mean of values of
/// one sign never has the other).
struct RollingSum {
  double sum = 0, comp_add = 0, comp_remove = 0, last = 0;
  std::int64_t nobs = 0, nvalid = 0, same = 0, neg = 0;
  SLAB_HD_INLINE void reset() { *this = RollingSum{}; }
  SLAB_HD_INLINE void add(double v) {
    nvalid += v == v;
    if (rolling_usable(v)) {
      ++nobs;
      kahan(v, comp_add);
      same = v == last ? same + 1 : 1;
      last = v;
      neg += static_cast<std::int64_t>(slab::kernels::double_bits(v) >> 63);
    }
  }
  SLAB_HD_INLINE void remove(double v) {
    nvalid -= v == v;
    if (rolling_usable(v)) {
      --nobs;
      kahan(-v, comp_remove);
      neg -= static_cast<std::int64_t>(slab::kernels::double_bits(v) >> 63);
    }
  }
  /// The window's sum or mean (pandas' calc_sum, calc_mean), or NaN below `minp` (>= 1) values.
  [[nodiscard]] SLAB_HD_INLINE double sum_or_nan(std::int64_t minp, bool mean) const {
    if (nobs < minp || nobs <= 0) return slab::kernels::bits_double(0x7FF8000000000000ull);
    const auto n = static_cast<double>(nobs);
    if (same >= nobs) return mean ? last : last * n;
    if (!mean) return sum;
    const double r = sum / n;
    return (neg == 0 && r < 0) || (neg == nobs && r > 0) ? 0.0 : r;
  }

 private:
  SLAB_HD_INLINE void kahan(double v, double& comp) {
    const double y = v - comp;
    const double t = sum + y;
    comp = (t - sum) - y;
    sum = t;
  }
};

/// Welford running mean and sum of squared deviations of the usable values, with add and remove; `same` and
/// `last` as RollingSum's (a window of equal values has a std of exactly 0, as pandas').
struct RollingVar {
  double mean = 0, ssq = 0, last = 0;
  std::int64_t nobs = 0, same = 0;
  SLAB_HD_INLINE void reset() { *this = RollingVar{}; }
  SLAB_HD_INLINE void add(double v) {
    if (rolling_usable(v)) {
      ++nobs;
      const double d = v - mean;
      mean += d / static_cast<double>(nobs);
      ssq += d * (v - mean);
      same = v == last ? same + 1 : 1;
      last = v;
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
      if (rolling_usable(x[j])) {
        total += x[j], ++nobs;
        same = x[j] == last ? same + 1 : 1;
        last = x[j];
      }
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
    if (same >= nobs) return 0.0;
    const double var = ssq / static_cast<double>(nobs - 1);
    return slab::kernels::portable::sqrt(var < 0 ? 0.0 : var);
  }
};

/// The start of a row window: output i's window is rows [i + 1 - window, i + 1), clipped at 0.
struct RollingRowStart {
  std::int64_t window;
  SLAB_HD_INLINE std::int64_t operator()(std::int64_t i) const { return i + 1 >= window ? i + 1 - window : 0; }
};

/// rolling_slide()'s min/max deque where there is no std::deque: a buffer with one slot per row pushed. A row is
/// pushed at most once and a pop at the back frees its slot, so halo + n slots always suffice.
struct RollingDequeBuffer {
  std::int64_t* at;
  std::int64_t head = 0, tail = 0;
  [[nodiscard]] SLAB_HD_INLINE bool empty() const { return head == tail; }
  [[nodiscard]] SLAB_HD_INLINE std::int64_t front() const { return at[head]; }
  [[nodiscard]] SLAB_HD_INLINE std::int64_t back() const { return at[tail - 1]; }
  SLAB_HD_INLINE void push_back(std::int64_t j) { at[tail++] = j; }
  SLAB_HD_INLINE void pop_back() { --tail; }
  SLAB_HD_INLINE void pop_front() { ++head; }
  SLAB_HD_INLINE void clear() { head = tail = 0; }
};

namespace rolling_detail {

SLAB_HD_INLINE double nan() { return slab::kernels::bits_double(0x7FF8000000000000ull); }

/// Push row j onto the monotone deque of a min (or max) window, if its value counts.
template <class Deque>
SLAB_HD_INLINE void push_extreme(const double* x, std::int64_t j, bool is_min, Deque& dq, std::int64_t& nobs) {
  const double v = x[j];
  if (!rolling_usable(v)) return;
  ++nobs;
  while (!dq.empty() && (is_min ? x[dq.back()] >= v : x[dq.back()] <= v)) dq.pop_back();
  dq.push_back(j);
}

}  // namespace rolling_detail

/**
 * @brief The sequential slide over x[0, halo + n): out[i - halo] for each output row i in [halo, halo + n), whose
 * window is [start_of(i), i + 1) (start_of monotone). min_periods as pandas (count: over the window's rows, NaN
 * included; the others over its usable values, at least 1). A std recomputes its variance exactly every
 * `recompute_every` outputs (0: never). `dq` starts empty and is used by min and max only. Not collective.
 */
template <class StartFn, class Deque>
SLAB_HD void rolling_slide(const double* x, std::int64_t halo, std::int64_t n, std::int64_t min_periods, RollingKind op,
                           std::int64_t recompute_every, StartFn start_of, Deque& dq, double* out) {
  const std::int64_t m = halo + n;
  const std::int64_t floor = op == RollingKind::count ? 0 : 1;
  const std::int64_t minp = min_periods > floor ? min_periods : floor;
  // Window [s, e): both only grow. Initialise to the window of the first output row minus that row.
  std::int64_t s = n ? start_of(halo) : 0;
  std::int64_t e = s;
  switch (op) {
    case RollingKind::sum:
    case RollingKind::mean:
    case RollingKind::count: {
      RollingSum acc;
      for (std::int64_t j = s; j < halo; ++j) acc.add(x[j]);
      e = halo;
      for (std::int64_t i = halo; i < m; ++i) {
        const std::int64_t ns = start_of(i);
        if (ns >= e) {  // disjoint from the previous window: start afresh (pandas does the same)
          acc.reset();
          s = e = ns;
        }
        for (; s < ns; ++s) acc.remove(x[s]);
        for (; e <= i; ++e) acc.add(x[e]);
        if (op == RollingKind::count)  // pandas: count applies min_periods to the rows in the window, NaN included
          out[i - halo] = e - s >= min_periods ? static_cast<double>(acc.nvalid) : rolling_detail::nan();
        else
          out[i - halo] = acc.sum_or_nan(minp, op == RollingKind::mean);
      }
      break;
    }
    case RollingKind::std: {
      RollingVar acc;
      acc.recompute(x, s, halo);
      e = halo;
      std::int64_t since = 0;
      for (std::int64_t i = halo; i < m; ++i) {
        const std::int64_t ns = start_of(i);
        if (ns >= e) {
          acc.reset();
          s = e = ns;
          since = 0;
        } else if (recompute_every && ++since >= recompute_every) {
          s = ns;
          acc.recompute(x, s, e);
          since = 0;
        }
        for (; s < ns; ++s) acc.remove(x[s]);
        for (; e <= i; ++e) acc.add(x[e]);
        out[i - halo] = acc.std_or_nan(minp);
      }
      break;
    }
    case RollingKind::min:
    case RollingKind::max: {
      const bool is_min = op == RollingKind::min;
      std::int64_t nobs = 0;  // dq: indices of a monotone sequence of usable values
      for (std::int64_t j = s; j < halo; ++j) rolling_detail::push_extreme(x, j, is_min, dq, nobs);
      e = halo;
      for (std::int64_t i = halo; i < m; ++i) {
        const std::int64_t ns = start_of(i);
        if (ns >= e) {
          dq.clear();
          nobs = 0;
          s = e = ns;
        }
        for (; s < ns; ++s)
          if (rolling_usable(x[s])) --nobs;
        while (!dq.empty() && dq.front() < s) dq.pop_front();
        for (; e <= i; ++e) rolling_detail::push_extreme(x, e, is_min, dq, nobs);
        out[i - halo] = (nobs >= minp && !dq.empty()) ? x[dq.front()] : rolling_detail::nan();
      }
      break;
    }
  }
}

}  // namespace slab::frame::kernels
