// The array operations' device paths (src/array/device_paths.hpp), run on the reference place: the same wiring a
// GPU rank takes (programs compiled from expressions, one kernel per chunk, partials merged in chunk order and over
// the ranks' tree), with the device kernels' CPU instantiations on host memory. Every result must be bitwise the
// host kernels' (the canonical reduction order; the counter-based uniform generator), except random_normal (the
// shared counter_normal is within an ulp of the host's std::log1p/std::cos), and the operations that have a device
// path must record no host fallback, while those without one still do.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../common/sanitizer.hpp"
#include "slab/array/array.hpp"
#include "slab/array/compress.hpp"
#include "slab/array/creation.hpp"
#include "slab/array/elementwise.hpp"
#include "slab/array/join.hpp"
#include "slab/array/reduction.hpp"
#include "slab/array/reshape.hpp"
#include "slab/array/scan.hpp"
#include "slab/array/slicing.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/core/version.hpp"
#include "slab/runtime/execution_context.hpp"
#include "slab/trace/tracer.hpp"
#include "test_engine.hpp"

namespace {

using slab::Array;
using slab::Split;

slab::EngineOptions options_for(bool reference) {
  slab::EngineOptions o = slab::testing::engine_options();
  o.reference_kernels = reference;
  return o;
}

/// Every value an array computation gives, as bit patterns (NaN == NaN, -0.0 != 0.0).
using Bits = std::vector<std::uint64_t>;
void add(Bits& out, double v) { out.push_back(std::bit_cast<std::uint64_t>(v)); }
void add(Bits& out, std::int64_t v) { out.push_back(static_cast<std::uint64_t>(v)); }
void add(Bits& out, const std::vector<double>& v) {
  for (double x : v) add(out, x);
}
void add(Bits& out, const std::vector<std::int64_t>& v) {
  for (std::int64_t x : v) add(out, x);
}
void add(Bits& out, const std::vector<std::int32_t>& v) {
  for (std::int32_t x : v) out.push_back(static_cast<std::uint32_t>(x));
}
void add(Bits& out, const std::vector<float>& v) {
  for (float x : v) out.push_back(std::bit_cast<std::uint32_t>(x));
}

/// The reductions of one array (floating), in a fixed order.
void reductions(Bits& out, const Array<double>& a) {
  add(out, slab::sum(a));
  add(out, slab::mean(a));
  add(out, slab::var(a, 1));
  add(out, slab::std(a, 0));
  add(out, slab::norm(a));
  add(out, slab::count_nonzero(a));
  add(out, slab::nansum(a));
  add(out, slab::nanmean(a));
  if (a.size() > 0) {
    add(out, slab::min(a));
    add(out, slab::max(a));
    add(out, slab::argmin(a));
    add(out, slab::argmax(a));
  }
  const slab::Stats s = slab::reduce_stats(a, 1);
  for (double v : {s.sum, s.mean, s.var, s.std, s.min, s.max}) add(out, v);
  add(out, s.count);
}
void reductions(Bits& out, const Array<float>& a) {
  add(out, static_cast<double>(slab::sum(a)));
  add(out, slab::mean(a));
  add(out, slab::std(a, 1));
  add(out, slab::norm(a));
  add(out, static_cast<double>(slab::nansum(a)));
  add(out, slab::nanmean(a));
  if (a.size() > 0) {
    add(out, static_cast<double>(slab::max(a)));
    add(out, slab::argmin(a));
  }
}
void reductions(Bits& out, const Array<std::int32_t>& a) {
  add(out, slab::sum(a));  // int64, as NumPy's
  add(out, slab::mean(a));
  add(out, slab::nanmean(a));
  add(out, slab::var(a, 1));
  add(out, slab::count_nonzero(a));
  if (a.size() > 0) {
    add(out, std::int64_t{slab::min(a)});
    add(out, std::int64_t{slab::max(a)});
    add(out, slab::argmin(a));
    add(out, slab::argmax(a));
  }
}
void reductions(Bits& out, const Array<std::int64_t>& a) {
  add(out, slab::sum(a));
  add(out, slab::mean(a));
  add(out, slab::nanmean(a));
  add(out, slab::var(a, 0));
  add(out, slab::count_nonzero(a));
  if (a.size() > 0) {
    add(out, slab::min(a));
    add(out, slab::max(a));
    add(out, slab::argmin(a));
    add(out, slab::argmax(a));
  }
}

/// The reductions along both axes of a matrix (reduce_axis and the arg-reductions: the per-line partial kernels).
template <class T>
void axis_reductions(Bits& out, const Array<T>& m) {
  for (int axis : {0, 1}) {
    add(out, slab::sum(m, axis).gather_all());
    add(out, slab::mean(m, axis).gather_all());
    add(out, slab::var(m, axis, 1).gather_all());
    add(out, slab::std(m, axis, 0).gather_all());
    if ((axis == 0 ? m.rows() : m.cols()) > 0) {  // (NumPy refuses min, max and the arg-reductions of an empty axis)
      add(out, slab::min(m, axis).gather_all());
      add(out, slab::max(m, axis).gather_all());
      add(out, slab::argmin(m, axis).gather_all());
      add(out, slab::argmax(m, axis).gather_all());
    }
  }
}

/// An array of these values (a host fill: "from_function" is a host fallback, the only one expected below).
template <class T>
Array<T> from_values(slab::Engine& e, std::vector<T> v, std::int64_t chunk) {
  const auto n = static_cast<std::int64_t>(v.size());
  auto data = std::make_shared<const std::vector<T>>(std::move(v));
  return Array<T>::from_function(
      e, {n}, Split::rows, [data](std::int64_t i, std::int64_t) { return (*data)[static_cast<std::size_t>(i)]; },
      chunk);
}

/// The creations by formula of one element type at size n (`value` for full), in a fixed order.
template <class T>
void creations(Bits& out, slab::Engine& e, std::int64_t n, T value) {
  const std::int64_t rows = (n + 2) / 3;
  add(out, slab::full<T>(e, {rows, 3}, value, Split::rows, 50).gather_all());
  add(out, slab::full<T>(e, {3, rows}, value, Split::cols, 50).gather_all());
  add(out, slab::eye<T>(e, rows, 5, Split::rows, 0, 40).gather_all());
  add(out, slab::eye<T>(e, 4, rows, Split::cols, 2, 40).gather_all());
  add(out, slab::eye<T>(e, rows, rows, Split::none, -3, 40).gather_all());
  add(out, slab::zeros<T>(e, {n}, Split::rows, 700).gather_all());
  add(out, slab::ones<T>(e, {n}, Split::none, 700).gather_all());
  add(out, slab::arange<T>(e, -3.5, -3.5 + 0.75 * static_cast<double>(n), 0.75, Split::rows, 700).gather_all());
  add(out, slab::arange<T>(e, 10.0, -0.1 * static_cast<double>(n), -0.1, Split::rows, 700).gather_all());
  add(out, slab::linspace<T>(e, -1.0, 7.3, n, Split::rows, true, 700).gather_all());
  add(out, slab::linspace<T>(e, 2.0, -5.1, n, Split::rows, false, 300).gather_all());
}

/// What one engine computes for size n: generated data, lazy expressions (fused into the reductions and
/// materialised), broadcasting, where, special values, and int64 extremes.
Bits compute(slab::Engine& e, std::int64_t n) {
  Bits out;
  const std::int64_t chunk = 1000;  // several chunks per rank from 4097 elements on
  const Array<double> u = slab::random_uniform(e, {n}, Split::rows, 11, -2.0, 3.0, chunk).persist();
  add(out, u.gather_all());
  reductions(out, u);
  // cumsum: its float sums in ordered_scan.inl's fixed order, the host's bits on exactly summable data (sp, f
  // below); u's within rounding (CumsumOfFloatsIsTheHostsWithinRounding).
  const Array<double> lazy = (u * 2.0 + 1.0).abs().sqrt() - u;
  reductions(out, lazy);
  add(out, Array<double>(lazy).persist().gather_all());
  std::vector<std::int64_t> mask;
  for (std::int64_t i = 0; i < n; ++i) mask.push_back(i % 3 == 0);
  const Array<std::int64_t> cond = from_values(e, mask, chunk).persist();
  reductions(out, slab::where(cond, u, Array<double>(u * -0.5)));
  // Comparisons: materialised (int64 0/1), reduced, and inline as where()'s condition.
  add(out, Array<std::int64_t>(u > 0.25).persist().gather_all());
  reductions(out, Array<std::int64_t>(u <= u * 0.5 + 0.1));
  reductions(out, slab::where(u >= 1.0, u, Array<double>(u * u)));
  reductions(out, slab::binary(slab::BinaryOp::max, u, 0.25) / (u.exp() + 1.0));
  if (n > 5000) return out;  // 2^20 + 1: the generated data and its expressions above; the rest on the small sizes
  // Two dimensions, split by rows and by columns, with a row vector broadcast against the matrix.
  const std::int64_t rows = (n + 2) / 3;
  for (Split split : {Split::rows, Split::cols}) {
    const Array<double> m = slab::random_uniform(e, {rows, 3}, split, 12, 0.0, 1.0, 64).persist();
    const Array<double> row = slab::random_uniform(e, {1, 3}, Split::none, 13).persist();
    reductions(out, m);
    reductions(out, m - row);
    add(out, Array<double>(m * row + 0.5).persist().gather_all());
    axis_reductions(out, m);
    axis_reductions(out, Array<double>(m - row));
  }
  // Along the axes of a replicated matrix, of one wider than a reduction tile (a row is one tile_stats), and of
  // one with NaN, infinities and -0.0 in its columns.
  axis_reductions(out, slab::random_uniform(e, {rows, 4}, Split::none, 15, -1.0, 1.0, 64).persist());
  axis_reductions(out, slab::random_uniform(e, {3, 4100}, Split::rows, 16, -1.0, 1.0, 2).persist());
  {
    const auto sv = [](std::int64_t i, std::int64_t j) {
      if (i % 7 == 3 && j == 1) return std::numeric_limits<double>::quiet_NaN();
      if (i % 5 == 2 && j == 2) return i % 2 ? std::numeric_limits<double>::infinity() : -0.0;
      return static_cast<double>((i * 3 + j) % 11) * 0.25;
    };
    for (Split split : {Split::rows, Split::cols})
      axis_reductions(out, Array<double>::from_function(e, {rows, 3}, split, sv, 40).persist());
  }
  // Layout changes: transpose of a matrix split by rows, by columns and replicated (several chunks: each one's
  // columns land in place), a transposed view evaluated in an expression, and select_cols (runs of columns).
  for (Split split : {Split::rows, Split::cols, Split::none}) {
    const Array<double> m = slab::random_uniform(e, {rows, 5}, split, 14, -1.0, 1.0, 64).persist();
    add(out, m.transpose().gather_all());
    add(out, Array<double>(m.transpose() * 2.0 + 1.0).persist().gather_all());
    if (split != Split::cols) add(out, slab::select_cols(m, {4, 0, 1, 2, 2}).gather_all());
    // compress (a[mask]): elements, and rows of the matrix by a 1-D mask (counted, then selected in order).
    add(out, m[m > 0.25].gather_all());
    if (split != Split::cols) {  // a 1-D mask of the rows (split by rows or replicated as the matrix)
      const Array<double> c0 = slab::random_uniform(e, {rows}, split, 15, -1.0, 1.0, 64);
      add(out, slab::compress(m, Array<std::int64_t>(c0 < 0.0)).gather_all());
    }
    // redistribute: to every split, and to other chunks (pieces packed by copy_2d, exchanged, copied into place).
    for (Split to : {Split::rows, Split::cols, Split::none}) {
      add(out, slab::resplit(m, to).gather_all());
      const slab::Layout& l = m.layout();
      add(out, slab::redistribute(m, slab::Layout::make(l.shape(), to, l.nranks, 7, sizeof(double))).gather_all());
    }
  }
  {
    const auto ik = [](std::int64_t i, std::int64_t j) { return i * 1000003 - j * 7 + (i == 0 ? INT64_MIN : 0); };
    const Array<std::int64_t> mi = Array<std::int64_t>::from_function(e, {rows, 3}, Split::rows, ik, 50).persist();
    add(out, mi.transpose().gather_all());
    axis_reductions(out, mi);
    add(out, slab::select_cols(mi, {2, 1}).gather_all());
    const auto fk = [](std::int64_t i, std::int64_t j) { return static_cast<float>(i) * 0.5f - static_cast<float>(j); };
    const Array<float> mf = Array<float>::from_function(e, {rows, 3}, Split::cols, fk, 50).persist();
    add(out, mf.transpose().gather_all());
    axis_reductions(out, mf);
    const auto i32 = [](std::int64_t i, std::int64_t j) { return static_cast<std::int32_t>(i * 3 - j); };
    const Array<std::int32_t> m32 = Array<std::int32_t>::from_function(e, {rows, 3}, Split::none, i32, 50).persist();
    for (std::int32_t v : m32.transpose().gather_all()) add(out, std::int64_t{v});
    axis_reductions(out, m32);
  }
  // Creation by formula (full, zeros, ones, arange, linspace, eye) in every element type and split: -0.0 and a NaN
  // payload kept, int64 extremes, arange and linspace truncated into integers (a value past int32's range and
  // past int64's becomes the type's lowest, as astype), both linspace endpoints, off-diagonal eyes.
  if (n == 0 || n == 31 || n == 4097) {  // empty, ranks without rows, several chunks a rank
    creations<double>(out, e, n, -0.0);
    creations<double>(out, e, n, std::bit_cast<double>(std::uint64_t{0x7FF80000DEADBEEF}));
    creations<float>(out, e, n, 1.5F);
    creations<std::int64_t>(out, e, n, std::numeric_limits<std::int64_t>::min());
    creations<std::int32_t>(out, e, n, -7);
    add(out, slab::arange<std::int32_t>(e, 0, 6e9, 1e9, Split::rows, 2).gather_all());
    add(out, slab::arange<std::int64_t>(e, 0, 3e19, 1e19, Split::rows, 2).gather_all());
  }
  // Special values: NaN first at a rank boundary, infinities, -0.0, exact binary fractions.
  std::vector<double> special;
  for (std::int64_t i = 0; i < n; ++i) special.push_back(static_cast<double>(i % 17) * 0.125 - 1.0);
  if (n > 3) special[static_cast<std::size_t>(n / 2)] = -0.0, special[static_cast<std::size_t>(n / 3)] = 1e300;
  const Array<double> sp = from_values(e, special, chunk);
  reductions(out, sp);
  add(out, slab::cumsum(sp).gather_all());
  if (n > 5) {
    std::vector<double> inf = special, nan = special;
    inf[static_cast<std::size_t>(n - 1)] = std::numeric_limits<double>::infinity();
    nan[static_cast<std::size_t>(n / 2)] = std::numeric_limits<double>::quiet_NaN();
    nan[static_cast<std::size_t>(n - 2)] = std::numeric_limits<double>::quiet_NaN();
    reductions(out, from_values(e, inf, chunk));
    reductions(out, from_values(e, nan, chunk));
  }
  // int64: extremes (the sum wraps modulo 2^64 as NumPy's), floor division and remainder.
  std::vector<std::int64_t> ints;
  for (std::int64_t i = 0; i < n; ++i) ints.push_back((i * 7919) % 2001 - 1000);
  if (n > 2) ints[0] = std::numeric_limits<std::int64_t>::max(), ints[1] = std::numeric_limits<std::int64_t>::min();
  const Array<std::int64_t> k = from_values(e, ints, chunk);
  reductions(out, k);
  add(out, slab::cumsum(k).gather_all());  // wrapping at the int64 extremes
  reductions(out, slab::floor_divide(k, std::int64_t{-7}) + slab::mod(k, std::int64_t{5}));
  reductions(out, slab::where(k > std::int64_t{0}, k, Array<std::int64_t>(-k)));
  add(out, Array<std::int64_t>(k < std::int64_t{3}).persist().gather_all());
  // float32: arithmetic in float, sums widened as on the host, and a comparison of floats.
  std::vector<float> fv;
  for (std::int64_t i = 0; i < n; ++i) fv.push_back(static_cast<float>((i * 37) % 101) * 0.25f - 12.0f);
  const Array<float> f = from_values(e, fv, chunk);
  reductions(out, f);
  add(out, slab::cumsum(f).gather_all());
  {
    std::vector<std::int32_t> iv;
    for (std::int64_t i = 0; i < n; ++i) iv.push_back(static_cast<std::int32_t>(i % 2 ? 2147483647 - i : -i));
    const Array<std::int32_t> a32 = from_values(e, iv, chunk);
    add(out, slab::cumsum(a32).gather_all());  // int32 summed in int64
    // int32 programs (arithmetic wraps at the extremes below only through floor_divide and mod's int32 rules),
    // comparisons and where in int32, and its reductions (sums in int64).
    reductions(out, a32);
    std::vector<std::int32_t> small;
    for (std::int64_t i = 0; i < n; ++i) small.push_back(static_cast<std::int32_t>((i * 7919) % 2001 - 1000));
    const Array<std::int32_t> s32 = from_values(e, small, chunk);
    reductions(out, Array<std::int32_t>(slab::floor_divide(a32, std::int32_t{-7}) + slab::mod(a32, std::int32_t{5})));
    add(out, Array<std::int32_t>(s32 * std::int32_t{3} - s32.abs() + (-s32)).gather_all());
    add(out, Array<std::int32_t>(slab::where(s32 > std::int32_t{0}, s32, std::int32_t{-1})).gather_all());
    add(out, Array<std::int64_t>(s32 <= std::int32_t{10}).persist().gather_all());
    add(out, Array<std::int32_t>(slab::binary(slab::BinaryOp::max, s32, a32)).gather_all());
    add(out, Array<std::int32_t>(s32.pow(2.0)).gather_all());
    add(out, f.astype<std::int32_t>().gather_all());
  }
  reductions(out, Array<float>(f * 1.5f - f.abs()));
  add(out, Array<float>((f + 0.5f).sqrt()).persist().gather_all());
  add(out, Array<std::int64_t>(f > 0.0f).persist().gather_all());
  // Casts (astype: cast leaves of the target's program, with cast_hd.hpp's rule for NaN, infinities and values
  // out of range), integer true division (a float64 program over two cast leaves) and a comparison cast to float64.
  {
    std::vector<double> dv;
    const double specials[] = {std::numeric_limits<double>::quiet_NaN(),
                               std::numeric_limits<double>::infinity(),
                               -std::numeric_limits<double>::infinity(),
                               1e19,
                               -0x1p63,
                               0x1p63,
                               -2.7,
                               -0.0,
                               9.2e18};
    for (std::int64_t i = 0; i < n; ++i)
      dv.push_back(i % 3 ? static_cast<double>(i * 7919 % 4001) * 0.37 - 600.0 : specials[i / 3 % 9]);
    const Array<double> d = from_values(e, dv, chunk);
    add(out, d.astype<std::int64_t>().gather_all());
    add(out, d.astype<float>().gather_all());
    add(out, Array<double>(d.astype<float>().persist().astype<double>() * 2.0).gather_all());
    add(out, k.astype<double>().gather_all());
    add(out, k.astype<float>().gather_all());
    add(out, f.astype<std::int64_t>().gather_all());
    reductions(out, f.astype<double>());
    std::vector<std::int32_t> iv;
    for (std::int64_t i = 0; i < n; ++i) iv.push_back(static_cast<std::int32_t>(i % 2 ? 2147483647 - i : -i));
    const Array<std::int32_t> i32 = from_values(e, iv, chunk);
    add(out, i32.astype<double>().gather_all());
    add(out, i32.astype<std::int64_t>().gather_all());
    add(out, Array<double>(i32 / std::int32_t{-3}).gather_all());
    const Array<std::int64_t> k7 = from_values(e, std::vector<std::int64_t>(static_cast<std::size_t>(n), 7), chunk);
    add(out, (k / k7).gather_all());
    add(out, (k / std::int64_t{-3}).gather_all());
    add(out, (std::int64_t{1000} / k).gather_all());
    reductions(out, slab::astype<double>(u > 0.25));
    add(out, Array<double>((k * std::int64_t{3} - std::int64_t{1}).astype<double>() * 0.5).gather_all());
    reductions(out, Array<double>(slab::astype<float>(u * 3.0 - 1.0).astype<double>()));
  }
  // Slices whose views span chunks (gathered into one block per target chunk by the device path): rows of a vector,
  // columns of a matrix split by columns, both of one split by rows, and a slice read through a cast leaf.
  {
    const std::int64_t b = n / 4, end = n - n / 5;
    add(out, u.row_range(b, end).gather_all());
    reductions(out, u.row_range(b, end));
    add(out, Array<double>(slab::where(u.row_range(b, end) > 0.5, u.row_range(b, end), -1.0)).gather_all());
    add(out, k.row_range(b, end).astype<double>().gather_all());
    const std::int64_t rows = (n + 2) / 3;
    const Array<double> mc = slab::random_uniform(e, {rows, 200}, Split::cols, 17, -1.0, 1.0, 64).persist();
    add(out, Array<double>(mc.col_range(30, 170) + 1.0).gather_all());
    axis_reductions(out, mc.col_range(30, 170));
    const Array<double> mr = slab::random_uniform(e, {rows, 6}, Split::rows, 18, -1.0, 1.0, 64).persist();
    add(out, Array<double>(mr.row_range(rows / 3, rows).col_range(1, 5) * 3.0).gather_all());
  }
  // Joins and reshape (assemble.cpp: local copies, or rounds of an exchange where elements change rank; join_cols's
  // rows side by side), of every split, 8- and 4-byte elements, and an empty input.
  {
    const std::int64_t rows = (n + 2) / 3;
    const Array<double> mr = slab::random_uniform(e, {rows, 4}, Split::rows, 19, -1.0, 1.0, 64).persist();
    const Array<double> mc = slab::random_uniform(e, {rows, 4}, Split::cols, 20, -1.0, 1.0, 1).persist();
    const Array<double> mn = slab::random_uniform(e, {rows, 4}, Split::none, 21, -1.0, 1.0, 64).persist();
    const Array<double> v4 = slab::random_uniform(e, {4}, Split::none, 22, -1.0, 1.0, 4).persist();
    const Array<double> none = slab::random_uniform(e, {0, 4}, Split::rows, 23, -1.0, 1.0, 4).persist();
    add(out, slab::concatenate({mr, mc, none, mn}).gather_all());
    add(out, slab::concatenate({mr, mc, mn}, 1).gather_all());
    add(out, slab::vstack({v4, mr, v4}).gather_all());
    add(out, slab::hstack({mc, mr}).gather_all());
    add(out, slab::column_stack({u.row_range(0, rows), mr}).gather_all());
    add(out, slab::stack({u, u}).gather_all());
    add(out, slab::stack({u, u}, 1).gather_all());
    add(out, mr.reshape({2 * rows, 2}).gather_all());
    add(out, mc.ravel().gather_all());
    add(out, mn.reshape({4, rows}).gather_all());
    add(out, slab::concatenate({k, k.row_range(0, n / 2)}).gather_all());
    const Array<float> ff = from_values(e, fv, 7);
    add(out, slab::concatenate({ff, f}).gather_all());
    add(out, slab::stack({ff, f}, 1).gather_all());
    if (n % 2 == 0) add(out, ff.reshape({n / 2, 2}).gather_all());
  }
  return out;
}

// 2^20 + 1 only without ASan (a minute of -O0 reference kernels there; the main build runs it).
std::vector<std::int64_t> sizes() {
  if (kAddressSanitizer) return {0, 1, 31, 32, 4095, 4096, 4097};
  return {0, 1, 31, 32, 4095, 4096, 4097, (1 << 20) + 1};
}

std::uint64_t fallbacks(slab::Engine& e) {
  std::uint64_t n = 0;
  for (const auto& [op, count] : e.tracer().fallbacks()) n += count;
  return n;
}

}  // namespace

TEST(ArrayDevicePaths, ReferencePlaceIsBitwiseTheHostKernels) {
  if (!slab::built_with_kernel_reference) GTEST_SKIP() << "this build has no reference kernels (no CCCL headers)";
  std::map<std::int64_t, Bits> host;
  {
    slab::Engine e(options_for(false));
    ASSERT_FALSE(e.execution().device_kernels());
    for (std::int64_t n : sizes()) host[n] = compute(e, n);
  }
  slab::Engine e(options_for(true));
  ASSERT_EQ(e.execution().place(), slab::ExecutionPlace::reference);
  for (std::int64_t n : sizes()) {
    const Bits got = compute(e, n);
    ASSERT_EQ(got.size(), host[n].size()) << "n = " << n;
    std::size_t first = got.size();
    for (std::size_t i = 0; i < got.size() && first == got.size(); ++i)
      if (got[i] != host[n][i]) first = i;
    EXPECT_EQ(first, got.size()) << "n = " << n << ": value " << first
                                 << " differs: " << std::bit_cast<double>(got[first < got.size() ? first : 0])
                                 << " vs host " << std::bit_cast<double>(host[n][first < got.size() ? first : 0]);
  }
  // Everything above has a device path except the inputs filled from host vectors: nothing else fell back.
  for (const auto& [op, count] : e.tracer().fallbacks())
    EXPECT_EQ(op, "from_function") << op << " fell back to the host " << count << " times";
}

// A cumsum of floats that are not exactly summable: the device path sums each chunk in ordered_scan.inl's fixed
// order (the same bits every run, on a GPU too), the host element by element: the same values within rounding
// (bitwise through each chunk's first tile), NaN and infinities at the same places, at any rank count.
TEST(ArrayDevicePaths, CumsumOfFloatsIsTheHostsWithinRounding) {
  if (!slab::built_with_kernel_reference) GTEST_SKIP() << "this build has no reference kernels (no CCCL headers)";
  auto input = [](std::int64_t n) {  // magnitudes from 1e-3 to 1e5 of both signs, +inf near the end
    std::vector<double> x;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::uint64_t k = slab::counter_hash(21, static_cast<std::uint64_t>(i));
      x.push_back(static_cast<double>(k % 100000) * std::pow(10.0, static_cast<double>(k % 9) - 5.0) *
                  (k & 1 ? 1.0 : -1.0));
    }
    if (n > 100) x[static_cast<std::size_t>(n - 50)] = std::numeric_limits<double>::infinity();
    return x;
  };
  std::map<std::int64_t, std::vector<double>> host;
  {
    slab::Engine h(options_for(false));
    for (std::int64_t n : sizes()) host[n] = slab::cumsum(from_values(h, input(n), 1000)).gather_all();
  }
  slab::Engine r(options_for(true));
  for (std::int64_t n : sizes()) {
    const std::vector<double> x = input(n), &want = host[n];
    const std::vector<double> got = slab::cumsum(from_values(r, x, 1000)).gather_all();
    ASSERT_EQ(got.size(), want.size()) << "n = " << n;
    double scale = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (std::isfinite(x[i])) scale += std::fabs(x[i]);
      if (!std::isfinite(want[i]))
        ASSERT_EQ(std::bit_cast<std::uint64_t>(got[i]), std::bit_cast<std::uint64_t>(want[i]))
            << "n = " << n << " at " << i;
      else
        ASSERT_LE(std::fabs(got[i] - want[i]), 1e-13 * scale) << "n = " << n << " at " << i;
    }
    const std::vector<double> again = slab::cumsum(from_values(r, x, 1000)).gather_all();
    EXPECT_EQ(std::memcmp(again.data(), got.data(), got.size() * sizeof(double)), 0) << "n = " << n;
  }
  for (const auto& [op, count] : r.tracer().fallbacks())
    EXPECT_EQ(op, "from_function") << op << " fell back to the host " << count << " times";
}

// A ChunkSource makes a new task each time a chunk is asked for, with bitwise random_uniform's values, on the host
// and on the reference place (its device path: no fallback), however often it is asked.
TEST(ArrayDevicePaths, RandomUniformSourceRemakesTheArraysChunks) {
  for (bool reference : {false, true}) {
    if (reference && !slab::built_with_kernel_reference) continue;
    slab::Engine e(options_for(reference));
    const slab::Shape shape{1001, 7};
    const std::vector<double> want = slab::random_uniform(e, shape, Split::rows, 9, -1.0, 2.0, 60).gather_all();
    const slab::ChunkSource source = slab::random_uniform_source(e, shape, Split::rows, 9, -1.0, 2.0, 60);
    std::uint64_t made = 0;
    for (int pass = 0; pass < 2; ++pass) {
      std::vector<slab::Chunk> chunks;
      const auto before = e.tasks().stats().submitted;
      for (std::int64_t i = 0; i < source.layout.num_chunks(e.comm().rank()); ++i)
        chunks.push_back(source.chunk(static_cast<std::size_t>(i)));
      made += e.tasks().stats().submitted - before;
      const std::vector<double> got = Array<double>(e, source.layout, std::move(chunks)).gather_all();
      ASSERT_EQ(got.size(), want.size());
      EXPECT_EQ(std::memcmp(got.data(), want.data(), want.size() * sizeof(double)), 0)
          << "pass " << pass << (reference ? " on the reference place" : " on the host");
    }
    EXPECT_EQ(made, 2 * static_cast<std::uint64_t>(source.layout.num_chunks(e.comm().rank())))
        << "one new task a chunk a pass";
    if (reference) EXPECT_EQ(fallbacks(e), 0u);
  }
}

TEST(ArrayDevicePaths, NormalIsBitwiseTheHost) {
  if (!slab::built_with_kernel_reference) GTEST_SKIP() << "this build has no reference kernels (no CCCL headers)";
  std::vector<double> host;
  {
    slab::Engine e(options_for(false));
    host = slab::random_normal(e, {5001, 2}, Split::rows, 21, 1.5, 2.0, 700).gather_all();
  }
  slab::Engine e(options_for(true));
  const std::vector<double> got = slab::random_normal(e, {5001, 2}, Split::rows, 21, 1.5, 2.0, 700).gather_all();
  ASSERT_EQ(got.size(), host.size());
  EXPECT_EQ(std::memcmp(got.data(), host.data(), got.size() * sizeof(double)), 0);
  EXPECT_EQ(fallbacks(e), 0u) << "random_normal has a device path";
}

TEST(ArrayDevicePaths, OperationsWithoutADevicePathStillRecordTheirFallback) {
  if (!slab::built_with_kernel_reference) GTEST_SKIP() << "this build has no reference kernels (no CCCL headers)";
  slab::Engine e(options_for(true));
  const Array<double> a = slab::random_uniform(e, {3000}, Split::rows, 5, 0.0, 1.0, 500).persist();
  (void)slab::sum(a);
  EXPECT_EQ(fallbacks(e), 0u);
  (void)slab::cumsum(a).gather_all();  // a device scan
  EXPECT_EQ(fallbacks(e), 0u);
  (void)slab::nanmean(a);  // a device kernel for floats; an integer nanmean is mean(), the statistics kernel
  (void)slab::nanmean(Array<std::int64_t>(a > 0.5));
  EXPECT_EQ(fallbacks(e), 0u);
  const auto& f = e.tracer().fallbacks();
  // Axis reductions and arg-reductions have device kernels for every element type, int32 included.
  const Array<double> m = slab::random_uniform(e, {40, 3}, Split::rows, 6, 0.0, 1.0, 16).persist();
  (void)slab::sum(m, 0).gather_all();
  (void)slab::var(m, 1, 1).gather_all();
  const auto i32 = [](std::int64_t i, std::int64_t j) { return static_cast<std::int32_t>(i - j); };
  const auto m32 = Array<std::int32_t>::from_function(e, {40, 3}, Split::rows, i32, 16).persist();
  (void)slab::sum(m32, 0).gather_all();
  (void)slab::argmax(m, 0).gather_all();
  (void)slab::argmin(m, 1).gather_all();
  (void)slab::argmin(m32, 1).gather_all();
  EXPECT_EQ(f.count("reduce_axis") + f.count("argmax") + f.count("argmin"), 0u);
  // Comparisons and casts have device programs (int32 ones too): a cast of an expression other than a comparison
  // materialises that expression first, as its own program.
  (void)Array<std::int64_t>(a > 0.5).persist();
  (void)Array<double>(slab::astype<double>(a > 0.5)).persist();
  const Array<std::int64_t> k = Array<std::int64_t>(a > 0.5).persist();
  (void)Array<double>(k.astype<double>() / 3.0).persist();
  (void)a.astype<std::int32_t>().persist();
  (void)Array<std::int32_t>(m32 * std::int32_t{3} + std::int32_t{1}).persist();
  (void)Array<double>(slab::astype<double>(k + std::int64_t{1})).persist();
  EXPECT_EQ(f.count("elementwise"), 0u);
}

TEST(ArrayDevicePaths, AHostBuildRefusesTheReferencePlaceByName) {
  if (slab::built_with_kernel_reference) GTEST_SKIP() << "this build has the reference kernels";
  slab::EngineOptions o = slab::testing::engine_options();
  o.reference_kernels = true;
  EXPECT_THROW(slab::Engine{o}, slab::InvalidArgument);
}
