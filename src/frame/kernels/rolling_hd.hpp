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

/// Sum of x[s, e) with four independent partial sums (no loop-carried add chain).
SLAB_HD_INLINE double block_sum(const double* x, std::int64_t s, std::int64_t e) {
  double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  std::int64_t j = s;
  for (; j + 4 <= e; j += 4) a0 += x[j], a1 += x[j + 1], a2 += x[j + 2], a3 += x[j + 3];
  for (; j < e; ++j) a0 += x[j];
  return (a0 + a1) + (a2 + a3);
}

/// Whether x[s, e) holds a NaN or an infinity (branch-free).
SLAB_HD_INLINE bool has_nonfinite(const double* x, std::int64_t s, std::int64_t e) {
  bool any = false;
  for (std::int64_t j = s; j < e; ++j) any |= !slab::kernels::is_finite(x[j]);
  return any;
}

/// sum/mean when every value is finite: every row counts (nobs = e - s), so the loop carries no per-row test,
/// and instead of a Kahan step per add and remove the window sum is recomputed from scratch once the window
/// has slid its own length (at least 256 rows): the rounding drift is bounded by one window of updates, at
/// the cost of about one extra (vectorisable) add per row.
template <class StartFn>
SLAB_HD void slide_dense_sum(const double* x, std::int64_t halo, std::int64_t n, std::int64_t minp, bool mean,
                             StartFn& start_of, double* out) {
  std::int64_t s = 0, e = 0, budget = 0;
  double sum = 0;
  for (std::int64_t i = halo; i < halo + n; ++i) {
    const std::int64_t ns = start_of(i);
    if (budget == 0 || ns >= e) {
      s = ns, e = i + 1;
      sum = block_sum(x, s, e);
      budget = e - s > 256 ? e - s : 256;
    } else {
      double d = 0;  // this row's change, off the running sum's dependency chain
      for (; e <= i; ++e) d += x[e];
      for (; s < ns; ++s) d -= x[s];
      sum += d;
      --budget;
    }
    const std::int64_t nobs = e - s;
    out[i - halo] = nobs >= minp && nobs > 0 ? (mean ? sum / static_cast<double>(nobs) : sum) : nan();
  }
}

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
  if ((op == RollingKind::sum || op == RollingKind::mean) && !rolling_detail::has_nonfinite(x, s, m)) {
    rolling_detail::slide_dense_sum(x, halo, n, minp, op == RollingKind::mean, start_of, out);
    return;
  }
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
        double r = rolling_detail::nan();
        if (op == RollingKind::count) {
          // pandas: count applies min_periods to the rows in the window, NaN included.
          if (e - s >= min_periods) r = static_cast<double>(acc.nvalid);
        } else if (acc.nobs >= minp && acc.nobs > 0) {
          r = op == RollingKind::sum ? acc.sum : acc.sum / static_cast<double>(acc.nobs);
        }
        out[i - halo] = r;
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
