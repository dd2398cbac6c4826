#pragma once
/// @file reduction_hd.hpp
/// @brief The arithmetic of slab's array reductions as SLAB_HD functions, the one source for the host's
/// production path (src/array/reduction.cpp calls these) and the device's kernels (reduction.inl). The
/// canonical order: a chunk is cut into tiles of kTile = 4096 elements from its first element; a tile is
/// reduced over 8 lanes (element i to lane i % 8, the tail of n % 8 elements to lane 0) whose results combine
/// as ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)), M2 in a second pass about the tile mean; a chunk's
/// tiles are merged in order into the identity (Chan's formula for M2); the caller merges chunks in chunk order
/// and ranks over the comm's fixed tree, as the host does. Same arithmetic, same order: the same bits (where
/// both sides round alike: the host's reduction.cpp contracts multiply-adds, see tests/kernels).

#include <cstdint>
#include <type_traits>

#include "core/kernels/hd.hpp"
#include "core/kernels/int_mean_hd.hpp"

namespace slab::kernels {

/// Elements per tile (slab::detail::kTile).
inline constexpr std::int64_t kReduceTile = 4096;
inline constexpr int kReduceLanes = 8;

/// Integer sums wrap modulo 2^64 (accumulated unsigned); float sums in the value type's double or float.
template <class T>
using ReduceAcc = std::conditional_t<std::is_integral_v<T>, std::uint64_t, double>;

template <class T>
SLAB_HD_INLINE constexpr T lowest_of() {
  if constexpr (std::is_same_v<T, double>)
    return -1.7976931348623157e308;
  else if constexpr (std::is_same_v<T, float>)
    return -3.40282347e38f;
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return static_cast<T>(-2147483647 - 1);
  else
    return static_cast<T>(0x8000000000000000ull);
}
template <class T>
SLAB_HD_INLINE constexpr T max_of() {
  if constexpr (std::is_same_v<T, double>)
    return 1.7976931348623157e308;
  else if constexpr (std::is_same_v<T, float>)
    return 3.40282347e38f;
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return static_cast<T>(2147483647);
  else
    return static_cast<T>(0x7fffffffffffffffull);
}

/// The partial statistics of a set of values (count, sum, mean, M2, min, max, NaN/inf flags), merged with
/// Chan's formula. mean and M2 are those of the `nf` finite values only: an infinity in them would make Chan's
/// update inf - inf = NaN (NumPy's mean([inf, 1]) is inf, not NaN). The infinities are flags instead, and the
/// results follow sum / n (stats_mean, stats_variance): mean +-inf with infinities of one sign, NaN with both;
/// var NaN with any (as NumPy).
template <class T>
struct StatsPartial {
  std::int64_t n = 0;   ///< all values
  std::int64_t nf = 0;  ///< the values in mean and m2 (the finite ones)
  ReduceAcc<T> sum = 0;
  double mean = 0;
  double m2 = 0;
  T min = max_of<T>();
  T max = lowest_of<T>();
  std::int32_t nan = 0, pinf = 0, ninf = 0;
};

/// Fold b (later elements) into a.
template <class T>
SLAB_HD_INLINE void merge_stats(StatsPartial<T>& a, const StatsPartial<T>& b) {
  if (b.n == 0) return;
  if (a.n == 0) {
    a = b;
    return;
  }
  if (a.nf == 0) {
    a.mean = b.mean, a.m2 = b.m2;
  } else if (b.nf > 0) {
    const double na = static_cast<double>(a.nf), nb = static_cast<double>(b.nf), n = na + nb;
    const double delta = b.mean - a.mean;
    a.mean += delta * (nb / n);
    a.m2 += b.m2 + delta * delta * (na * nb / n);
  }
  a.nf += b.nf;
  a.n += b.n;
  a.sum += b.sum;
  a.min = b.min < a.min ? b.min : a.min;
  a.max = a.max < b.max ? b.max : a.max;
  a.nan |= b.nan;
  a.pinf |= b.pinf;
  a.ninf |= b.ninf;
}

/// One value into a partial (Welford), for the axis reductions and a tile holding NaN or inf.
template <class T>
SLAB_HD_INLINE void stats_add(StatsPartial<T>& p, T x) {
  ++p.n;
  p.sum += x;
  p.min = x < p.min ? x : p.min;
  p.max = p.max < x ? x : p.max;
  if constexpr (std::is_floating_point_v<T>) {
    if (x != x) {
      p.nan = 1;
      return;
    }
    if (!is_finite(x)) {
      (x > 0 ? p.pinf : p.ninf) = 1;
      return;
    }
  }
  ++p.nf;
  const double d = static_cast<double>(x) - p.mean;
  p.mean += d / static_cast<double>(p.nf);
  p.m2 += d * (static_cast<double>(x) - p.mean);
}

/// The partial of one tile x[0, n), n <= kReduceTile: 8 independent lanes (vectorisable without
/// reassociation) for sum, min and max, then a second pass over the tile, still in cache, for M2 about the
/// tile mean (measured faster on the host than the one-pass shifted-data formula).
template <class T>
SLAB_HD_INLINE StatsPartial<T> tile_stats(const T* x, std::int64_t n) {
  StatsPartial<T> t;
  if (n == 0) return t;
  constexpr int L = kReduceLanes;
  ReduceAcc<T> s[L] = {};
  double ds[L] = {};  // integers only: the tile mean in double, so that mean and var never wrap
  T mn[L], mx[L];
  for (int j = 0; j < L; ++j) mn[j] = mx[j] = x[0];
  std::int64_t i = 0;
  for (; i + L <= n; i += L)
    for (int j = 0; j < L; ++j) {
      const T v = x[i + j];
      s[j] += v;
      if constexpr (std::is_integral_v<T>) ds[j] += static_cast<double>(v);
      mn[j] = v < mn[j] ? v : mn[j];
      mx[j] = mx[j] < v ? v : mx[j];
    }
  for (; i < n; ++i) {
    s[0] += x[i];
    if constexpr (std::is_integral_v<T>) ds[0] += static_cast<double>(x[i]);
    mn[0] = x[i] < mn[0] ? x[i] : mn[0];
    mx[0] = mx[0] < x[i] ? x[i] : mx[0];
  }
  t.n = t.nf = n;
  t.sum = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
  t.min = mn[0];
  t.max = mx[0];
  for (int j = 1; j < L; ++j) {
    t.min = mn[j] < t.min ? mn[j] : t.min;
    t.max = t.max < mx[j] ? mx[j] : t.max;
  }
  if constexpr (std::is_floating_point_v<T>) {
    // A NaN or an infinity makes the sum non-finite (as does a finite overflow): redo the tile one value at a
    // time, keeping them out of mean and M2 (rare, so the fast path keeps its vector loops).
    if (!is_finite(t.sum)) {
      StatsPartial<T> slow;
      for (i = 0; i < n; ++i) stats_add(slow, x[i]);
      slow.sum = t.sum;  // the same sum as the fast path would give
      return slow;
    }
  }
  if constexpr (std::is_integral_v<T>)
    t.mean = (((ds[0] + ds[1]) + (ds[2] + ds[3])) + ((ds[4] + ds[5]) + (ds[6] + ds[7]))) / static_cast<double>(n);
  else
    t.mean = t.sum / static_cast<double>(n);
  double q[L] = {};
  for (i = 0; i + L <= n; i += L)
    for (int j = 0; j < L; ++j) {
      const double d = static_cast<double>(x[i + j]) - t.mean;
      q[j] += d * d;
    }
  for (; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - t.mean;
    q[0] += d * d;
  }
  t.m2 = ((q[0] + q[1]) + (q[2] + q[3])) + ((q[4] + q[5]) + (q[6] + q[7]));
  return t;
}

/// The quiet NaN and +inf every finish below returns (std::numeric_limits' bits).
SLAB_HD_INLINE double reduce_nan() { return bits_double(0x7FF8000000000000ull); }
SLAB_HD_INLINE double reduce_inf() { return bits_double(0x7FF0000000000000ull); }

/// The mean as NumPy's (and Dask's) sum / n gives it: the canonical sum over n, not Chan's merged mean, whose
/// rounding grows with the merges (1e7 values: 2e-14 relative, against sum / n's 3e-16); an integer sum that
/// wrapped placed by the min and max (int64_mean), Chan's mean where even they cannot. NaN with a NaN or
/// infinities of both signs, +-inf with those of one sign.
template <class T>
SLAB_HD_INLINE double stats_mean(const StatsPartial<T>& s) {
  if (s.nan || s.n == 0 || (s.pinf && s.ninf)) return reduce_nan();
  if (s.pinf) return reduce_inf();
  if (s.ninf) return -reduce_inf();
  if constexpr (std::is_integral_v<T>)
    return int64_mean(static_cast<std::int64_t>(s.sum), s.n, static_cast<std::int64_t>(s.min),
                      static_cast<std::int64_t>(s.max), s.mean);
  else
    return s.sum / static_cast<double>(s.n);
}
/// The variance with `ddof` delta degrees of freedom: NaN with a NaN or an infinity (NumPy: x - mean is
/// inf - inf) or no values; where n - ddof <= 0, NumPy's M2 / max(n - ddof, 0): inf, or NaN (0 / 0) where every
/// value is the same. (Decided by min == max, not by M2 == 0: M2's rounding noise depends on the chunks and ranks,
/// so NumPy, whose two-pass M2 of [0.1] * 3 is not 0, gives inf there.)
template <class T>
SLAB_HD_INLINE double stats_variance(const StatsPartial<T>& s, int ddof) {
  if (s.nan || s.pinf || s.ninf || s.n == 0) return reduce_nan();
  const double d = static_cast<double>(s.n - ddof);
  if (d > 0) return s.m2 / d;
  return s.min == s.max ? reduce_nan() : reduce_inf();
}

/// Sum (wrapping for integers), a double sum (norm, nanmean) and a count.
template <class T>
struct SumPartial {
  ReduceAcc<T> sum = 0;
  double dsum = 0;
  std::int64_t n = 0;
};
/// Fold q (later elements) into p.
template <class T>
SLAB_HD_INLINE void merge_sums(SumPartial<T>& p, const SumPartial<T>& q) {
  p.sum += q.sum;
  p.dsum += q.dsum;
  p.n += q.n;
}

/// sum()'s tile: 8 lanes of x, summed as ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)).
template <class T>
SLAB_HD_INLINE ReduceAcc<T> tile_sum(const T* x, std::int64_t n) {
  constexpr int L = kReduceLanes;
  ReduceAcc<T> s[L] = {};
  std::int64_t i = 0;
  for (; i + L <= n; i += L)
    for (int j = 0; j < L; ++j) s[j] += x[i + j];
  for (; i < n; ++i) s[0] += x[i];
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}
/// nansum()'s and nanmean()'s tile: sum()'s 8 lanes with NaN counted as 0 (so skipped: a lane starts at +0.0,
/// and +0.0 + -0.0 is +0.0 as a skipped value leaves it), the values that are not NaN counted into `count`.
template <class T>
SLAB_HD_INLINE ReduceAcc<T> tile_nansum(const T* x, std::int64_t n, std::int64_t& count) {
  constexpr int L = kReduceLanes;
  ReduceAcc<T> s[L] = {};
  std::int64_t c = 0;
  std::int64_t i = 0;
  for (; i + L <= n; i += L)
    for (int j = 0; j < L; ++j) {
      const bool keep = x[i + j] == x[i + j];
      s[j] += keep ? static_cast<ReduceAcc<T>>(x[i + j]) : ReduceAcc<T>(0);
      c += keep ? 1 : 0;
    }
  for (; i < n; ++i) {
    const bool keep = x[i] == x[i];
    s[0] += keep ? static_cast<ReduceAcc<T>>(x[i]) : ReduceAcc<T>(0);
    c += keep ? 1 : 0;
  }
  count += c;
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}
/// norm()'s tile: 8 lanes of x^2 in double.
template <class T>
SLAB_HD_INLINE double tile_sum_squares(const T* x, std::int64_t n) {
  double s[8] = {};
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) s[j] += static_cast<double>(x[i + j]) * static_cast<double>(x[i + j]);
  for (; i < n; ++i) s[0] += static_cast<double>(x[i]) * static_cast<double>(x[i]);
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}
/// count_nonzero()'s tile.
template <class T>
SLAB_HD_INLINE std::int64_t tile_count_nonzero(const T* x, std::int64_t n) {
  std::int64_t c = 0;
  for (std::int64_t i = 0; i < n; ++i) c += x[i] != T(0);
  return c;
}

/// Extremes with the flat global index of their first occurrence, and of the first NaN.
template <class T>
struct ArgPartial {
  T min = max_of<T>();
  T max = lowest_of<T>();
  std::int64_t imin = -1, imax = -1, inan = -1;
};
/// Fold element v at global index g into p.
template <class T>
SLAB_HD_INLINE void arg_fold(ArgPartial<T>& p, T v, std::int64_t g) {
  if constexpr (std::is_floating_point_v<T>) {
    if (v != v) {
      if (p.inan < 0 || g < p.inan) p.inan = g;
      return;
    }
  }
  if (p.imin < 0 || v < p.min || (v == p.min && g < p.imin)) p.min = v, p.imin = g;
  if (p.imax < 0 || p.max < v || (v == p.max && g < p.imax)) p.max = v, p.imax = g;
}
/// arg_fold of one side only (the maximum where Max, else the minimum; the other side stays empty), for the
/// arg-reductions along an axis, which need one.
template <bool Max, class T>
SLAB_HD_INLINE void arg_fold_one(ArgPartial<T>& p, T v, std::int64_t g) {
  if constexpr (std::is_floating_point_v<T>) {
    if (v != v) {
      if (p.inan < 0 || g < p.inan) p.inan = g;
      return;
    }
  }
  if constexpr (Max) {
    if (p.imax < 0 || p.max < v || (v == p.max && g < p.imax)) p.max = v, p.imax = g;
  } else {
    if (p.imin < 0 || v < p.min || (v == p.min && g < p.imin)) p.min = v, p.imin = g;
  }
}
/// Fold q into p: the smaller index wins ties (and the first NaN).
template <class T>
SLAB_HD_INLINE void arg_merge(ArgPartial<T>& p, const ArgPartial<T>& q) {
  if (q.inan >= 0 && (p.inan < 0 || q.inan < p.inan)) p.inan = q.inan;
  if (q.imin >= 0 && (p.imin < 0 || q.min < p.min || (q.min == p.min && q.imin < p.imin)))
    p.min = q.min, p.imin = q.imin;
  if (q.imax >= 0 && (p.imax < 0 || p.max < q.max || (q.max == p.max && q.imax < p.imax)))
    p.max = q.max, p.imax = q.imax;
}

}  // namespace slab::kernels
