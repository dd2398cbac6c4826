// Rolling windows against a serial reference on the gathered series: row and time windows, NaNs and +-inf,
// ranks with fewer rows than the window and ranks with no rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "../io/io_test_util.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/frame/rolling.hpp"

namespace sf = slab::frame;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Window [s, i] of the serial reference, computed directly. pandas (>= 2) turns +-inf into NaN before every
// aggregation but count, which counts the non-NaN rows.
double reference(const std::vector<double>& x, std::size_t s, std::size_t i, std::size_t minp, sf::RollingOp op) {
  std::vector<double> w;
  std::size_t valid = 0;
  for (std::size_t j = s; j <= i; ++j) {
    valid += !std::isnan(x[j]);
    if (std::isfinite(x[j])) w.push_back(x[j]);
  }
  const std::size_t n = w.size();
  // pandas: count applies min_periods to the rows in the window [s, i], NaN included.
  if (op == sf::RollingOp::count) return i + 1 - s >= minp ? static_cast<double>(valid) : kNaN;
  if (n < std::max<std::size_t>(minp, 1)) return kNaN;
  long double sum = 0;
  for (double v : w) sum += v;
  switch (op) {
    case sf::RollingOp::sum:
      return static_cast<double>(sum);
    case sf::RollingOp::mean:
      return static_cast<double>(sum / n);
    case sf::RollingOp::min:
      return *std::min_element(w.begin(), w.end());
    case sf::RollingOp::max:
      return *std::max_element(w.begin(), w.end());
    case sf::RollingOp::std: {
      if (n < 2) return kNaN;
      const long double m = sum / n;
      long double ss = 0;
      for (double v : w) ss += (v - m) * (v - m);
      return static_cast<double>(std::sqrt(ss / (n - 1)));
    }
    default:
      return kNaN;
  }
}

// Rows per rank: uneven, with empty ranks and ranks smaller than the window.
std::vector<std::size_t> layout(int p, std::size_t total) {
  std::vector<std::size_t> c(p, 0);
  if (p == 1) return {total};
  c[0] = 3;
  if (p > 2) c[1] = 0;
  if (p > 3) c[2] = 1;
  std::size_t used = 0;
  for (auto v : c) used += v;
  c[p - 1] = total - used;
  return c;
}

void check_close(const std::vector<double>& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " row " << i << " got " << got[i];
    } else {
      EXPECT_NEAR(got[i], want[i], 1e-12 * std::max(1.0, std::abs(want[i]))) << what << " row " << i;
    }
  }
}

const sf::RollingOp kOps[] = {sf::RollingOp::mean, sf::RollingOp::sum, sf::RollingOp::min,
                              sf::RollingOp::max,  sf::RollingOp::std, sf::RollingOp::count};

}  // namespace

TEST(FrameRolling, RowWindowsMatchSerialReference) {
  iotest::Engine e;
  const int p = e.comm().size(), r = e.comm().rank();
  const std::size_t total = 257;
  std::vector<double> all(total);
  for (std::size_t i = 0; i < total; ++i)
    all[i] = (i % 17 == 5)   ? kNaN
             : (i % 19 == 2) ? kInf
             : (i % 29 == 9) ? -kInf
                             : 100.0 * slab::counter_uniform(3, i) - 50.0;
  for (std::size_t i = 120; i < 124; ++i) all[i] = i % 2 ? kInf : -kInf;  // +inf next to -inf
  const auto counts = layout(p, total);
  std::size_t first = 0;
  for (int q = 0; q < r; ++q) first += counts[q];
  std::vector<double> mine(all.begin() + first, all.begin() + first + counts[r]);
  for (std::int64_t w : {1, 2, 5, 10, 40}) {
    for (std::int64_t minp : {-1, 1, 3}) {
      if (minp > w) continue;
      const auto window = sf::RollingWindow::count(w, minp);
      const auto results = sf::rolling(e.comm(), std::span<const double>(mine), {}, window, kOps);
      for (std::size_t k = 0; k < std::size(kOps); ++k) {
        std::vector<double> got;
        e.comm().allgatherv(std::span<const double>(results[k]), got);
        std::vector<double> want(total);
        const std::size_t mp = static_cast<std::size_t>(window.effective_min_periods());
        for (std::size_t i = 0; i < total; ++i)
          want[i] = reference(all, i + 1 >= static_cast<std::size_t>(w) ? i + 1 - w : 0, i, mp, kOps[k]);
        check_close(got, want,
                    "rolling(" + std::to_string(w) + ", min_periods " + std::to_string(minp) + ")." +
                        std::string(sf::to_string(kOps[k])));
      }
    }
  }
}

TEST(FrameRolling, TimeWindowsMatchSerialReference) {
  iotest::Engine e;
  const int p = e.comm().size(), r = e.comm().rank();
  const std::size_t total = 301;
  std::vector<double> all(total);
  std::vector<std::int64_t> t(total);
  std::int64_t now = 1'000'000'000'000;
  for (std::size_t i = 0; i < total; ++i) {
    all[i] = (i % 23 == 7) ? kNaN : (i % 31 == 4) ? kInf : (i % 37 == 20) ? -kInf : slab::counter_uniform(4, i);
    now += static_cast<std::int64_t>(slab::counter_hash(5, i) % 4) * 1'000'000'000;  // gaps of 0..3 s (duplicates)
    t[i] = now;
  }
  const auto counts = layout(p, total);
  std::size_t first = 0;
  for (int q = 0; q < r; ++q) first += counts[q];
  std::vector<double> mine(all.begin() + first, all.begin() + first + counts[r]);
  std::vector<std::int64_t> tmine(t.begin() + first, t.begin() + first + counts[r]);
  for (const char* span : {"1s", "3s", "10s", "1min"}) {
    const auto window = sf::RollingWindow::parse(span);
    const auto results =
        sf::rolling(e.comm(), std::span<const double>(mine), std::span<const std::int64_t>(tmine), window, kOps);
    for (std::size_t k = 0; k < std::size(kOps); ++k) {
      std::vector<double> got;
      e.comm().allgatherv(std::span<const double>(results[k]), got);
      std::vector<double> want(total);
      for (std::size_t i = 0; i < total; ++i) {
        std::size_t s = 0;
        while (t[s] <= t[i] - window.span_ns) ++s;
        want[i] = reference(all, s, i, 1, kOps[k]);
      }
      check_close(got, want, std::string("rolling('") + span + "')." + std::string(sf::to_string(kOps[k])));
    }
  }
}

// pandas' numerics where a plain running sum goes wrong: a huge value leaving the window (pandas' separate add and
// remove compensations give back what its add rounded away) and windows of equal values (their mean is the value,
// their std exactly 0). Expected values from pandas 3.1.1:
//   python3 -c "import pandas as pd; s = pd.Series([1e17, 1, 2, 3, 4, 5, 6, 7, 117.3, 0.1, 0.1, 0.1, 0.1, 5.0,
//     0.3, 0.3, 0.3, -2.5, -2.5]); print([getattr(s.rolling(w), op)().tolist() for w in (2, 3)
//     for op in ('sum', 'mean', 'std')])"
// Split over the ranks as the tests above (a rank with no rows, a halo from two ranks back).
TEST(FrameRolling, PandasNumericsOnCancellationAndEqualValues) {
  iotest::Engine e;
  const int p = e.comm().size(), r = e.comm().rank();
  const std::vector<double> all{1e17, 1, 2, 3, 4, 5, 6, 7, 117.3, 0.1, 0.1, 0.1, 0.1, 5.0, 0.3, 0.3, 0.3, -2.5, -2.5};
  const double n = kNaN;
  const std::vector<std::vector<double>> want{
      // rolling(2): sum, mean, std
      {n, 1e+17, 3.0, 5.0, 7.0, 9.0, 11.0, 13.0, 124.3, 117.39999999999999, 0.2, 0.2, 0.2, 5.1, 5.3, 0.6, 0.6, -2.2,
       -5.0},
      {n, 5e+16, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 62.15, 58.699999999999996, 0.1, 0.1, 0.1, 2.55, 2.65, 0.3, 0.3, -1.1,
       -2.5},
      {n, 7.071067811865475e+16, 0.7071067811865476, 0.7071067811865476, 0.7071067811865476, 0.7071067811865476,
       0.7071067811865476, 0.7071067811865476, 77.99387796487619, 82.87291475506336, 0.0, 0.0, 0.0, 3.4648232278140827,
       3.3234018715767735, 0.0, 0.0, 1.9798989873223332, 0.0},
      // rolling(3): sum, mean, std
      {n, n, 1e+17, 6.0, 9.0, 12.0, 15.0, 18.0, 130.3, 124.39999999999999, 117.5, 0.30000000000000004,
       0.30000000000000004, 5.2, 5.4, 5.6, 0.8999999999999999, -1.9000000000000001, -4.7},
      {n, n, 3.3333333333333332e+16, 2.0, 3.0, 4.0, 5.0, 6.0, 43.43333333333334, 41.46666666666666, 39.166666666666664,
       0.1, 0.1, 1.7333333333333334, 1.8, 1.8666666666666665, 0.3, -0.6333333333333334, -1.5666666666666667},
      {n, n, 5.773502691896258e+16, 1.0, 1.0, 1.0, 1.0, 1.0, 63.97236382480589, 65.76414930137341, 67.66545154902414,
       0.0, 0.0, 2.8290163190291664, 2.7730849247724096, 2.7135462651912414, 0.0, 1.6165807537309522,
       1.6165807537309522}};
  const auto counts = layout(p, all.size());
  std::size_t first = 0;
  for (int q = 0; q < r; ++q) first += counts[q];
  const std::vector<double> mine(all.begin() + first, all.begin() + first + counts[r]);
  const sf::RollingOp ops[] = {sf::RollingOp::sum, sf::RollingOp::mean, sf::RollingOp::std};
  for (std::int64_t w : {2, 3}) {
    const auto results = sf::rolling(e.comm(), std::span<const double>(mine), {}, sf::RollingWindow::count(w), ops);
    for (std::size_t k = 0; k < std::size(ops); ++k) {
      std::vector<double> got;
      e.comm().allgatherv(std::span<const double>(results[k]), got);
      const std::vector<double>& expected = want[static_cast<std::size_t>(w - 2) * 3 + k];
      const std::string what = "rolling(" + std::to_string(w) + ")." + std::string(sf::to_string(ops[k]));
      check_close(got, expected, what);
      for (std::size_t i = 0; i < got.size(); ++i)  // the equal windows: exactly pandas' value
        if (expected[i] == 0.0 || expected[i] == 0.1 || expected[i] == 0.3 || expected[i] == -2.5 ||
            expected[i] == 0.30000000000000004 || expected[i] == 0.6 || expected[i] == -5.0)
          EXPECT_EQ(got[i], expected[i]) << what << " row " << i;
    }
  }
}

TEST(FrameRolling, FrameApiAndErrors) {
  iotest::Engine e;
  const int r = e.comm().rank();
  sf::LocalTable table;
  std::vector<std::int64_t> t;
  std::vector<double> v;
  const std::int64_t n = r == 0 ? 0 : 5 + r;
  std::int64_t base = 0;
  for (int q = 0; q < r; ++q) base += q == 0 ? 0 : 5 + q;
  for (std::int64_t i = 0; i < n; ++i)
    t.push_back((base + i) * 1'000'000'000), v.push_back(static_cast<double>(base + i));
  table.add(sf::LocalColumn::timestamp("t", t)).add(sf::LocalColumn::float64("v", v));
  sf::Frame f = sf::Frame::from_local_table(e, table, 3);
  sf::Frame out = sf::rolling(f, "v", sf::RollingWindow::parse("2s"), {sf::RollingOp::sum, sf::RollingOp::count}, "t");
  sf::LocalTable g = out.gather_all();
  const std::int64_t total = f.len();
  ASSERT_EQ(g.names(), (std::vector<std::string>{"v_sum", "v_count"}));
  ASSERT_EQ(g.nrows(), total);
  for (std::int64_t i = 0; i < total; ++i) {
    EXPECT_DOUBLE_EQ(g.columns[0].floats[i], i == 0 ? 0.0 : 2.0 * i - 1) << i;
    EXPECT_DOUBLE_EQ(g.columns[1].floats[i], i == 0 ? 1.0 : 2.0) << i;
  }
  // Unsorted timestamps: the same InvalidArgument on every rank.
  std::vector<std::int64_t> bad = {5, 4};
  std::vector<double> bx = {1, 2};
  std::string msg;
  try {
    (void)sf::rolling(e.comm(), std::span<const double>(bx), std::span<const std::int64_t>(bad),
                      sf::RollingWindow::parse("1h"), sf::RollingOp::mean);
  } catch (const slab::InvalidArgument& ex) {
    msg = ex.message();
  }
  // Windows print as the user wrote them, never in nanoseconds.
  EXPECT_EQ(msg, "rolling('1h'): the timestamp column of a time window is not sorted");
  EXPECT_THROW((void)sf::RollingWindow::parse("1 parsec"), slab::InvalidArgument);
  msg.clear();
  try {
    (void)sf::RollingWindow::time(-3'600'000'000'000);
  } catch (const slab::InvalidArgument& ex) {
    msg = ex.message();
  }
  EXPECT_EQ(msg, "rolling time span must be positive, got -1h");
  msg.clear();
  try {
    (void)sf::rolling(f, "v", sf::RollingWindow::parse("90min"), {sf::RollingOp::sum});
  } catch (const slab::InvalidArgument& ex) {
    msg = ex.message();
  }
  EXPECT_EQ(msg, "a time window (rolling('90min')) needs the timestamp column ('on')");
  EXPECT_EQ(sf::RollingWindow::parse("1.5h").str(), "rolling('90min')");
  EXPECT_EQ(sf::RollingWindow::parse("2d").str(), "rolling('2d')");
}
