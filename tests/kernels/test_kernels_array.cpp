// The array kernels' reference instantiation against slab's host array operations at 1 rank: per-chunk
// reduction partials merged as the host merges them are bitwise the host's sum, mean, var, std, min, max,
// argmin, argmax, norm and count_nonzero (the canonical order); random_uniform and random_normal bitwise (both
// on core/kernels/counter_rng_hd.hpp's functions); elementwise programs (broadcasting, where, comparisons) bitwise;
// transpose and strided copies bitwise.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "array/kernels/creation.hpp"
#include "array/kernels/elementwise.hpp"
#include "array/kernels/layout.hpp"
#include "array/kernels/reduction.hpp"
#include "kernel_test_util.hpp"
#include "slab/array/array.hpp"
#include "slab/array/creation.hpp"
#include "slab/array/elementwise.hpp"
#include "slab/array/layout.hpp"
#include "slab/array/reduction.hpp"
#include "slab/array/slicing.hpp"
#include "test_engine.hpp"

namespace {

using namespace kernel_test;
using slab::Array;
using slab::Shape;
using slab::Split;
namespace sk = slab::kernels;
using sk::Reference;

/// This rank's chunks of a persisted array: pointers (pinned), sizes, places.
template <class T>
struct ChunkView {
  std::vector<slab::Pin> pins;
  std::vector<const T*> data;
  std::vector<std::int64_t> sizes;
  std::vector<sk::ChunkPlace> places;
  explicit ChunkView(const Array<T>& a) {
    Array<T>(a).persist();
    for (std::size_t i = 0; i < a.num_local_chunks(); ++i) {
      const slab::ChunkExtent e = a.local_extent(i);
      pins.push_back(a.local_chunk(i).buffer()->pin());
      data.push_back(reinterpret_cast<const T*>(pins.back().data()));
      sizes.push_back(e.size());
      places.push_back({e.row0, e.col0, e.cols});
    }
  }
  [[nodiscard]] int count() const { return static_cast<int>(data.size()); }
};

/// Which special values float data holds: none, a few NaN, or infinities (of one sign or both: NumPy's mean
/// is then +-inf or NaN, var NaN, while the finite values still make min, max and argmin/argmax).
enum class Special { none, nan, pinf, both_inf };

template <class T>
std::vector<T> test_values(std::int64_t n, bool exact, Special special) {
  std::vector<T> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t r = h(90, i);
    if constexpr (std::is_integral_v<T>) {
      v[i] = r % 7 == 0 ? std::numeric_limits<T>::max() - static_cast<T>(r % 5) : static_cast<T>(r % 2001) - 1000;
    } else {
      v[i] =
          exact ? static_cast<T>(exact_value(91, i)) : static_cast<T>(static_cast<double>(r % 1000000) * 1e-3 - 400.0);
      if (r % 101 == 0) v[i] = T(-0.0);
      if (special == Special::nan && r % 4099 == 17) v[i] = std::numeric_limits<T>::quiet_NaN();
      if ((special == Special::pinf || special == Special::both_inf) && r % 3001 == 11)
        v[i] = (special == Special::both_inf && r % 2 ? -1 : 1) * std::numeric_limits<T>::infinity();
    }
  }
  return v;
}

template <class T>
bool same(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return std::memcmp(&a, &b, sizeof a) == 0;
  else
    return a == b;
}

/// The host's reduce_partials merge and finish of the kernels' per-chunk partials, next to the host's results.
template <class T>
void check_reductions(slab::Engine& engine, Shape shape, std::int64_t chunk, bool exact, Special special,
                      const std::string& what) {
  const std::int64_t n = shape.rows * std::max<std::int64_t>(shape.cols, 1);
  const Array<T> a = Array<T>::from_local_blocks(engine, shape, Split::rows, test_values<T>(n, exact, special), chunk);
  const ChunkView<T> cv(a);
  CountingScratch scratch;
  std::vector<sk::StatsPartial<T>> sp(cv.data.size());
  std::vector<sk::SumPartial<T>> sums(cv.data.size()), squares(cv.data.size()), nonzero(cv.data.size());
  std::vector<sk::ArgPartial<T>> args(cv.data.size());
  sk::ReductionKernels<Reference, T>::stats(scratch.exec(), cv.data.data(), cv.sizes.data(), cv.count(), sp.data());
  sk::ReductionKernels<Reference, T>::sum(scratch.exec(), cv.data.data(), cv.sizes.data(), cv.count(), sums.data());
  sk::ReductionKernels<Reference, T>::sum_squares(scratch.exec(), cv.data.data(), cv.sizes.data(), cv.count(),
                                                  squares.data());
  sk::ReductionKernels<Reference, T>::count_nonzero(scratch.exec(), cv.data.data(), cv.sizes.data(), cv.count(),
                                                    nonzero.data());
  sk::ReductionKernels<Reference, T>::argminmax(scratch.exec(), cv.data.data(), cv.sizes.data(), cv.places.data(),
                                                cv.count(), a.cols(), args.data());
  EXPECT_EQ(scratch.live(), 0u);
  sk::StatsPartial<T> s;
  sk::SumPartial<T> sum, sq, nz;
  sk::ArgPartial<T> arg;
  for (std::size_t c = 0; c < cv.data.size(); ++c) {
    sk::merge_stats(s, sp[c]);
    sum.sum += sums[c].sum;
    sq.dsum += squares[c].dsum;
    nz.n += nonzero[c].n;
    sk::arg_merge(arg, args[c]);
  }
  EXPECT_TRUE(same(static_cast<T>(sum.sum), slab::sum(a))) << what << " sum";
  // Finished as the host finishes (reduction_hd.hpp, the one source of both).
  const double mean = sk::stats_mean(s);
  EXPECT_TRUE(same(mean, slab::mean(a)) || (std::isnan(mean) && std::isnan(slab::mean(a))))
      << what << " mean " << mean << " vs host " << slab::mean(a);
  // var and std: the canonical order rounds every product (the device compiles with --fmad=false, the layers with
  // -ffp-contract=off, the host's AVX-512 clone of stats_tile included), so the host's M2 is the same bits.
  for (int ddof : {0, 1}) {
    const double var = sk::stats_variance(s, ddof);
    const double hv = slab::var(a, ddof), hs = slab::std(a, ddof);
    EXPECT_TRUE(same(var, hv) || (std::isnan(var) && std::isnan(hv))) << what << " var " << var << " vs host " << hv;
    EXPECT_TRUE(same(std::sqrt(var), hs) || (std::isnan(var) && std::isnan(hs))) << what << " std";
  }
  EXPECT_TRUE(same(std::sqrt(sq.dsum), slab::norm(a))) << what << " norm";
  EXPECT_EQ(nz.n, slab::count_nonzero(a)) << what;
  if (n > 0) {
    const T mn = s.nan ? std::numeric_limits<T>::quiet_NaN() : s.min,
            mx = s.nan ? std::numeric_limits<T>::quiet_NaN() : s.max;
    const T hmn = slab::min(a), hmx = slab::max(a);
    EXPECT_TRUE(same(mn, hmn) || (mn != mn && hmn != hmn)) << what << " min";
    EXPECT_TRUE(same(mx, hmx) || (mx != mx && hmx != hmx)) << what << " max";
    EXPECT_EQ(arg.inan >= 0 ? arg.inan : arg.imin, slab::argmin(a)) << what;
    EXPECT_EQ(arg.inan >= 0 ? arg.inan : arg.imax, slab::argmax(a)) << what;
  }
}

TEST(KernelArray, ReductionPartialsAreTheHostsCanonicalOrder) {
  slab::testing::Engine engine;
  for (std::int64_t n : sizes()) {
    for (std::int64_t chunk : {std::int64_t{0}, std::int64_t{1000}}) {
      if (n == kLarge && chunk == 1000) continue;
      for (bool exact : {true, false}) {
        const std::string what = "n=" + std::to_string(n) + " chunk=" + std::to_string(chunk) + (exact ? " exact" : "");
        const Special special = exact ? Special::none : Special::nan;
        check_reductions<double>(engine, Shape{n}, chunk, exact, special, what + " double");
        if (n != kLarge) check_reductions<float>(engine, Shape{n}, chunk, exact, special, what + " float");
      }
      // Infinities (kept out of mean and M2 as flags, the tile redone one value at a time).
      if (n != kLarge)
        for (Special inf : {Special::pinf, Special::both_inf}) {
          const std::string what = "n=" + std::to_string(n) + " chunk=" + std::to_string(chunk) +
                                   (inf == Special::pinf ? " +inf" : " +-inf");
          check_reductions<double>(engine, Shape{n}, chunk, false, inf, what + " double");
          check_reductions<float>(engine, Shape{n}, chunk, true, inf, what + " float");
        }
      check_reductions<std::int64_t>(engine, Shape{n}, chunk, false, Special::none,
                                     "n=" + std::to_string(n) + " int64");
    }
    if (n > 0 && n != kLarge)
      check_reductions<double>(engine, Shape{n, 3}, 77, false, Special::none, "2-D n=" + std::to_string(n));
  }
}

TEST(KernelArray, CounterBasedCreationIsTheHosts) {
  slab::testing::Engine engine;
  for (Shape shape : {Shape{0}, Shape{1}, Shape{4097}, Shape{kLarge}, Shape{1000, 7}})
    for (auto [low, high] : {std::pair{0.0, 1.0}, {-3.0, 5.5}}) {
      const Array<double> u = slab::random_uniform(engine, shape, Split::rows, 123, low, high, 999);
      const Array<double> g = slab::random_normal(engine, shape, Split::rows, 123, low, high, 999);
      const ChunkView<double> cu(u), cg(g);
      for (std::size_t c = 0; c < cu.data.size(); ++c) {
        const slab::ChunkExtent e = u.local_extent(c);
        const sk::BlockExtent be{e.row0, e.col0, e.rows, e.cols};
        std::vector<double> got(static_cast<std::size_t>(e.size()));
        CountingScratch scratch;
        sk::CreationKernels<Reference>::uniform(scratch.exec(), 123, low, high, be, u.cols(), got.data());
        EXPECT_EQ(std::memcmp(got.data(), cu.data[c], got.size() * 8), 0) << "uniform chunk " << c;
        sk::CreationKernels<Reference>::normal(scratch.exec(), 123, low, high, be, g.cols(), got.data());
        EXPECT_EQ(std::memcmp(got.data(), cg.data[c], got.size() * 8), 0) << "normal chunk " << c;
      }
    }
}

/// Host and kernel results of an elementwise expression over the chunks of `shape` (split rows, chunk rows).
template <class T, class HostFn>
void check_program(slab::Engine& engine, Shape shape, std::int64_t chunk, const sk::ElemProgram<T>& proto,
                   const std::vector<const Array<T>*>& leaves, const std::vector<bool>& bcast_rows,
                   const std::vector<bool>& bcast_cols, HostFn host, bool out_int64, const std::string& what) {
  const auto result = host();
  using R = typename std::decay_t<decltype(result)>::value_type;
  const std::vector<R> want = result.gather_all();
  std::vector<std::vector<T>> data;
  for (const auto* a : leaves) data.push_back(a->gather_all());
  std::vector<R> got(want.size());
  // Chunk by chunk of the result's layout, as the wiring will: leaves point at the chunk's first element.
  const std::int64_t cols = std::max<std::int64_t>(shape.cols, 1);
  for (std::int64_t r0 = 0; r0 < shape.rows; r0 += chunk) {
    const std::int64_t rows = std::min(chunk, shape.rows - r0);
    sk::ElemProgram<T> p = proto;
    for (std::size_t l = 0; l < leaves.size(); ++l) {
      const std::int64_t lcols = bcast_cols[l] ? 1 : cols;
      p.leaves[l].data = data[l].data() + (bcast_rows[l] ? 0 : r0 * lcols);
      p.leaves[l].row_stride = bcast_rows[l] ? 0 : lcols;
      p.leaves[l].col_stride = bcast_cols[l] ? 0 : 1;
    }
    p.nleaves = static_cast<int>(leaves.size());
    CountingScratch scratch;
    sk::ElementwiseKernels<Reference, T>::run(scratch.exec(), p, rows, cols, got.data() + r0 * cols, out_int64);
  }
  bool equal = got.size() == want.size();
  for (std::size_t i = 0; equal && i < got.size(); ++i) equal = same(got[i], want[i]);
  EXPECT_TRUE(equal) << what;
}

TEST(KernelArray, ElementwiseProgramsAreTheHostsFusedExpressions) {
  slab::testing::Engine engine;
  using E = sk::ElemOp;
  for (std::int64_t rows : {1, 31, 4097}) {
    const Shape shape{rows, 5};
    const std::int64_t chunk = 1000;
    auto make = [&](std::uint64_t s, Shape sh, Split sp) {
      std::vector<double> v(static_cast<std::size_t>(sh.rows * std::max<std::int64_t>(sh.cols, 1)));
      for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = static_cast<double>(h(s, static_cast<std::int64_t>(i)) % 2000) * 0.01 - 10.0;
      if (!v.empty()) v[0] = -0.0;
      return Array<double>::from_local_blocks(engine, sh, sp, v, sp == Split::none ? 0 : chunk);
    };
    const Array<double> a = make(100, shape, Split::rows), b = make(101, shape, Split::rows);
    const Array<double> row = make(102, Shape{1, 5}, Split::none), col = make(103, Shape{rows, 1}, Split::rows);
    const std::string r = " rows=" + std::to_string(rows);
    {  // sqrt(|a * 2 + b|) - b / a, fused
      sk::ElemProgram<double> p;
      p.scalars[0] = 2.0;
      p.nscalars = 1;
      const sk::ElemInstr code[] = {{E::leaf, 0}, {E::scalar, 0}, {E::mul, 0},  {E::leaf, 1}, {E::add, 0}, {E::abs, 0},
                                    {E::sqrt, 0}, {E::leaf, 1},   {E::leaf, 0}, {E::div, 0},  {E::sub, 0}};
      p.size = 11;
      std::copy(std::begin(code), std::end(code), p.code);
      check_program<double>(
          engine, shape, chunk, p, {&a, &b}, {false, false}, {false, false},
          [&] { return slab::sqrt(slab::abs(a * 2.0 + b)) - b / a; }, false, "sqrt abs" + r);
    }
    {  // minimum(a, row) * col + exp(b) (broadcast rows and columns; exp: glibc on both sides here)
      sk::ElemProgram<double> p;
      const sk::ElemInstr code[] = {{E::leaf, 0}, {E::leaf, 1}, {E::min, 0}, {E::leaf, 2},
                                    {E::mul, 0},  {E::leaf, 3}, {E::exp, 0}, {E::add, 0}};
      p.size = 8;
      std::copy(std::begin(code), std::end(code), p.code);
      check_program<double>(
          engine, shape, chunk, p, {&a, &row, &col, &b}, {false, true, false, false}, {false, false, true, false},
          [&] { return slab::minimum(a, row) * col + slab::exp(b); }, false, "broadcast" + r);
    }
    {  // where(a > b, a, 0.5) and the comparison itself as int64
      sk::ElemProgram<double> p;
      p.scalars[0] = 0.5;
      p.nscalars = 1;
      const sk::ElemInstr code[] = {{E::leaf, 0}, {E::leaf, 1},   {E::gt, 0},
                                    {E::leaf, 0}, {E::scalar, 0}, {E::where, 0}};
      p.size = 6;
      std::copy(std::begin(code), std::end(code), p.code);
      check_program<double>(
          engine, shape, chunk, p, {&a, &b}, {false, false}, {false, false}, [&] { return slab::where(a > b, a, 0.5); },
          false, "where" + r);
      p.size = 3;
      check_program<double>(
          engine, shape, chunk, p, {&a, &b}, {false, false}, {false, false}, [&] { return a > b; }, true,
          "compare" + r);
    }
  }
  // Integers: floor_divide and mod as NumPy (by zero 0, INT64_MIN // -1 wraps), pow through double.
  constexpr std::int64_t lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
  const std::vector<std::int64_t> iv{7, -7, 0, 3, hi, 2, lo, -7, 7, lo};
  const Array<std::int64_t> ia = Array<std::int64_t>::from_local_blocks(engine, Shape{10}, Split::rows, iv);
  const Array<std::int64_t> ib = Array<std::int64_t>::from_local_blocks(
      engine, Shape{10}, Split::rows, std::vector<std::int64_t>{2, 0, 5, -1, 1, 3, -1, 2, -2, 0});
  {
    sk::ElemProgram<std::int64_t> p;
    const sk::ElemInstr code[] = {{E::leaf, 0}, {E::leaf, 1}, {E::floordiv, 0}, {E::leaf, 0}, {E::leaf, 1}, {E::mod, 0},
                                  {E::add, 0},  {E::leaf, 1}, {E::leaf, 1},     {E::pow, 0},  {E::add, 0}};
    p.size = 11;
    std::copy(std::begin(code), std::end(code), p.code);
    check_program<std::int64_t>(
        engine, Shape{10}, 10, p, {&ia, &ib}, {false, false}, {false, false},
        [&] { return slab::floor_divide(ia, ib) + slab::mod(ia, ib) + slab::pow(ib, ib); }, false, "int64");
    // int64 / int64 is true division (float64): an int64 program refuses div.
    sk::ElemProgram<std::int64_t> div;
    const sk::ElemInstr dcode[] = {{E::leaf, 0}, {E::leaf, 1}, {E::div, 0}};
    div.size = 3;
    div.nleaves = 2;
    std::copy(std::begin(dcode), std::end(dcode), div.code);
    CountingScratch scratch;
    std::int64_t out = 0;
    EXPECT_THROW((sk::ElementwiseKernels<Reference, std::int64_t>::run(scratch.exec(), div, 1, 1, &out)),
                 slab::InvalidArgument);
  }
  {  // Floating floor_divide and mod (npy_divmod): zero, -0.0 and infinite divisors and dividends.
    constexpr double inf = std::numeric_limits<double>::infinity();
    const std::vector<double> x{5, -5, 5, 0, -0.0, inf, -7.5, 7.5, 1e300, -1e-300, 5, 0};
    const std::vector<double> y{0, 0, inf, 3, 3, 2, 2, -2, 1e-300, 7, -inf, 0};
    const auto n = static_cast<std::int64_t>(x.size());
    const Array<double> fa = Array<double>::from_local_blocks(engine, Shape{n}, Split::rows, x);
    const Array<double> fb = Array<double>::from_local_blocks(engine, Shape{n}, Split::rows, y);
    for (E op : {E::floordiv, E::mod}) {
      sk::ElemProgram<double> p;
      const sk::ElemInstr code[] = {{E::leaf, 0}, {E::leaf, 1}, {op, 0}};
      p.size = 3;
      std::copy(std::begin(code), std::end(code), p.code);
      check_program<double>(
          engine, Shape{n}, n, p, {&fa, &fb}, {false, false}, {false, false},
          [&] { return op == E::floordiv ? slab::floor_divide(fa, fb) : slab::mod(fa, fb); }, false,
          op == E::floordiv ? "float floor_divide" : "float mod");
    }
  }
  // A malformed program is refused before anything runs.
  sk::ElemProgram<double> bad;
  bad.code[0] = {E::add, 0};
  bad.size = 1;
  CountingScratch scratch;
  double out = 0;
  using Kernels = sk::ElementwiseKernels<Reference, double>;
  EXPECT_THROW(Kernels::run(scratch.exec(), bad, 1, 1, &out), slab::InvalidArgument);
}

TEST(KernelArray, TransposeAndStridedCopiesAreTheHosts) {
  slab::testing::Engine engine;
  for (auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {31, 32}, {4097, 3}, {3, 4097}, {0, 5}}) {
    std::vector<double> v(static_cast<std::size_t>(rows * cols));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(h(110, static_cast<std::int64_t>(i)));
    const Array<double> a = Array<double>::from_local_blocks(engine, Shape{rows, cols}, Split::rows, v, 1000);
    const ChunkView<double> cv(a);
    const Array<double> t = slab::transpose(a);
    const ChunkView<double> ct(t);
    ASSERT_EQ(cv.data.size(), ct.data.size());
    CountingScratch scratch;
    for (std::size_t c = 0; c < cv.data.size(); ++c) {
      const slab::ChunkExtent e = a.local_extent(c);
      std::vector<double> got(static_cast<std::size_t>(e.size()));
      sk::LayoutKernels<Reference, double>::transpose(scratch.exec(), cv.data[c], e.rows, e.cols, got.data());
      EXPECT_EQ(std::memcmp(got.data(), ct.data[c], got.size() * 8), 0) << rows << "x" << cols << " chunk " << c;
    }
    if (cols >= 3 && rows > 0) {  // columns [1, cols - 1) of the block, packed
      const std::vector<double> want = slab::col_range(a, 1, cols - 1).gather_all();
      std::vector<double> got(static_cast<std::size_t>(rows * (cols - 2)));
      sk::LayoutKernels<Reference, double>::copy_2d(scratch.exec(), v.data() + 1, cols, rows, cols - 2, got.data(),
                                                    cols - 2);
      EXPECT_EQ(got, want) << rows << "x" << cols;
    }
  }
}

}  // namespace
