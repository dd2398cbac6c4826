// Reductions of slab::Array: one partial per chunk (fused with pending elementwise work), merged in chunk
// order on each rank and over the comm's fixed tree across ranks.
#include <cmath>
#include <limits>

#include "array/expr.hpp"
#include "slab/array/array.hpp"
#include "slab/array/creation.hpp"
#include "slab/array/elementwise.hpp"
#include "slab/array/reduction.hpp"
#include "slab/array/slicing.hpp"

namespace slab {
namespace {

double nan_v() { return std::numeric_limits<double>::quiet_NaN(); }

// Integer sums wrap modulo 2^64 as NumPy's int64 sums do (reduction.hpp): they are accumulated unsigned, where
// the wrap is defined behaviour, and read back as two's complement by acc_value().
template <class T>
using Acc = std::conditional_t<std::is_integral_v<T>, std::uint64_t, double>;
template <class T>
sum_t<T> acc_value(Acc<T> s) {
  return static_cast<sum_t<T>>(s);
}
template <class T>
double acc_double(Acc<T> s) {
  return static_cast<double>(acc_value<T>(s));
}

// (count, sum, mean, M2, min, max, NaN/inf flags) of a set of values; merged with Chan's formula.
// mean and M2 are those of the `nf` finite values only: an infinity in them would make Chan's update
// inf - inf = NaN (NumPy's mean([inf, 1]) is inf, not NaN). The infinities are flags instead, and the
// results follow sum / n: mean +-inf with infinities of one sign, NaN with both; var NaN with any (as NumPy).
template <class T>
struct StatsP {
  std::int64_t n = 0;   // all values
  std::int64_t nf = 0;  // the values in mean and m2 (the finite ones)
  Acc<T> sum = 0;
  double mean = 0;
  double m2 = 0;
  T min = std::numeric_limits<T>::max();
  T max = std::numeric_limits<T>::lowest();
  std::int32_t nan = 0, pinf = 0, ninf = 0;
};

template <class T>
void merge_stats(StatsP<T>& a, const StatsP<T>& b) {
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

// One value into a partial (Welford), for the axis reductions and a tile holding NaN or inf.
template <class T>
void add_one(StatsP<T>& p, T x) {
  ++p.n;
  p.sum += x;
  p.min = x < p.min ? x : p.min;
  p.max = p.max < x ? x : p.max;
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(x)) {
      p.nan = 1;
      return;
    }
    if (std::isinf(x)) {
      (x > 0 ? p.pinf : p.ninf) = 1;
      return;
    }
  }
  ++p.nf;
  const double d = static_cast<double>(x) - p.mean;
  p.mean += d / static_cast<double>(p.nf);
  p.m2 += d * (static_cast<double>(x) - p.mean);
}

// One tile: 8 independent lanes (vectorisable without reassociation) for sum, min and max, then a
// second pass over the tile, still in cache, for M2 about the tile mean (measured faster than the one-pass
// shifted-data formula here).
template <class T>
[[gnu::always_inline]] inline void stats_tile_impl(StatsP<T>& p, const T* x, std::int64_t n) {
  if (n == 0) return;
  constexpr int L = 8;
  Acc<T> s[L] = {};
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
  StatsP<T> t;
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
    if (!std::isfinite(t.sum)) {
      StatsP<T> slow;
      for (i = 0; i < n; ++i) add_one(slow, x[i]);
      slow.sum = t.sum;  // the same sum as the fast path would give
      merge_stats(p, slow);
      return;
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
  merge_stats(p, t);
}

// The W6 kernel is bound by arithmetic, not memory, at SSE2 width: compile it for wider vectors as well
// and let the loader pick the widest the CPU has (GCC function multiversioning).
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define SLAB_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SLAB_VECTOR_CLONES
#endif
SLAB_VECTOR_CLONES void stats_tile_f64(StatsP<double>& p, const double* x, std::int64_t n) { stats_tile_impl(p, x, n); }
SLAB_VECTOR_CLONES void stats_tile_f32(StatsP<float>& p, const float* x, std::int64_t n) { stats_tile_impl(p, x, n); }
SLAB_VECTOR_CLONES void stats_tile_i64(StatsP<std::int64_t>& p, const std::int64_t* x, std::int64_t n) {
  stats_tile_impl(p, x, n);
}
SLAB_VECTOR_CLONES void stats_tile_i32(StatsP<std::int32_t>& p, const std::int32_t* x, std::int64_t n) {
  stats_tile_impl(p, x, n);
}
void stats_tile(StatsP<double>& p, const double* x, std::int64_t n) { stats_tile_f64(p, x, n); }
void stats_tile(StatsP<float>& p, const float* x, std::int64_t n) { stats_tile_f32(p, x, n); }
void stats_tile(StatsP<std::int64_t>& p, const std::int64_t* x, std::int64_t n) { stats_tile_i64(p, x, n); }
void stats_tile(StatsP<std::int32_t>& p, const std::int32_t* x, std::int64_t n) { stats_tile_i32(p, x, n); }

template <class T>
StatsP<T> full_stats(const Array<T>& a) {
  return detail::reduce_partials<T>(
      a, "reduce_stats", StatsP<T>{},
      [](StatsP<T>& p, const T* x, std::int64_t n, const ChunkExtent&, std::int64_t) { stats_tile(p, x, n); },
      merge_stats<T>);
}

template <class T>
double variance(const StatsP<T>& s, int ddof) {
  if (s.nan || s.pinf || s.ninf) return nan_v();  // NumPy: x - mean is inf - inf for an infinity
  const double d = static_cast<double>(s.n - ddof);
  return d > 0 ? s.m2 / d : nan_v();
}

// The mean as sum / n gives it: NaN with a NaN or infinities of both signs, +-inf with those of one sign.
template <class T>
double mean_of(const StatsP<T>& s) {
  if (s.nan || s.n == 0 || (s.pinf && s.ninf)) return nan_v();
  if (s.pinf) return std::numeric_limits<double>::infinity();
  if (s.ninf) return -std::numeric_limits<double>::infinity();
  return s.mean;
}

// Sum and count of the values that pass `keep` (and of f(x) instead of x).
template <class T>
struct SumP {
  Acc<T> sum = 0;
  double dsum = 0;
  std::int64_t n = 0;
};
template <class T, class Tile>
SumP<T> sum_partials(const Array<T>& a, const char* name, Tile tile) {
  return detail::reduce_partials<T>(
      a, name, SumP<T>{},
      [tile](SumP<T>& p, const T* x, std::int64_t n, const ChunkExtent&, std::int64_t) { tile(p, x, n); },
      [](SumP<T>& p, const SumP<T>& q) {
        p.sum += q.sum;
        p.dsum += q.dsum;
        p.n += q.n;
      });
}

// Extremes with the flat global index of their first occurrence (and of the first NaN).
template <class T>
struct ArgP {
  T min = std::numeric_limits<T>::max();
  T max = std::numeric_limits<T>::lowest();
  std::int64_t imin = -1, imax = -1, inan = -1;
};

}  // namespace

template <class T>
Stats reduce_stats(const Array<T>& a, int ddof) {
  const StatsP<T> s = full_stats(a);
  Stats out;
  out.count = s.n;
  out.sum = acc_double<T>(s.sum);
  out.mean = mean_of(s);
  out.var = variance(s, ddof);
  out.std = std::sqrt(out.var);
  out.min = s.nan ? nan_v() : static_cast<double>(s.min);
  out.max = s.nan ? nan_v() : static_cast<double>(s.max);
  if (s.nan) out.sum = nan_v();
  return out;
}

template <class T>
sum_t<T> sum(const Array<T>& a) {
  const auto p = sum_partials(a, "sum", [](SumP<T>& p, const T* x, std::int64_t n) {
    constexpr int L = 8;
    Acc<T> s[L] = {};
    std::int64_t i = 0;
    for (; i + L <= n; i += L)
      for (int j = 0; j < L; ++j) s[j] += x[i + j];
    for (; i < n; ++i) s[0] += x[i];
    p.sum += ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    p.n += n;
  });
  return acc_value<T>(p.sum);
}

template <class T>
double mean(const Array<T>& a) {
  return mean_of(full_stats(a));
}
template <class T>
double var(const Array<T>& a, int ddof) {
  return variance(full_stats(a), ddof);
}
template <class T>
double std(const Array<T>& a, int ddof) {
  return std::sqrt(var(a, ddof));
}

template <class T>
T min(const Array<T>& a) {
  const StatsP<T> s = full_stats(a);
  SLAB_EXPECTS(s.n > 0, ShapeError, "min of an empty array " + a.layout().to_string());
  if constexpr (std::is_floating_point_v<T>)
    if (s.nan) return std::numeric_limits<T>::quiet_NaN();
  return s.min;
}
template <class T>
T max(const Array<T>& a) {
  const StatsP<T> s = full_stats(a);
  SLAB_EXPECTS(s.n > 0, ShapeError, "max of an empty array " + a.layout().to_string());
  if constexpr (std::is_floating_point_v<T>)
    if (s.nan) return std::numeric_limits<T>::quiet_NaN();
  return s.max;
}

namespace {
template <class T>
ArgP<T> arg_partials(const Array<T>& a) {
  const std::int64_t cols = a.cols();
  return detail::reduce_partials<T>(
      a, "argminmax", ArgP<T>{},
      [cols](ArgP<T>& p, const T* x, std::int64_t n, const ChunkExtent& e, std::int64_t k0) {
        for (std::int64_t t = 0; t < n; ++t) {
          const std::int64_t k = k0 + t;
          const std::int64_t g = (e.row0 + k / e.cols) * cols + e.col0 + k % e.cols;
          const T v = x[t];
          if constexpr (std::is_floating_point_v<T>) {
            if (std::isnan(v)) {
              if (p.inan < 0 || g < p.inan) p.inan = g;
              continue;
            }
          }
          if (p.imin < 0 || v < p.min || (v == p.min && g < p.imin)) p.min = v, p.imin = g;
          if (p.imax < 0 || p.max < v || (v == p.max && g < p.imax)) p.max = v, p.imax = g;
        }
      },
      [](ArgP<T>& p, const ArgP<T>& q) {
        if (q.inan >= 0 && (p.inan < 0 || q.inan < p.inan)) p.inan = q.inan;
        if (q.imin >= 0 && (p.imin < 0 || q.min < p.min || (q.min == p.min && q.imin < p.imin)))
          p.min = q.min, p.imin = q.imin;
        if (q.imax >= 0 && (p.imax < 0 || p.max < q.max || (q.max == p.max && q.imax < p.imax)))
          p.max = q.max, p.imax = q.imax;
      });
}
}  // namespace

template <class T>
std::int64_t argmin(const Array<T>& a) {
  const ArgP<T> p = arg_partials(a);
  SLAB_EXPECTS(p.inan >= 0 || p.imin >= 0, ShapeError, "argmin of an empty array " + a.layout().to_string());
  return p.inan >= 0 ? p.inan : p.imin;
}
template <class T>
std::int64_t argmax(const Array<T>& a) {
  const ArgP<T> p = arg_partials(a);
  SLAB_EXPECTS(p.inan >= 0 || p.imax >= 0, ShapeError, "argmax of an empty array " + a.layout().to_string());
  return p.inan >= 0 ? p.inan : p.imax;
}

template <class T>
double norm(const Array<T>& a) {
  const auto p = sum_partials(a, "norm", [](SumP<T>& p, const T* x, std::int64_t n) {
    double s[8] = {};
    std::int64_t i = 0;
    for (; i + 8 <= n; i += 8)
      for (int j = 0; j < 8; ++j) s[j] += static_cast<double>(x[i + j]) * static_cast<double>(x[i + j]);
    for (; i < n; ++i) s[0] += static_cast<double>(x[i]) * static_cast<double>(x[i]);
    p.dsum += ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
  });
  return std::sqrt(p.dsum);
}

template <class T>
std::int64_t count_nonzero(const Array<T>& a) {
  return sum_partials(a, "count_nonzero",
                      [](SumP<T>& p, const T* x, std::int64_t n) {
                        std::int64_t c = 0;
                        for (std::int64_t i = 0; i < n; ++i) c += x[i] != T(0);
                        p.n += c;
                      })
      .n;
}

template <class T>
sum_t<T> nansum(const Array<T>& a) {
  return acc_value<T>(sum_partials(a, "nansum", [](SumP<T>& p, const T* x, std::int64_t n) {
                        for (std::int64_t i = 0; i < n; ++i)
                          if (x[i] == x[i]) p.sum += x[i], ++p.n;
                      }).sum);
}
template <class T>
double nanmean(const Array<T>& a) {
  const auto p = sum_partials(a, "nanmean", [](SumP<T>& p, const T* x, std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i)
      if (x[i] == x[i]) p.dsum += static_cast<double>(x[i]), ++p.n;
  });
  return p.n ? p.dsum / static_cast<double>(p.n) : nan_v();
}

// ---------------------------------------------------------------------------------------------------------
// Axis reductions.

namespace {
template <class T>
double finish(const StatsP<T>& s, AxisOp op, int ddof) {
  switch (op) {
    case AxisOp::sum:
      return s.nan ? nan_v() : acc_double<T>(s.sum);
    case AxisOp::mean:
      return mean_of(s);
    case AxisOp::var:
      return variance(s, ddof);
    case AxisOp::std:
      return std::sqrt(variance(s, ddof));
    case AxisOp::min:
      return s.nan || !s.n ? nan_v() : static_cast<double>(s.min);
    case AxisOp::max:
      return s.nan || !s.n ? nan_v() : static_cast<double>(s.max);
  }
  return nan_v();
}
}  // namespace

template <class T>
Array<double> reduce_axis(const Array<T>& a, AxisOp op, int axis, int ddof) {
  SLAB_EXPECTS(axis == 0 || axis == 1, ShapeError,
               "reduce_axis: axis " + std::to_string(axis) + " for " + a.layout().to_string());
  Engine& engine = a.engine();
  TaskQueue& q = engine.tasks();
  const Layout& l = a.layout();
  const int rank = a.rank();
  const auto& chunks = a.local_chunks();
  // Kept axis = the split axis: every output value is local; one task per chunk, lazy.
  const bool local = (axis == 1 && l.split == Split::rows) || (axis == 0 && l.split == Split::cols);
  if (local) {
    Layout out = Layout::make(Shape{axis == 1 ? l.rows : l.cols}, Split::rows, l.nranks, l.chunk);
    out.bounds = l.bounds;
    std::vector<Chunk> res;
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      const ChunkExtent e = a.local_extent(i);
      res.push_back(q.submit("reduce_axis", {chunks[i]}, [e, op, axis, ddof](TaskContext& ctx) {
        const T* x = ctx.input_as<T>(0).data();
        const std::int64_t m = axis == 1 ? e.rows : e.cols;
        auto o = ctx.output_as<double>(static_cast<std::size_t>(m));
        if (axis == 1) {
          for (std::int64_t r = 0; r < e.rows; ++r) {
            StatsP<T> s;
            stats_tile(s, x + r * e.cols, e.cols);
            o[r] = finish(s, op, ddof);
          }
        } else {
          std::vector<StatsP<T>> s(static_cast<std::size_t>(e.cols));
          for (std::int64_t r = 0; r < e.rows; ++r)
            for (std::int64_t c = 0; c < e.cols; ++c) add_one(s[c], x[r * e.cols + c]);
          for (std::int64_t c = 0; c < e.cols; ++c) o[c] = finish(s[c], op, ddof);
        }
      }));
    }
    return Array<double>(engine, std::move(out), std::move(res));
  }
  // Otherwise partial statistics per output value, merged in chunk order then over the tree: replicated.
  const std::int64_t m = axis == 1 ? l.rows : l.cols;
  std::vector<StatsP<T>> acc(static_cast<std::size_t>(m));
  q.persist(std::span<const Chunk>(chunks));
  if (l.split != Split::none || rank == 0) {  // a replicated source is counted once
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      const ChunkExtent e = a.local_extent(i);
      Pin pin = chunks[i].buffer()->pin();
      const T* x = reinterpret_cast<const T*>(pin.data());
      if (axis == 1) {
        for (std::int64_t r = 0; r < e.rows; ++r) {
          StatsP<T> s;
          stats_tile(s, x + r * e.cols, e.cols);
          merge_stats(acc[e.row0 + r], s);
        }
      } else {
        std::vector<StatsP<T>> s(static_cast<std::size_t>(e.cols));
        for (std::int64_t r = 0; r < e.rows; ++r)
          for (std::int64_t c = 0; c < e.cols; ++c) add_one(s[c], x[r * e.cols + c]);
        for (std::int64_t c = 0; c < e.cols; ++c) merge_stats(acc[e.col0 + c], s[c]);
      }
    }
  }
  std::vector<std::byte> bytes(acc.size() * sizeof(StatsP<T>));
  std::memcpy(bytes.data(), acc.data(), bytes.size());
  q.comm().tree_allreduce_bytes(bytes, [](std::vector<std::byte>& x, const std::vector<std::byte>& y) {
    auto* px = reinterpret_cast<StatsP<T>*>(x.data());
    const auto* py = reinterpret_cast<const StatsP<T>*>(y.data());
    for (std::size_t i = 0; i < x.size() / sizeof(StatsP<T>); ++i) merge_stats(px[i], py[i]);
  });
  std::memcpy(acc.data(), bytes.data(), bytes.size());
  std::vector<double> res(acc.size());
  for (std::size_t i = 0; i < acc.size(); ++i) res[i] = finish(acc[i], op, ddof);
  Layout out = Layout::make(Shape{m}, Split::none, l.nranks);
  return detail::from_block<double>(engine, std::move(out),
                                    std::make_shared<const std::vector<double>>(std::move(res)));
}

#define SLAB_INSTANTIATE(T)                             \
  template Stats reduce_stats(const Array<T>&, int);    \
  template sum_t<T> sum(const Array<T>&);               \
  template double mean(const Array<T>&);                \
  template double var(const Array<T>&, int);            \
  template double std(const Array<T>&, int);            \
  template T min(const Array<T>&);                      \
  template T max(const Array<T>&);                      \
  template std::int64_t argmin(const Array<T>&);        \
  template std::int64_t argmax(const Array<T>&);        \
  template double norm(const Array<T>&);                \
  template std::int64_t count_nonzero(const Array<T>&); \
  template sum_t<T> nansum(const Array<T>&);            \
  template double nanmean(const Array<T>&);             \
  template Array<double> reduce_axis(const Array<T>&, AxisOp, int, int);
SLAB_INSTANTIATE(float)
SLAB_INSTANTIATE(double)
SLAB_INSTANTIATE(std::int32_t)
SLAB_INSTANTIATE(std::int64_t)
#undef SLAB_INSTANTIATE

}  // namespace slab
