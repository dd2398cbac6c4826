// Reductions (full, NaN, axis), slicing with empty ranks, transpose, resplit and rebalance.
#include <algorithm>
#include <cmath>
#include <limits>

#include "array_test_util.hpp"
#include "slab/core/counter_rng.hpp"

using slab::Array;
using slab::Split;
using slab_test::Engine;
using slab_test::reference;

namespace {
double serial_var(const std::vector<double>& x, int ddof) {
  double m = 0;
  for (double v : x) m += v;
  m /= double(x.size());
  double q = 0;
  for (double v : x) q += (v - m) * (v - m);
  return q / double(x.size() - ddof);
}
}  // namespace

TEST(Reduce, FullReductionsMatchSerial) {
  Engine e;
  for (Split s : {Split::rows, Split::cols, Split::none}) {
    auto a = slab::random_normal(e, {37, 11}, s, 7, 1.0, 2.0, 3);
    const auto x = a.gather_all();
    double sum = 0, sq = 0;
    for (double v : x) sum += v, sq += v * v;
    EXPECT_NEAR(slab::sum(a), sum, 1e-10);
    EXPECT_NEAR(slab::mean(a), sum / x.size(), 1e-12);
    EXPECT_NEAR(slab::var(a, 1), serial_var(x, 1), 1e-10);
    EXPECT_NEAR(slab::std(a), std::sqrt(serial_var(x, 0)), 1e-10);
    EXPECT_EQ(slab::min(a), *std::min_element(x.begin(), x.end()));
    EXPECT_EQ(slab::max(a), *std::max_element(x.begin(), x.end()));
    EXPECT_EQ(slab::argmin(a), std::min_element(x.begin(), x.end()) - x.begin());
    EXPECT_EQ(slab::argmax(a), std::max_element(x.begin(), x.end()) - x.begin());
    EXPECT_NEAR(slab::norm(a), std::sqrt(sq), 1e-10);
    EXPECT_EQ(slab::count_nonzero(a > 1.0), std::count_if(x.begin(), x.end(), [](double v) { return v > 1.0; }));
    auto st = slab::reduce_stats(a, 1);
    EXPECT_EQ(st.count, 37 * 11);
    EXPECT_NEAR(st.sum, sum, 1e-10);
    EXPECT_NEAR(st.var, serial_var(x, 1), 1e-10);
    EXPECT_EQ(st.max, slab::max(a));
    // Run to run: bitwise identical.
    EXPECT_EQ(slab::sum(a), slab::sum(a));
  }
  auto k = slab::arange<std::int64_t>(e, 0, 1001, 1, Split::rows, 7);
  EXPECT_EQ(slab::sum(k), 500500);
  EXPECT_EQ(slab::max(k), 1000);
  EXPECT_EQ(slab::mean(k), 500.0);
  auto f = slab::ones<float>(e, {1000}, Split::cols);
  EXPECT_EQ(slab::sum(f), 1000.0f);
}

TEST(Reduce, NaNFollowsNumPy) {
  Engine e;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto a = Array<double>::from_function(
      e, {10, 3}, Split::rows, [&](auto i, auto j) { return i == 7 && j == 1 ? nan : double(i + j); }, 2);
  EXPECT_TRUE(std::isnan(slab::sum(a)));
  EXPECT_TRUE(std::isnan(slab::mean(a)));
  EXPECT_TRUE(std::isnan(slab::min(a)));
  EXPECT_TRUE(std::isnan(slab::max(a)));
  EXPECT_TRUE(std::isnan(slab::var(a)));
  EXPECT_EQ(slab::argmax(a), 7 * 3 + 1);
  double s = 0;
  for (int i = 0; i < 10; ++i)
    for (int j = 0; j < 3; ++j)
      if (!(i == 7 && j == 1)) s += i + j;
  EXPECT_EQ(slab::nansum(a), s);
  EXPECT_DOUBLE_EQ(slab::nanmean(a), s / 29);
  auto st = slab::reduce_stats(a);
  EXPECT_TRUE(std::isnan(st.sum) && std::isnan(st.max) && std::isnan(st.std));
}

TEST(Reduce, AxisReductions) {
  Engine e;
  const std::int64_t m = 7, n = 5;
  auto f = [](auto i, auto j) { return 1.0 * i * i - 3.0 * j + 0.5 * i * j; };
  const auto x = reference<double>(m, n, f);
  for (Split s : {Split::rows, Split::cols, Split::none}) {
    auto a = Array<double>::from_function(e, {m, n}, s, f, 2);
    auto s0 = slab::sum(a, 0).gather_all();
    auto s1 = slab::mean(a, 1).gather_all();
    auto v0 = slab::var(a, 0, 1).gather_all();
    auto mx1 = slab::max(a, 1).gather_all();
    ASSERT_EQ(s0.size(), std::size_t(n));
    ASSERT_EQ(s1.size(), std::size_t(m));
    for (std::int64_t j = 0; j < n; ++j) {
      std::vector<double> c;
      for (std::int64_t i = 0; i < m; ++i) c.push_back(x[i * n + j]);
      double t = 0;
      for (double v : c) t += v;
      EXPECT_NEAR(s0[j], t, 1e-9);
      EXPECT_NEAR(v0[j], serial_var(c, 1), 1e-9);
    }
    for (std::int64_t i = 0; i < m; ++i) {
      double t = 0, mx = -1e300;
      for (std::int64_t j = 0; j < n; ++j) t += x[i * n + j], mx = std::max(mx, x[i * n + j]);
      EXPECT_NEAR(s1[i], t / n, 1e-9);
      EXPECT_EQ(mx1[i], mx);
    }
  }
}

TEST(Slice, RowsColsHeadWithEmptyRanks) {
  Engine e;
  auto f = [](auto i, auto j) { return 100.0 * i + j; };
  for (Split s : {Split::rows, Split::cols, Split::none}) {
    auto a = Array<double>::from_function(e, {11, 6}, s, f, 2);
    auto r = a.row_range(3, 6);  // 3 rows: with 4 ranks some ranks hold none
    EXPECT_EQ(r.rows(), 3);
    EXPECT_EQ(r.gather_all(), reference<double>(3, 6, [&](auto i, auto j) { return f(i + 3, j); }));
    EXPECT_EQ(slab::sum(r), 3 * (100.0 * 4 * 6) + 3 * 15.0);
    auto c = a.col_range(1, 4).row_range(2, 10);
    EXPECT_EQ(c.gather_all(), reference<double>(8, 3, [&](auto i, auto j) { return f(i + 2, j + 1); }));
    EXPECT_EQ((c * 2.0).gather_all(), reference<double>(8, 3, [&](auto i, auto j) { return 2 * f(i + 2, j + 1); }));
    EXPECT_EQ(a.head(2).gather_all(), reference<double>(2, 6, f));
    EXPECT_EQ(a.head(100).rows(), 11);
    auto sel = slab::select_cols(a, {5, 0, 5});
    EXPECT_EQ(sel.gather_all(), reference<double>(11, 3, [&](auto i, auto j) { return f(i, j == 1 ? 0 : 5); }));
    auto reb = r.rebalance();
    EXPECT_TRUE(reb.layout().balanced());
    EXPECT_EQ(reb.gather_all(), r.gather_all());
    auto empty = a.row_range(4, 4);
    EXPECT_EQ(empty.gather_all().size(), 0u);
    EXPECT_EQ(slab::sum(empty), 0.0);
  }
}

TEST(Layouts, TransposeResplitRebalance) {
  Engine e;
  auto f = [](auto i, auto j) { return 10.0 * i - j; };
  const auto xt = reference<double>(5, 9, [&](auto i, auto j) { return f(j, i); });
  for (Split s : {Split::rows, Split::cols, Split::none}) {
    auto a = Array<double>::from_function(e, {9, 5}, s, f, 2);
    auto t = a.transpose();
    EXPECT_EQ(t.rows(), 5);
    EXPECT_EQ(t.split(), s == Split::rows ? Split::cols : s == Split::cols ? Split::rows : Split::none);
    EXPECT_EQ(t.gather_all(), xt);
    for (Split to : {Split::rows, Split::cols, Split::none}) {
      auto b = a.resplit(to);
      EXPECT_EQ(b.split(), to);
      EXPECT_EQ(b.gather_all(), reference<double>(9, 5, f)) << slab::to_string(s) << " -> " << slab::to_string(to);
      EXPECT_EQ(slab::sum(b + a.resplit(to)), 2 * slab::sum(a));
    }
  }
  // 3 rows on up to 4 ranks, then rebalanced and resplit
  auto small = slab::random_uniform(e, {3, 4}, Split::rows, 9);
  auto cols = small.resplit(Split::cols).resplit(Split::rows);
  EXPECT_EQ(cols.gather_all(), small.gather_all());
}
