#pragma once
/// @file agg_hd.hpp
/// @brief groupby's aggregation states as SLAB_HD functions: folding one row into a state (count, sum, Welford
/// mean/M2, min, max, first/last with their row order) and combining two states (Chan's formula for M2). The
/// arithmetic steps (welford_add, chan_combine, AggValue::add) are the one source of the host's column-at-a-time
/// loops too (src/frame/groupby/state.hpp, ColAgg calls them), so a state folded from the same rows in the same
/// order, or combined from the same states in the same order, is bitwise the host's.

#include <cstdint>
#include <type_traits>

#include "core/kernels/hd.hpp"
#include "core/kernels/int_mean_hd.hpp"

namespace slab::frame::kernels {

using slab::kernels::int64_mean;

/// The partial state of one aggregated column in one group: groupby.cpp's record words. Values (sum, min, max,
/// first and last values) are the bits of a double (float64 columns) or of an int64 (everything else).
struct AggState {
  std::int64_t count = 0;
  std::uint64_t sum = 0;
  double mean = 0, m2 = 0;
  std::uint64_t min = 0, max = 0;
  std::uint64_t first_order = ~0ull, first_value = 0;
  std::uint64_t last_order = 0, last_value = 0;
};

/// Which parts of the state an aggregation needs (count always: the others' merges read it).
struct AggParts {
  bool sum = false, welford = false, min = false, max = false, first = false, last = false;
};

/// Welford's update of (mean, m2) by x, the k-th value of the group.
SLAB_HD_INLINE void welford_add(double& mean, double& m2, double k, double x) noexcept {
  const double d = x - mean;
  mean += d / k;
  m2 += d * (x - mean);
}
/// Chan et al.: (mean, m2) of na values absorbs (mb, m2b) of nb > 0 later values.
SLAB_HD_INLINE void chan_combine(double& mean, double& m2, std::int64_t na, std::int64_t nb, double mb,
                                 double m2b) noexcept {
  if (na == 0) {
    mean = mb;
    m2 = m2b;
    return;
  }
  const double n = static_cast<double>(na + nb), d = mb - mean;
  mean += d * static_cast<double>(nb) / n;
  m2 += m2b + d * d * static_cast<double>(na) * static_cast<double>(nb) / n;
}

/// V = double (float64 columns) or std::int64_t (int64, timestamp, bool, string codes).
template <class V>
struct AggValue {
  SLAB_HD_INLINE static std::uint64_t bits(V v) noexcept {
    if constexpr (std::is_floating_point_v<V>)
      return slab::kernels::double_bits(static_cast<double>(v));
    else
      return static_cast<std::uint64_t>(v);
  }
  SLAB_HD_INLINE static V from_bits(std::uint64_t b) noexcept {
    if constexpr (std::is_floating_point_v<V>)
      return slab::kernels::bits_double(b);
    else
      return static_cast<V>(b);
  }
  /// a + b; int64 sums wrap modulo 2^64 (ColAgg::add), without signed overflow.
  SLAB_HD_INLINE static V add(V a, V b) noexcept {
    if constexpr (std::is_floating_point_v<V>)
      return a + b;
    else
      return static_cast<V>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
  }
  /// The empty state (ColAgg::resize).
  SLAB_HD_INLINE static AggState identity() noexcept {
    AggState s;
    s.sum = bits(V(0));
    if constexpr (std::is_floating_point_v<V>) {
      s.min = 0x7FF0000000000000ull;  // +inf
      s.max = 0xFFF0000000000000ull;  // -inf
    } else {
      s.min = static_cast<std::uint64_t>(0x7fffffffffffffffll);
      s.max = static_cast<std::uint64_t>(0x8000000000000000ull);
    }
    return s;
  }
};

/// ColAgg::fold for one non-null row of value x and order `order`.
template <class V>
SLAB_HD_INLINE void fold_row(AggState& s, const AggParts& p, V x, std::uint64_t order) noexcept {
  using A = AggValue<V>;
  if (p.welford) {  // Welford with the running count; the sum rides in the same pass
    welford_add(s.mean, s.m2, static_cast<double>(++s.count), static_cast<double>(x));
  } else {
    ++s.count;
  }
  if (p.sum) s.sum = A::bits(A::add(A::from_bits(s.sum), x));
  if (p.min) {
    const V lo = A::from_bits(s.min);
    s.min = A::bits(x < lo ? x : lo);
  }
  if (p.max) {
    const V hi = A::from_bits(s.max);
    s.max = A::bits(x > hi ? x : hi);
  }
  if (p.first && order < s.first_order) {
    s.first_order = order;
    s.first_value = A::bits(x);
  }
  if (p.last && order >= s.last_order) {
    s.last_order = order;
    s.last_value = A::bits(x);
  }
}

/// ColAgg::combine_t: fold the partial state b (of later rows, or another rank's) into a.
template <class V>
SLAB_HD_INLINE void combine_states(AggState& a, const AggState& b, const AggParts& p) noexcept {
  using A = AggValue<V>;
  const std::int64_t nb = b.count, na = a.count;
  a.count = na + nb;
  if (p.sum) a.sum = A::bits(A::add(A::from_bits(a.sum), A::from_bits(b.sum)));
  if (p.welford && nb > 0) chan_combine(a.mean, a.m2, na, nb, b.mean, b.m2);
  if (p.min && A::from_bits(b.min) < A::from_bits(a.min)) a.min = b.min;
  if (p.max && A::from_bits(b.max) > A::from_bits(a.max)) a.max = b.max;
  if (p.first && nb > 0 && b.first_order < a.first_order) {
    a.first_order = b.first_order;
    a.first_value = b.first_value;
  }
  if (p.last && nb > 0 && (na == 0 || b.last_order >= a.last_order)) {
    a.last_order = b.last_order;
    a.last_value = b.last_value;
  }
}

}  // namespace slab::frame::kernels
