// Layout maths, creation, gather, elementwise expressions (broadcasting, fusion) and shape errors.
#include <cmath>
#include <limits>

#include "array_test_util.hpp"
#include "slab/array/kokkos_view.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/core/version.hpp"
#include "slab/trace/tracer.hpp"
#include "test_engine.hpp"

using slab::Array;
using slab::Split;
using slab_test::Engine;
using slab_test::reference;

TEST(Layout, BalancedBlocksAndChunks) {
  auto l = slab::Layout::make({10, 3}, Split::rows, 4, 2);
  EXPECT_EQ(l.block_begin(0), 0);
  EXPECT_EQ(l.block_end(0), 3);
  EXPECT_EQ(l.block_begin(2), 6);
  EXPECT_EQ(l.block_end(3), 10);
  EXPECT_EQ(l.owner(5), 1);
  EXPECT_EQ(l.owner(9), 3);
  EXPECT_EQ(l.num_chunks(0), 2);
  EXPECT_EQ(l.chunk_extent(0, 1), (slab::ChunkExtent{2, 1, 0, 3}));
  auto small = slab::Layout::make({3, 2}, Split::rows, 4);
  EXPECT_EQ(small.local_rows(3), 0);
  EXPECT_EQ(small.num_chunks(3), 0);
  EXPECT_EQ(small.owner(2), 2);
  auto c = slab::Layout::make({4, 7}, Split::cols, 3, 2);
  EXPECT_EQ(c.local_cols(0), 3);
  EXPECT_EQ(c.chunk_extent(0, 1), (slab::ChunkExtent{0, 4, 2, 1}));
  EXPECT_EQ(slab::Layout::default_chunk(1000000, 1000, Split::rows, 8), 4194);
}

TEST(Array, CreationValues) {
  Engine e;
  for (Split s : {Split::rows, Split::cols, Split::none}) {
    auto u = slab::random_uniform(e, {13, 7}, s, 1, 0.0, 1.0, 2);
    EXPECT_EQ(u.gather_all(),
              reference<double>(13, 7, [](auto i, auto j) { return slab::counter_uniform(1, i * 7 + j); }));
    auto f = Array<double>::from_function(
        e, {5, 4}, s, [](auto i, auto j) { return 10.0 * i + j; }, 1);
    EXPECT_EQ(f.gather_all(), reference<double>(5, 4, [](auto i, auto j) { return 10.0 * i + j; }));
    EXPECT_EQ(slab::eye<std::int64_t>(e, 4, 5, s, 1).gather_all(),
              reference<std::int64_t>(4, 5, [](auto i, auto j) { return j == i + 1; }));
    EXPECT_EQ(slab::full<float>(e, {3, 3}, 2.5f, s).gather_all(), std::vector<float>(9, 2.5f));
  }
  EXPECT_EQ(slab::zeros<double>(e, {7}, Split::rows).gather_all(), std::vector<double>(7, 0.0));
  EXPECT_EQ(slab::ones<std::int64_t>(e, {7}, Split::rows, 2).gather_all(), std::vector<std::int64_t>(7, 1));
  EXPECT_EQ(slab::arange<std::int64_t>(e, 2, 11, 3, Split::rows).gather_all(), (std::vector<std::int64_t>{2, 5, 8}));
  auto ls = slab::linspace<double>(e, 0, 1, 5, Split::rows, true, 1).gather_all();
  EXPECT_EQ(ls, (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
  auto n = slab::random_normal(e, {9, 3}, Split::rows, 5, 0, 1, 2).gather_all();
  ASSERT_EQ(n.size(), 27u);
  for (std::uint64_t k = 0; k < 27; ++k) {
    const double u1 = slab::counter_uniform(5, k), u2 = slab::counter_uniform(5 ^ 0x80000, k);
    EXPECT_DOUBLE_EQ(n[k], std::sqrt(-2 * std::log1p(-u1)) * std::cos(2 * M_PI * u2));
  }
  // gather to one root
  auto g = slab::random_uniform(e, {6, 2}, Split::cols, 3).gather(e.comm().size() - 1);
  if (e.comm().rank() == e.comm().size() - 1)
    EXPECT_EQ(g, reference<double>(6, 2, [](auto i, auto j) { return slab::counter_uniform(3, i * 2 + j); }));
  else
    EXPECT_TRUE(g.empty());
}

TEST(Array, FromLocalData) {
  Engine e;
  const int r = e.comm().rank();
  auto l = slab::Layout::make({11, 2}, Split::rows, e.comm().size());
  std::vector<double> mine;
  for (auto i = l.block_begin(r); i < l.block_end(r); ++i) mine.insert(mine.end(), {double(i), -double(i)});
  auto a = Array<double>::from_local_blocks(e, {11, 2}, Split::rows, mine, 2);
  EXPECT_EQ(a.gather_all(), reference<double>(11, 2, [](auto i, auto j) { return j ? -double(i) : double(i); }));
  // Uneven rows per rank (rank r gives r + 1 rows), rebalanced.
  std::int64_t before = 0;
  for (int q = 0; q < r; ++q) before += q + 1;
  std::vector<std::int64_t> rows;
  for (int k = 0; k <= r; ++k) rows.push_back(before + k);
  auto b = Array<std::int64_t>::from_local_rows(e, rows, r + 1, 1, 1);
  const std::int64_t total = e.comm().size() * (e.comm().size() + 1) / 2;
  EXPECT_TRUE(b.layout().balanced());
  EXPECT_EQ(b.gather_all(), reference<std::int64_t>(total, 1, [](auto i, auto) { return i; }));
  // wrong size: the same ShapeError on every rank
  EXPECT_THROW((void)Array<double>::from_local_blocks(e, {11, 2}, Split::rows, std::vector<double>(r == 0 ? 1 : 0)),
               slab::ShapeError);
}

TEST(Array, ElementwiseAndBroadcast) {
  Engine e;
  const std::int64_t m = 9, n = 5;
  for (Split s : {Split::rows, Split::cols, Split::none}) {
    auto a = Array<double>::from_function(
        e, {m, n}, s, [](auto i, auto j) { return 1.0 + i + 0.1 * j; }, 2);
    auto b = Array<double>::from_function(
        e, {m, n}, s, [](auto i, auto j) { return 2.0 + j; }, 3);
    auto expr = slab::pow((a * 2.0 + b) / b - 1.0, 2.0).sqrt();
    auto want = reference<double>(m, n, [](auto i, auto j) {
      double x = 1.0 + i + 0.1 * j, y = 2.0 + j;
      return std::sqrt(std::pow((x * 2.0 + y) / y - 1.0, 2.0));
    });
    EXPECT_EQ(expr.gather_all(), want);
    auto cmp = (a > 4.0).gather_all();
    EXPECT_EQ(cmp, reference<std::int64_t>(m, n, [](auto i, auto j) { return 1.0 + i + 0.1 * j > 4.0; }));
    auto w = slab::where(a > 4.0, a, 0.0).gather_all();
    EXPECT_EQ(w, reference<double>(m, n, [](auto i, auto j) {
                double x = 1.0 + i + 0.1 * j;
                return x > 4.0 ? x : 0.0;
              }));
    EXPECT_EQ(slab::astype<std::int64_t>(a * 10.0).gather_all(),
              reference<std::int64_t>(m, n, [](auto i, auto j) { return std::int64_t((1.0 + i + 0.1 * j) * 10.0); }));
    EXPECT_EQ((-a).abs().log().exp().gather_all().size(), std::size_t(m * n));
    // row vector (1 x n, replicated)
    auto row = Array<double>::from_function(e, {1, n}, Split::none, [](auto, auto j) { return 100.0 * j; });
    EXPECT_EQ((a + row).gather_all(),
              reference<double>(m, n, [](auto i, auto j) { return 1.0 + i + 0.1 * j + 100.0 * j; }));
    EXPECT_EQ((2.0 - a).gather_all(),
              reference<double>(m, n, [](auto i, auto j) { return 2.0 - (1.0 + i + 0.1 * j); }));
  }
  // column vector (m x 1: a 1-D length m reshaped, split rows) against a row-split matrix
  auto a = Array<double>::from_function(
      e, {m, n}, Split::rows, [](auto i, auto j) { return 1.0 * i * j; }, 2);
  auto col = Array<double>::from_function(e, {m}, Split::rows, [](auto i, auto) { return 1000.0 * i; });
  EXPECT_EQ((a - col.reshape({m, 1})).gather_all(),
            reference<double>(m, n, [](auto i, auto j) { return 1.0 * i * j - 1000.0 * i; }));
  auto outer = Array<double>::from_function(e, {m, 1}, Split::rows, [](auto i, auto) { return 1.0 + i; }) *
               Array<double>::from_function(e, {1, n}, Split::none, [](auto, auto j) { return 1.0 + j; });
  EXPECT_EQ(outer.split(), Split::rows);
  EXPECT_EQ(outer.gather_all(), reference<double>(m, n, [](auto i, auto j) { return (1.0 + i) * (1.0 + j); }));
  // int64 floor division by zero gives 0 like NumPy (np.floor_divide(k, k - 3))
  auto k = slab::arange<std::int64_t>(e, 0, 6, 1, Split::rows);
  EXPECT_EQ(slab::floor_divide(k, k - 3).gather_all(), (std::vector<std::int64_t>{0, -1, -2, 0, 4, 2}));
}

// mean is NumPy's sum / n: the canonical sum over n, not Chan's merged means (whose rounding grew with the merges:
// 149999.94999999952 for the 1e6 values below against 149999.95), and an integer sum that wraps is placed by the
// min and max. Expected: the exact means (NumPy gives -1.0 and 150000.09999999998 for the first two), within
// 1e-15 relative; int64 [MAX, MAX, 5]: 6.148914691236517e18 (pandas and the exact mean). Host and reference place.
TEST(Array, MeanIsTheSumOverNAsNumPys) {
  for (bool ref : {false, true}) {
    if (ref && !slab::built_with_kernel_reference) continue;
    slab::EngineOptions o = slab::testing::engine_options();
    o.reference_kernels = ref;
    slab::Engine e(o);
    const char* where = ref ? "reference place" : "host";
    const std::int64_t n = 1000001;
    auto c = Array<double>::from_function(
        e, {n}, Split::rows, [](auto i, auto) { return static_cast<double>(i) * 0.3 + 0.1; }, 4096);
    EXPECT_NEAR(slab::mean(c), 150000.1, 1e-15 * 150000.1) << where;
    auto v = Array<std::int32_t>::from_function(
        e, {32}, Split::rows,
        [](auto k, auto) {
          return k % 2 ? 2147483647 - static_cast<std::int32_t>(k % 7)
                       : -2147483647 - 1 + static_cast<std::int32_t>(k % 5);
        },
        7);
    EXPECT_EQ(slab::mean(v), -1.0) << where;
    const std::int64_t M = std::numeric_limits<std::int64_t>::max();
    auto w = Array<std::int64_t>::from_function(
        e, {3}, Split::rows, [&](auto k, auto) { return k < 2 ? M : std::int64_t{5}; }, 1);
    EXPECT_DOUBLE_EQ(slab::mean(w), 6.148914691236517e18) << where;
  }
}

// Integer powers as NumPy's: exact and wrapping (through a double, 3 ** 39 was 4052555153018976256 and
// 3000000001 ** 2 lost its last digit). Expected values from NumPy 2.4.6:
//   np.array([3, 3000000001, 2, -3, 0, 7, 2, -2]) ** np.array([39, 2, 64, 3, 0, 0, 63, 63])
//   np.array([3, -2, 46341], dtype=np.int32) ** np.array([20, 31, 2], dtype=np.int32)
// On the host and on the reference place (the device's program), chunks of 2.
TEST(Array, IntegerPowerIsExactAndWrapsAsNumPys) {
  const std::vector<std::int64_t> a{3, 3000000001, 2, -3, 0, 7, 2, -2}, b{39, 2, 64, 3, 0, 0, 63, 63};
  const std::vector<std::int64_t> want{4052555153018976267,
                                       9000000006000000001,
                                       0,
                                       -27,
                                       1,
                                       1,
                                       std::numeric_limits<std::int64_t>::min(),
                                       std::numeric_limits<std::int64_t>::min()};
  const std::vector<std::int32_t> a32{3, -2, 46341}, b32{20, 31, 2}, want32{-808182895, -2147483647 - 1, -2147479015};
  for (bool ref : {false, true}) {
    if (ref && !slab::built_with_kernel_reference) continue;
    slab::EngineOptions o = slab::testing::engine_options();
    o.reference_kernels = ref;
    slab::Engine e(o);
    const auto n = static_cast<std::int64_t>(a.size());
    auto x = Array<std::int64_t>::from_function(
        e, {n}, Split::rows, [&](auto i, auto) { return a[i]; }, 2);
    auto y = Array<std::int64_t>::from_function(
        e, {n}, Split::rows, [&](auto i, auto) { return b[i]; }, 2);
    EXPECT_EQ(slab::pow(x, y).gather_all(), want) << (ref ? "reference place" : "host");
    EXPECT_EQ(x.pow(2.0).gather_all()[1], 9000000006000000001) << (ref ? "reference place" : "host");
    auto x32 = Array<std::int32_t>::from_function(
        e, {3}, Split::rows, [&](auto i, auto) { return a32[i]; }, 2);
    auto y32 = Array<std::int32_t>::from_function(
        e, {3}, Split::rows, [&](auto i, auto) { return b32[i]; }, 2);
    EXPECT_EQ(slab::pow(x32, y32).gather_all(), want32) << (ref ? "reference place" : "host");
  }
}

// Division as NumPy defines it. Expected values from NumPy 2.4.6 (perf/.venv), e.g.
//   np.floor_divide(a, b), np.remainder(a, b), a / b  for the int64 and float64 pairs below.
// Before: Array<int64> / int64 truncated toward zero (-7 / 2 == -3) and there was no floor division or modulo.
TEST(Array, DivisionFollowsNumPy) {
  Engine e;
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const std::int64_t lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
  const std::vector<std::int64_t> ia = {7, -7, 7, -7, 0, 5, -5, 0, lo, lo, hi, -1, 1};
  const std::vector<std::int64_t> ib = {2, 2, -2, -2, 3, 0, 0, 0, -1, 1, -1, 3, -3};
  const std::vector<std::int64_t> ifloor = {3, -4, -4, 3, 0, 0, 0, 0, lo, lo, -hi, -1, -1};
  const std::vector<std::int64_t> imod = {1, 1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 2, -2};
  const std::vector<double> itrue = {3.5,
                                     -3.5,
                                     -3.5,
                                     3.5,
                                     0.0,
                                     inf,
                                     -inf,
                                     nan,
                                     9.223372036854776e18,
                                     -9.223372036854776e18,
                                     -9.223372036854776e18,
                                     -1.0 / 3,
                                     -1.0 / 3};
  const auto n = static_cast<std::int64_t>(ia.size());
  // chunk 2: several chunks per rank, ranks with one chunk or none at 3-4 ranks.
  auto a = Array<std::int64_t>::from_function(
      e, {n}, Split::rows, [&](auto i, auto) { return ia[i]; }, 2);
  auto b = Array<std::int64_t>::from_function(
      e, {n}, Split::rows, [&](auto i, auto) { return ib[i]; }, 2);
  Array<double> q = a / b;  // true division: float64, as NumPy
  const std::vector<double> qv = q.gather_all();
  EXPECT_EQ(qv.size(), itrue.size());
  for (std::size_t i = 0; i < qv.size() && i < itrue.size(); ++i)
    EXPECT_TRUE(qv[i] == itrue[i] || (std::isnan(qv[i]) && std::isnan(itrue[i]))) << i << ": " << qv[i];
  EXPECT_EQ(slab::floor_divide(a, b).gather_all(), ifloor);
  EXPECT_EQ(a.floor_divide(b).gather_all(), ifloor);
  EXPECT_EQ(slab::mod(a, b).gather_all(), imod);
  EXPECT_EQ((a % b).gather_all(), imod);
  EXPECT_EQ(a.mod(b).gather_all(), imod);
  // Scalars on either side: -7 / 2 == -3.5, -7 // 2 == -4, -7 % 2 == 1, 7 // -2 == -4, 7 % -2 == -1.
  auto m7 = slab::full<std::int64_t>(e, {3}, -7, Split::rows);
  EXPECT_EQ((m7 / std::int64_t{2}).gather_all(), (std::vector<double>{-3.5, -3.5, -3.5}));
  EXPECT_EQ(slab::floor_divide(m7, std::int64_t{2}).gather_all(), (std::vector<std::int64_t>{-4, -4, -4}));
  EXPECT_EQ((m7 % std::int64_t{2}).gather_all(), (std::vector<std::int64_t>{1, 1, 1}));
  EXPECT_EQ(slab::floor_divide(std::int64_t{7}, m7 + std::int64_t{5}).gather_all(),
            (std::vector<std::int64_t>{-4, -4, -4}));
  EXPECT_EQ(slab::mod(std::int64_t{7}, m7 + std::int64_t{5}).gather_all(), (std::vector<std::int64_t>{-1, -1, -1}));
  EXPECT_EQ((std::int64_t{1} / (m7 + std::int64_t{3})).gather_all(), (std::vector<double>{-0.25, -0.25, -0.25}));
  // BinaryOp::div would keep int64: refused, pointing at divide() / floor_divide().
  EXPECT_THROW((void)slab::binary(slab::BinaryOp::div, a, b), slab::InvalidArgument);

  // float64: NumPy's npy_divmod (remainder with the divisor's sign; inf and zero divisors as NumPy).
  const std::vector<double> fa = {7.,  -7., 7.,  -7., 0.,  -0., 5.5, -5.5,  1., -1., 0.,  inf, -inf,
                                  inf, 5.,  -5., 5.,  -5., nan, 3.,  1e300, 6., -6., 0.3, 1.0};
  const std::vector<double> fb = {2.,  2.,  -2., -2.,  3.,   3., -2., 2.,     0., 0., 0.,  2., 2.,
                                  inf, inf, inf, -inf, -inf, 1., nan, 1e-300, 3., 3., 0.1, 0.1};
  const std::vector<double> ffloor = {3.,  -4., -4., 3.,  0., -0., -3., -3., inf, -inf, nan, nan, nan,
                                      nan, 0.,  -1., -1., 0., nan, nan, inf, 2.,  -2.,  2.,  9.};
  const std::vector<double> fmod = {1.,
                                    1.,
                                    -1.,
                                    -1.,
                                    0.,
                                    0.,
                                    -0.5,
                                    0.5,
                                    nan,
                                    nan,
                                    nan,
                                    nan,
                                    nan,
                                    nan,
                                    5.,
                                    inf,
                                    -inf,
                                    -5.,
                                    nan,
                                    nan,
                                    4.891554850853602e-301,
                                    0.,
                                    0.,
                                    0.09999999999999998,
                                    0.09999999999999995};
  const auto fn = static_cast<std::int64_t>(fa.size());
  for (Split s : {Split::rows, Split::cols, Split::none}) {
    auto x = Array<double>::from_function(
        e, {1, fn}, s, [&](auto, auto j) { return fa[j]; }, 3);
    auto y = Array<double>::from_function(
        e, {1, fn}, s, [&](auto, auto j) { return fb[j]; }, 3);
    const auto fl = slab::floor_divide(x, y).gather_all();
    const auto md = (x % y).gather_all();
    EXPECT_EQ(fl.size(), ffloor.size());
    EXPECT_EQ(md.size(), fmod.size());
    for (std::size_t i = 0; i < fl.size() && i < ffloor.size() && i < md.size(); ++i) {
      EXPECT_TRUE((fl[i] == ffloor[i] && std::signbit(fl[i]) == std::signbit(ffloor[i])) ||
                  (std::isnan(fl[i]) && std::isnan(ffloor[i])))
          << "floor_divide(" << fa[i] << ", " << fb[i] << ") = " << fl[i] << ", NumPy " << ffloor[i];
      EXPECT_TRUE(md[i] == fmod[i] || (std::isnan(md[i]) && std::isnan(fmod[i])))
          << "mod(" << fa[i] << ", " << fb[i] << ") = " << md[i] << ", NumPy " << fmod[i];
    }
    // floor_divide(a, b) * b + mod(a, b) == a where everything is finite.
    EXPECT_EQ((slab::floor_divide(x, 2.0) * 2.0 + slab::mod(x, 2.0)).gather_all()[0], 7.0);
  }
}

TEST(Array, FusionMakesOneTaskPerChunk) {
  Engine e;
  auto a = slab::random_uniform(e, {40, 3}, Split::rows, 1, 0, 1, 4);
  auto b = slab::random_uniform(e, {40, 3}, Split::rows, 2, 0, 1, 4);
  a.persist();
  b.persist();
  const auto chunks = a.num_local_chunks();
  const auto before = e.tasks().stats().submitted;
  auto c = (a * 2.0 + b).exp();
  EXPECT_TRUE(c.is_expression());
  EXPECT_EQ(e.tasks().stats().submitted, before);
  c.persist();
  EXPECT_EQ(e.tasks().stats().submitted - before, chunks);
  auto got = c.gather_all();
  auto ua = a.gather_all(), ub = b.gather_all();
  bool ok = got.size() == ua.size();
  for (std::size_t i = 0; ok && i < got.size(); ++i) ok = got[i] == std::exp(ua[i] * 2.0 + ub[i]);
  EXPECT_TRUE(ok);
  // A reduction of an expression fuses too: one partial task per chunk.
  const auto before2 = e.tasks().stats().submitted;
  const double s = slab::sum(a * 2.0 + b);
  EXPECT_EQ(e.tasks().stats().submitted - before2, chunks);
  double ref = 0;
  for (std::size_t i = 0; i < ua.size(); ++i) ref += ua[i] * 2.0 + ub[i];
  EXPECT_NEAR(s, ref, 1e-9);
}

TEST(Array, ShapeErrorsOnEveryRank) {
  Engine e;
  auto a = slab::zeros<double>(e, {4, 3}, Split::rows);
  auto b = slab::zeros<double>(e, {4, 2}, Split::rows);
  auto c = slab::zeros<double>(e, {4, 3}, Split::cols);
  try {
    (void)(a + b);
    ADD_FAILURE() << "no ShapeError";
  } catch (const slab::ShapeError& err) {
    const std::string msg = err.message();
    EXPECT_NE(msg.find("add"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(4, 3)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(4, 2)"), std::string::npos) << msg;
  }
  if (e.comm().size() > 1) EXPECT_THROW((void)(a * c), slab::ShapeError);
  EXPECT_THROW((void)slab::row_range(a, 2, 9), slab::ShapeError);
  e.comm().barrier();
}

TEST(Array, KokkosView) {
  Engine e;
  auto a = Array<double>::from_function(
      e, {6, 4}, Split::rows, [](auto i, auto j) { return 10.0 * i + j; }, 1);
  a.persist();
  double s = 0;
  for (std::size_t c = 0; c < a.num_local_chunks(); ++c) {
    auto v = slab::local_view(a, c);
    double part = 0;
    Kokkos::parallel_reduce(
        "sum", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, v.view.extent(0)),
        [&](int i, double& acc) {
          for (std::size_t j = 0; j < v.view.extent(1); ++j) acc += v.view(i, j) - (10.0 * (v.extent.row0 + i) + j);
        },
        part);
    s += part;
  }
  EXPECT_EQ(s, 0.0);
}

// Where the device tier is not host memory (the reference place stages as a GPU would) a host Kokkos views a host
// copy of the chunk: writes through it reach the chunk when the view goes, and the copy is a recorded fallback.
TEST(Array, KokkosViewOfAStagedChunkWritesBack) {
  if (!slab::built_with_kernel_reference) GTEST_SKIP() << "this build has no reference kernels (no CCCL headers)";
  slab::EngineOptions o = slab::testing::engine_options();
  o.reference_kernels = true;
  slab::Engine e(o);
  auto a = Array<double>::from_function(
      e, {7, 3}, Split::rows, [](auto i, auto j) { return 10.0 * i + j; }, 2);
  a.persist();
  for (std::size_t c = 0; c < a.num_local_chunks(); ++c) {
    auto v = slab::local_view(a, c);
    EXPECT_TRUE(v.edit.staged());
    EXPECT_NE(reinterpret_cast<std::byte*>(v.view.data()), v.pin.data());
    Kokkos::parallel_for("negate", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, v.view.extent(0)),
                         [&](int i) {
                           for (std::size_t j = 0; j < v.view.extent(1); ++j) v.view(i, j) = -v.view(i, j);
                         });
  }
  const std::vector<double> got = a.gather_all();
  for (std::int64_t i = 0; i < 7; ++i)
    for (std::int64_t j = 0; j < 3; ++j) EXPECT_EQ(got[static_cast<std::size_t>(i * 3 + j)], -(10.0 * i + j));
  const auto& fb = e.tracer().fallbacks();
  const auto it = fb.find("local_view");
  EXPECT_EQ(it == fb.end() ? 0u : it->second, a.num_local_chunks());
}
