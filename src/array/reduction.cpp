// Reductions of slab::Array: one partial per chunk (fused with pending elementwise work), merged in chunk
// order on each rank and over the comm's fixed tree across ranks.
#include <cmath>
#include <limits>
#include <type_traits>

#include "array/device_paths.hpp"
#include "array/expr.hpp"
#include "array/kernels/reduction_hd.hpp"
#include "slab/array/array.hpp"
#include "slab/array/creation.hpp"
#include "slab/array/elementwise.hpp"
#include "slab/array/reduction.hpp"
#include "slab/array/slicing.hpp"
#include "slab/engine/host_fallback.hpp"
#include "slab/memory/host_view.hpp"

namespace slab {
namespace {

double nan_v() { return std::numeric_limits<double>::quiet_NaN(); }

// The arithmetic is array/kernels/reduction_hd.hpp's, the one source the device kernels share: integer sums
// wrap modulo 2^64 as NumPy's int64 sums do (reduction.hpp), accumulated unsigned, where the wrap is defined
// behaviour, and read back as two's complement by acc_value(); the statistics keep infinities as flags out of
// mean and M2 (kernels::StatsPartial).
template <class T>
using Acc = kernels::ReduceAcc<T>;
template <class T>
sum_t<T> acc_value(Acc<T> s) {
  return static_cast<sum_t<T>>(s);
}
template <class T>
double acc_double(Acc<T> s) {
  return static_cast<double>(acc_value<T>(s));
}

template <class T>
using StatsP = kernels::StatsPartial<T>;
using kernels::merge_stats;
using kernels::stats_add;
using kernels::stats_mean;
using kernels::stats_variance;

// The W6 kernel is bound by arithmetic, not memory, at SSE2 width: compile it for wider vectors as well
// and let the loader pick the widest the CPU has (GCC function multiversioning). `flatten` inlines the shared
// tile function into each clone, so that every clone vectorises it for its own width.
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define SLAB_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default"), flatten))
#else
#define SLAB_VECTOR_CLONES
#endif
SLAB_VECTOR_CLONES void stats_tile_f64(StatsP<double>& p, const double* x, std::int64_t n) {
  merge_stats(p, kernels::tile_stats(x, n));
}
SLAB_VECTOR_CLONES void stats_tile_f32(StatsP<float>& p, const float* x, std::int64_t n) {
  merge_stats(p, kernels::tile_stats(x, n));
}
SLAB_VECTOR_CLONES void stats_tile_i64(StatsP<std::int64_t>& p, const std::int64_t* x, std::int64_t n) {
  merge_stats(p, kernels::tile_stats(x, n));
}
SLAB_VECTOR_CLONES void stats_tile_i32(StatsP<std::int32_t>& p, const std::int32_t* x, std::int64_t n) {
  merge_stats(p, kernels::tile_stats(x, n));
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
      merge_stats<T>, detail::DeviceReduce::stats);
}

// Sum and count of the values that pass `keep` (and of f(x) instead of x).
template <class T>
using SumP = kernels::SumPartial<T>;
template <class T, class Tile>
SumP<T> sum_partials(const Array<T>& a, const char* name, Tile tile,
                     detail::DeviceReduce device = detail::DeviceReduce::none) {
  return detail::reduce_partials<T>(
      a, name, SumP<T>{},
      [tile](SumP<T>& p, const T* x, std::int64_t n, const ChunkExtent&, std::int64_t) { tile(p, x, n); },
      kernels::merge_sums<T>, device);
}

// Extremes with the flat global index of their first occurrence (and of the first NaN).
template <class T>
using ArgP = kernels::ArgPartial<T>;

}  // namespace

template <class T>
Stats reduce_stats(const Array<T>& a, int ddof) {
  const StatsP<T> s = full_stats(a);
  Stats out;
  out.count = s.n;
  out.sum = acc_double<T>(s.sum);
  out.mean = stats_mean(s);
  out.var = stats_variance(s, ddof);
  out.std = std::sqrt(out.var);
  out.min = s.nan ? nan_v() : static_cast<double>(s.min);
  out.max = s.nan ? nan_v() : static_cast<double>(s.max);
  if (s.nan) out.sum = nan_v();
  return out;
}

template <class T>
sum_t<T> sum(const Array<T>& a) {
  const auto p = sum_partials(
      a, "sum",
      [](SumP<T>& p, const T* x, std::int64_t n) {
        p.sum += kernels::tile_sum(x, n);
        p.n += n;
      },
      detail::DeviceReduce::sum);
  return acc_value<T>(p.sum);
}

template <class T>
double mean(const Array<T>& a) {
  return stats_mean(full_stats(a));
}
template <class T>
double var(const Array<T>& a, int ddof) {
  return stats_variance(full_stats(a), ddof);
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
          kernels::arg_fold(p, x[t], (e.row0 + k / e.cols) * cols + e.col0 + k % e.cols);
        }
      },
      kernels::arg_merge<T>, detail::DeviceReduce::argminmax);
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
  const auto p = sum_partials(
      a, "norm", [](SumP<T>& p, const T* x, std::int64_t n) { p.dsum += kernels::tile_sum_squares(x, n); },
      detail::DeviceReduce::sum_squares);
  return std::sqrt(p.dsum);
}

template <class T>
std::int64_t count_nonzero(const Array<T>& a) {
  return sum_partials(
             a, "count_nonzero", [](SumP<T>& p, const T* x, std::int64_t n) { p.n += kernels::tile_count_nonzero(x, n); },
             detail::DeviceReduce::count_nonzero)
      .n;
}

// The NaN-skipping reductions: sum()'s lanes and tiles with NaN counted as 0 (kernels::tile_nansum), on the
// device kernels where the rank takes device paths. An integer nansum is sum() (no NaN; wrapping integer sums
// are exact in any order); an integer nanmean is mean() (its statistics kernels: no wrapping).
template <class T>
sum_t<T> nansum(const Array<T>& a) {
  if constexpr (std::is_integral_v<T>) {
    return sum(a);
  } else {
    return acc_value<T>(sum_partials(
                            a, "nansum",
                            [](SumP<T>& p, const T* x, std::int64_t n) { p.sum += kernels::tile_nansum(x, n, p.n); },
                            detail::DeviceReduce::nansum)
                            .sum);
  }
}
template <class T>
double nanmean(const Array<T>& a) {
  if constexpr (std::is_integral_v<T>) {
    return mean(a);  // NumPy's nanmean of integers is its mean (no NaN to skip)
  } else {
    const auto p = sum_partials(
        a, "nanmean",
        [](SumP<T>& p, const T* x, std::int64_t n) { p.dsum += static_cast<double>(kernels::tile_nansum(x, n, p.n)); },
        detail::DeviceReduce::nansum);
    return p.n ? p.dsum / static_cast<double>(p.n) : nan_v();
  }
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
      return stats_mean(s);
    case AxisOp::var:
      return stats_variance(s, ddof);
    case AxisOp::std:
      return std::sqrt(stats_variance(s, ddof));
    case AxisOp::min:
      return s.nan || !s.n ? nan_v() : static_cast<double>(s.min);
    case AxisOp::max:
      return s.nan || !s.n ? nan_v() : static_cast<double>(s.max);
  }
  return nan_v();
}

// The partials of chunk x (extent e, host memory) along `axis`: one per row (axis 1: one tile_stats over the row)
// or column (axis 0: its values in row order) into out, which holds identities.
template <class T>
void axis_partials_on_host(const T* x, const ChunkExtent& e, int axis, StatsP<T>* out) {
  if (axis == 1) {
    for (std::int64_t r = 0; r < e.rows; ++r) stats_tile(out[r], x + r * e.cols, e.cols);
  } else {
    for (std::int64_t r = 0; r < e.rows; ++r)
      for (std::int64_t c = 0; c < e.cols; ++c) stats_add(out[c], x[r * e.cols + c]);
  }
}

// The same partials of chunk x (in the device tier) on the device kernels, into out (host memory).
template <class T>
void axis_partials_on_device(TaskContext& ctx, const T* x, const ChunkExtent& e, int axis, StatsP<T>* out) {
  if constexpr (detail::kernel_element_v<T>) {
    detail::with_device_backend(ctx.execution(), [&](auto tag) {
      using B = typename decltype(tag)::type;
      detail::KernelScratch scratch(ctx.memory());
      const kernels::Exec exec = scratch.exec(ctx.execution());
      if (axis == 1)
        kernels::ReductionKernels<B, T>::row_stats(exec, x, e.rows, e.cols, out);
      else
        kernels::ReductionKernels<B, T>::col_stats(exec, x, e.rows, e.cols, out);
    });
  } else {
    (void)ctx, (void)x, (void)e, (void)axis, (void)out;
    SLAB_FAIL(Error, "reduce_axis: no device kernel for this element type (internal)");
  }
}
}  // namespace

template <class T>
Array<double> reduce_axis(const Array<T>& a, AxisOp op, int axis_in, int ddof) {
  const int nd = a.ndim();
  SLAB_EXPECTS(axis_in >= -nd && axis_in < nd, ShapeError,
               "reduce_axis: axis " + std::to_string(axis_in) + " is out of bounds for " + a.layout().to_string() +
                   " (" + std::to_string(nd) + "-D)");
  const int axis = axis_in < 0 ? axis_in + nd : axis_in;
  // NumPy: min and max have no identity, so an empty axis is an error (even where the result is empty too).
  SLAB_EXPECTS(!(op == AxisOp::min || op == AxisOp::max) || (axis == 0 ? a.rows() : a.cols()) > 0, ShapeError,
               std::string(op == AxisOp::min ? "min" : "max") + " along axis " + std::to_string(axis_in) + " of " +
                   a.layout().to_string() + ": zero-size array to reduction operation " +
                   (op == AxisOp::min ? "minimum" : "maximum") + " which has no identity");
  Engine& engine = a.engine();
  TaskQueue& q = engine.tasks();
  // The device kernels (float, double, int64) where the rank takes device paths; int32 stays on the host.
  const bool device = detail::kernel_element_v<T> && detail::has_device_backend(q.memory().execution());
  if (!device) note_host_fallback(engine, "reduce_axis");
  const Layout& l = a.layout();
  const int rank = a.rank();
  const auto& chunks = a.local_chunks();
  // Kept axis = the split axis: every output value is local; one task per chunk, lazy.
  // (An empty matrix has no chunks to keep the axis in: it takes the merge below, whose identities finish as
  // NumPy's, sum 0 and mean NaN.)
  const bool local =
      l.rows > 0 && l.cols > 0 && ((axis == 1 && l.split == Split::rows) || (axis == 0 && l.split == Split::cols));
  if (local) {
    Layout out = Layout::make(Shape{axis == 1 ? l.rows : l.cols}, Split::rows, l.nranks, l.chunk);
    out.bounds = l.bounds;
    std::vector<Chunk> res;
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      const ChunkExtent e = a.local_extent(i);
      res.push_back(q.submit(
          "reduce_axis", {chunks[i]},
          [e, op, axis, ddof, device](TaskContext& ctx) {
            const T* x = ctx.input_as<T>(0).data();
            const std::int64_t m = axis == 1 ? e.rows : e.cols;
            std::vector<StatsP<T>> s(static_cast<std::size_t>(m));  // finished here, written to the output
            if (device)
              axis_partials_on_device(ctx, x, e, axis, s.data());
            else
              axis_partials_on_host(x, e, axis, s.data());
            std::vector<double> o(static_cast<std::size_t>(m));
            for (std::int64_t k = 0; k < m; ++k) o[k] = finish(s[k], op, ddof);
            auto out = ctx.output(static_cast<std::size_t>(m) * sizeof(double));
            if (m > 0) slab::copy(out.data(), o.data(), out.size(), ctx.execution());
          },
          device ? device_task() : TaskOptions{}));
    }
    return Array<double>(engine, std::move(out), std::move(res));
  }
  // Otherwise partial statistics per output value, merged in chunk order then over the tree: replicated.
  const std::int64_t m = axis == 1 ? l.rows : l.cols;
  std::vector<StatsP<T>> acc(static_cast<std::size_t>(m));
  q.persist(std::span<const Chunk>(chunks));
  if (device) {  // each chunk's partials from a device task (a replicated source's on rank 0 only)
    std::vector<Chunk> parts;
    for (std::size_t i = 0; i < (l.split != Split::none || rank == 0 ? chunks.size() : 0); ++i) {
      const ChunkExtent e = a.local_extent(i);
      parts.push_back(q.submit(
          "reduce_axis", {chunks[i]},
          [e, axis](TaskContext& ctx) {
            const std::int64_t k = axis == 1 ? e.rows : e.cols;
            std::vector<StatsP<T>> s(static_cast<std::size_t>(k));
            axis_partials_on_device(ctx, ctx.input_as<T>(0).data(), e, axis, s.data());
            auto out = ctx.output(s.size() * sizeof(StatsP<T>));
            if (k > 0) slab::copy(out.data(), s.data(), out.size(), ctx.execution());
          },
          device_task()));
    }
    q.persist(std::span<const Chunk>(parts));  // collective: every rank, with or without parts
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const ChunkExtent e = a.local_extent(i);
      Pin pin = parts[i].buffer()->pin();
      const HostView host(pin);
      const auto s = host.as<StatsP<T>>();
      const std::int64_t first = axis == 1 ? e.row0 : e.col0;
      for (std::size_t k = 0; k < s.size(); ++k) merge_stats(acc[static_cast<std::size_t>(first) + k], s[k]);
    }
  } else if (l.split != Split::none || rank == 0) {  // a replicated source is counted once
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      const ChunkExtent e = a.local_extent(i);
      Pin pin = chunks[i].buffer()->pin();
      const HostView host(pin);
      std::vector<StatsP<T>> s(static_cast<std::size_t>(axis == 1 ? e.rows : e.cols));
      axis_partials_on_host(host.as<T>().data(), e, axis, s.data());
      const std::int64_t first = axis == 1 ? e.row0 : e.col0;
      for (std::size_t k = 0; k < s.size(); ++k) merge_stats(acc[static_cast<std::size_t>(first) + k], s[k]);
    }
  }
  std::vector<std::byte> bytes(acc.size() * sizeof(StatsP<T>));
  if (!bytes.empty()) std::memcpy(bytes.data(), acc.data(), bytes.size());  // (an empty axis: both null)
  q.comm().tree_allreduce_bytes(bytes, [](std::vector<std::byte>& x, const std::vector<std::byte>& y) {
    auto* px = reinterpret_cast<StatsP<T>*>(x.data());
    const auto* py = reinterpret_cast<const StatsP<T>*>(y.data());
    for (std::size_t i = 0; i < x.size() / sizeof(StatsP<T>); ++i) merge_stats(px[i], py[i]);
  });
  if (!bytes.empty()) std::memcpy(acc.data(), bytes.data(), bytes.size());
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
