#pragma once
// The composition of rolling.hpp: each output's window start (a formula for row windows, a binary search in the
// sorted timestamps for time windows); sums, means, std and counts by runs of kRollingRun outputs, one
// sequential slide each with the host's accumulators (rolling_hd.hpp); min and max by a range query per output
// over block extremes at three levels (64, 4096 and 262144 rows) and a prefix count of the usable (finite)
// values.
#include <thrust/binary_search.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/transform.h>

#include <string>

#include "core/kernels/counter_rng_hd.hpp"
#include "core/kernels/scratch.hpp"
#include "frame/kernels/rolling.hpp"
#include "frame/kernels/rolling_hd.hpp"
#include "slab/core/error.hpp"

namespace slab::frame::kernels {
namespace detail {

SLAB_HD_INLINE double rolling_nan() { return slab::kernels::bits_double(0x7FF8000000000000ull); }

/// Window start (an index into halo + own rows) of own output k.
struct RowWindowStart {
  std::int64_t halo, window;
  SLAB_HD std::int64_t operator()(std::int64_t k) const {
    const std::int64_t i = halo + k;
    return i + 1 >= window ? i + 1 - window : 0;
  }
};
struct TimeWindowStart {
  const std::int64_t* t;
  std::int64_t halo, span;
  SLAB_HD std::int64_t operator()(std::int64_t k) const {
    const std::int64_t i = halo + k, bound = t[i] - span;
    std::int64_t lo = 0, hi = i;  // the first j <= i with t[j] > bound (t[i] itself is)
    while (lo < hi) {
      const std::int64_t mid = (lo + hi) / 2;
      if (t[mid] <= bound)
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo;
  }
};

/// Within each group's rows (sorted positions offsets[g] .. offsets[g + 1], `groups` of them): the window start
/// of output k, its group's first row or k + 1 - window, whichever is later.
struct SegmentWindowStart {
  const std::int64_t* offsets;
  std::int64_t groups, window;
  SLAB_HD std::int64_t operator()(std::int64_t k) const {
    const std::int64_t begin = offsets[slab::kernels::segment_holding(offsets, groups, k)], w = k + 1 - window;
    return w > begin ? w : begin;
  }
};

/// A run's outputs [k0, k1); `fresh`: it starts where the host starts afresh (the first output of a column or of
/// a group), else where the host recomputes (a std) or anywhere (the rest).
struct RunBounds {
  std::int64_t k0, k1;
  bool fresh;
};

/// One column's runs: run 0 is [0, first_run), run r > 0 starts at first_run + (r - 1) run_length.
struct ColumnRuns {
  std::int64_t n, first_run, run_length;
  SLAB_HD RunBounds operator()(std::int64_t run) const {
    const std::int64_t k0 = run == 0 ? 0 : first_run + (run - 1) * run_length;
    const std::int64_t end = run == 0 ? first_run : k0 + run_length;
    return {k0, end < n ? end : n, run == 0};
  }
};

/// Runs of one group as ColumnRuns cuts a column, from the group's first row; `run0` (groups + 1): the first
/// run of each group, past the last run: none (k0 = k1).
struct GroupRuns {
  const std::int64_t* offsets;
  const std::int64_t* run0;
  std::int64_t groups, first_run, run_length;
  SLAB_HD std::int64_t count(std::int64_t g) const {
    const std::int64_t m = offsets[g + 1] - offsets[g];
    return m <= first_run ? 1 : 1 + (m - first_run + run_length - 1) / run_length;
  }
  SLAB_HD RunBounds operator()(std::int64_t run) const {
    if (run >= run0[groups]) return {0, 0, false};
    const std::int64_t lo = slab::kernels::segment_holding(run0, groups, run);  // run0[lo] <= run < run0[lo + 1]
    const RunBounds r =
        ColumnRuns{offsets[lo + 1] - offsets[lo], first_run, run_length}(run - run0[lo]);
    return {offsets[lo] + r.k0, offsets[lo] + r.k1, r.fresh};
  }
};

struct GroupRunCount {
  GroupRuns runs;
  SLAB_HD std::int64_t operator()(std::int64_t g) const { return runs.count(g); }
};

/// sum / mean / count / std over one run of outputs, slid as the host's loop (rolling.cpp's slide()).
template <class Runs>
struct SlideRun {
  const double* x;
  const std::int64_t* start;
  std::int64_t halo, min_periods, recompute_every;
  RollingKind op;
  Runs runs;
  double* out;

  SLAB_HD void operator()(std::int64_t run) const {
    const RunBounds bounds = runs(run);
    const std::int64_t k0 = bounds.k0, k1 = bounds.k1;
    if (k0 >= k1) return;
    const std::int64_t minp =
        min_periods > (op == RollingKind::count ? 0 : 1) ? min_periods : (op == RollingKind::count ? 0 : 1);
    std::int64_t s = start[k0], e = halo + k0;
    if (op == RollingKind::std) {
      RollingVar acc;
      acc.recompute(x, s, e);
      // A later run starts on a host recompute: the host's counter is 0 after it, and this run's first output
      // increments ours before the test.
      std::int64_t since = bounds.fresh ? 0 : -1;
      for (std::int64_t k = k0; k < k1; ++k) {
        const std::int64_t i = halo + k, ns = start[k];
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
        out[k] = acc.std_or_nan(minp);
      }
      return;
    }
    RollingSum acc;
    for (std::int64_t j = s; j < e; ++j) acc.add(x[j]);
    for (std::int64_t k = k0; k < k1; ++k) {
      const std::int64_t i = halo + k, ns = start[k];
      if (ns >= e) {  // disjoint from the previous window: start afresh (pandas does the same)
        acc.reset();
        s = e = ns;
      }
      for (; s < ns; ++s) acc.remove(x[s]);
      for (; e <= i; ++e) acc.add(x[e]);
      if (op == RollingKind::count)  // pandas: min_periods over rows, NaN included
        out[k] = e - s >= min_periods ? static_cast<double>(acc.nvalid) : rolling_nan();
      else
        out[k] = acc.sum_or_nan(minp, op == RollingKind::mean);
    }
  }
};

/// An extreme and its index (-1: none, no usable value); of two, the later wins ties (the host deque's rule).
struct Extreme {
  double v;
  std::int64_t at;
};
SLAB_HD_INLINE Extreme later_extreme(Extreme a, Extreme b, bool is_min) {
  if (b.at < 0) return a;
  if (a.at < 0) return b;
  return (is_min ? b.v <= a.v : b.v >= a.v) ? b : a;
}

inline constexpr std::int64_t kLevel = 64;  // blocks per level: 64, 64^2, 64^3 rows

struct BlockExtreme {
  const double* x;       // level 0
  const Extreme* lower;  // or the level below
  std::int64_t count;    // entries of the level below
  bool is_min;
  Extreme* out;
  SLAB_HD void operator()(std::int64_t blk) const {
    Extreme best{0, -1};
    const std::int64_t b = blk * kLevel, e = b + kLevel < count ? b + kLevel : count;
    for (std::int64_t j = b; j < e; ++j) {
      Extreme c;
      if (x) {
        c = {x[j], rolling_usable(x[j]) ? j : -1};
      } else {
        c = lower[j];
      }
      best = later_extreme(best, c, is_min);
    }
    out[blk] = best;
  }
};

struct Usable {
  const double* x;
  SLAB_HD std::int64_t operator()(std::int64_t j) const { return rolling_usable(x[j]) ? 1 : 0; }
};

struct WindowExtreme {
  const double* x;
  const Extreme* level[3];
  const std::int64_t* start;
  const std::int64_t* valid_before;  // exclusive prefix count of usable values
  std::int64_t halo, min_periods;
  bool is_min;
  double* out;
  SLAB_HD void operator()(std::int64_t k) const {
    const std::int64_t s = start[k], e = halo + k + 1;
    const std::int64_t nobs = valid_before[e] - valid_before[s];
    const std::int64_t minp = min_periods > 1 ? min_periods : 1;
    if (nobs < minp || nobs == 0) {
      out[k] = rolling_nan();
      return;
    }
    Extreme best{0, -1};
    std::int64_t p = s;
    constexpr std::int64_t size[3] = {kLevel, kLevel * kLevel, kLevel * kLevel * kLevel};
    while (p < e) {
      int l = 2;  // the largest aligned block that fits
      while (l >= 0 && (p % size[l] != 0 || p + size[l] > e)) --l;
      if (l < 0) {
        best = later_extreme(best, {x[p], rolling_usable(x[p]) ? p : -1}, is_min);
        ++p;
      } else {
        best = later_extreme(best, level[l][p / size[l]], is_min);
        p += size[l];
      }
    }
    out[k] = x[best.at];
  }
};

/// The outputs of x[halo, halo + n) (windows from start_of), or with `offsets` (groups + 1 entries, halo 0) each
/// group's own: the runs cut per group, each group's first output fresh.
template <class B, class StartFn>
void rolling_run(const Exec& exec, const double* x, std::int64_t halo, std::int64_t n, std::int64_t min_periods,
                 std::int64_t recompute_every, RollingKind op, StartFn start_of, double* out,
                 const std::int64_t* offsets = nullptr, std::int64_t groups = 0) {
  (void)exec;
  if (n <= 0) return;
  B b(exec);
  using slab::kernels::Scratch;
  thrust::counting_iterator<std::int64_t> i(0);
  Scratch<std::int64_t, B> start(b, n);
  thrust::transform(b.policy(), i, i + n, start.get(), start_of);
  if (op != RollingKind::min && op != RollingKind::max) {
    // Runs of kRollingRun outputs. A row window's std recomputes its variance exactly every `window` outputs
    // (the host's schedule): at output window - 1, then every `window` outputs. Without a halo the first
    // output starts afresh instead (its window holds no earlier row), which delays the schedule by one: the
    // first recompute is at output `window`. Its runs start where the host recomputes, so every run begins
    // in the host's own state. Each group starts afresh on the host, so its runs are cut from its first row.
    std::int64_t first = kRollingRun, length = kRollingRun;
    if (op == RollingKind::std && recompute_every > 1) {
      length = recompute_every * (kRollingRun / recompute_every > 0 ? kRollingRun / recompute_every : 1);
      first = recompute_every - (halo == 0 ? 0 : 1);
    }
    if (!offsets) {
      const std::int64_t runs = n <= first ? 1 : 1 + (n - first + length - 1) / length;
      thrust::for_each(
          b.policy(), i, i + runs,
          SlideRun<ColumnRuns>{x, start.get(), halo, min_periods, recompute_every, op, {n, first, length}, out});
      return;
    }
    Scratch<std::int64_t, B> run0(b, groups + 1);
    GroupRuns runs{offsets, run0.get(), groups, first, length};
    thrust::transform(b.policy(), i, i + groups, run0.get(), GroupRunCount{runs});
    b.zero(run0.get() + groups, sizeof(std::int64_t));
    thrust::exclusive_scan(b.policy(), run0.get(), run0.get() + groups + 1, run0.get());
    // A bound (a group has at most 2 + (m - first) / length runs): no synchronisation for the count.
    const std::int64_t max_runs = 2 * groups + n / length + 1;
    thrust::for_each(b.policy(), i, i + max_runs,
                     SlideRun<GroupRuns>{x, start.get(), 0, min_periods, recompute_every, op, runs, out});
    return;
  }
  const bool is_min = op == RollingKind::min;
  const std::int64_t m = halo + n;
  const std::int64_t c1 = (m + kLevel - 1) / kLevel, c2 = (c1 + kLevel - 1) / kLevel, c3 = (c2 + kLevel - 1) / kLevel;
  Scratch<Extreme, B> l1(b, c1), l2(b, c2), l3(b, c3);
  thrust::for_each(b.policy(), i, i + c1, BlockExtreme{x, nullptr, m, is_min, l1.get()});
  thrust::for_each(b.policy(), i, i + c2, BlockExtreme{nullptr, l1.get(), c1, is_min, l2.get()});
  thrust::for_each(b.policy(), i, i + c3, BlockExtreme{nullptr, l2.get(), c2, is_min, l3.get()});
  Scratch<std::int64_t, B> before(b, m + 1);  // before[j] = usable values among x[0, j)
  b.zero(before.get(), sizeof(std::int64_t));
  auto valid = thrust::make_transform_iterator(i, Usable{x});
  thrust::inclusive_scan(b.policy(), valid, valid + m, before.get() + 1);
  thrust::for_each(
      b.policy(), i, i + n,
      WindowExtreme{x, {l1.get(), l2.get(), l3.get()}, start.get(), before.get(), halo, min_periods, is_min, out});
}

struct RollingValue {
  ColumnView col;
  double* out;
  SLAB_HD void operator()(std::int64_t i) const {
    if (col.valid && !col.valid[i]) {
      out[i] = rolling_nan();
    } else if (col.type == ElementType::float64) {
      out[i] = static_cast<const double*>(col.data)[i];
    } else if (col.type == ElementType::boolean) {
      out[i] = static_cast<double>(static_cast<const std::uint8_t*>(col.data)[i]);
    } else {
      out[i] = static_cast<double>(static_cast<const std::int64_t*>(col.data)[i]);
    }
  }
};

inline void check_rolling(std::int64_t halo, std::int64_t n, std::int64_t min_periods, const char* what) {
  SLAB_EXPECTS(halo >= 0 && n >= 0 && min_periods >= 0, InvalidArgument,
               std::string(what) + ": negative halo, row count or min_periods");
}

}  // namespace detail

template <class B>
void RollingKernels<B>::rows(const Exec& exec, const double* x, std::int64_t halo, std::int64_t n, std::int64_t window,
                             std::int64_t min_periods, RollingKind op, double* out) {
  detail::check_rolling(halo, n, min_periods, "rolling rows");
  SLAB_EXPECTS(window >= 1, InvalidArgument, "rolling rows: the window must be at least 1 row");
  detail::rolling_run<B>(exec, x, halo, n, min_periods, window, op, detail::RowWindowStart{halo, window}, out);
}

template <class B>
void RollingKernels<B>::groups(const Exec& exec, const double* x, const std::int64_t* offsets, std::int64_t groups,
                               std::int64_t n, std::int64_t window, std::int64_t min_periods, RollingKind op,
                               double* out) {
  detail::check_rolling(0, n, min_periods, "rolling within groups");
  SLAB_EXPECTS(window >= 1, InvalidArgument, "rolling within groups: the window must be at least 1 row");
  if (groups <= 0) return;
  detail::rolling_run<B>(exec, x, 0, n, min_periods, window, op, detail::SegmentWindowStart{offsets, groups, window},
                         out, offsets, groups);
}

template <class B>
void RollingKernels<B>::time(const Exec& exec, const std::int64_t* t, const double* x, std::int64_t halo,
                             std::int64_t n, std::int64_t span, std::int64_t min_periods, RollingKind op, double* out) {
  detail::check_rolling(halo, n, min_periods, "rolling time");
  SLAB_EXPECTS(span >= 1, InvalidArgument, "rolling time: the span must be positive");
  detail::rolling_run<B>(exec, x, halo, n, min_periods, 0, op, detail::TimeWindowStart{t, halo, span}, out);
}

template <class B>
void RollingKernels<B>::values(const Exec& exec, const ColumnView& col, std::int64_t n, double* out) {
  SLAB_EXPECTS(col.type == ElementType::float64 || col.type == ElementType::int64 ||
                   col.type == ElementType::timestamp || col.type == ElementType::boolean,
               TypeError, "rolling: the column is not numeric or bool");
  if (n <= 0) return;
  B b(exec);
  thrust::counting_iterator<std::int64_t> i(0);
  thrust::for_each(b.policy(), i, i + n, detail::RollingValue{col, out});
}

template <class B>
std::int64_t RollingKernels<B>::time_carry_start(const Exec& exec, const std::int64_t* t, std::int64_t n,
                                                 std::int64_t span) {
  if (n <= 0) return 0;
  B b(exec);
  std::int64_t last = 0;
  b.to_host(&last, t + n - 1, sizeof last);
  return first_after(exec, t, n, last - span);
}

template <class B>
std::int64_t RollingKernels<B>::first_after(const Exec& exec, const std::int64_t* t, std::int64_t n,
                                            std::int64_t bound) {
  if (n <= 0) return 0;
  B b(exec);
  return thrust::upper_bound(b.policy(), t, t + n, bound) - t;
}

}  // namespace slab::frame::kernels
