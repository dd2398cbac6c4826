// np.cumsum, np.sort, np.unique and a[mask] on 1-D Arrays against serial references (std::partial_sum,
// std::sort, std::unique, a loop) on the gathered input, at every rank count: small chunks, NaN, ties, negative
// zero, int64 wrap-around, more ranks than rows, and a device limit the data does not fit in.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "slab/array/creation.hpp"
#include "slab/array/elementwise.hpp"
#include "slab/array/scan.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/frame/array_ops.hpp"
#include "test_engine.hpp"

using slab::Array;
using slab::Split;

namespace {

// Values with ties, NaN (every 37th) and -0.0 / 0.0, from the counter-based hash: the same on every rank count.
std::vector<double> doubles(std::int64_t n, std::uint64_t seed) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const double u = slab::counter_uniform(seed, static_cast<std::uint64_t>(i));
    v[static_cast<std::size_t>(i)] = i % 37 == 5   ? std::nan("")
                                     : i % 11 == 3 ? (i % 2 ? -0.0 : 0.0)
                                                   : std::floor(u * 50) - 25;
  }
  return v;
}

template <class T>
Array<T> distributed(slab::Engine& e, const std::vector<T>& all, std::int64_t chunk) {
  return Array<T>::from_function(
      e, {static_cast<std::int64_t>(all.size())}, Split::rows, [all](std::int64_t i, std::int64_t) { return all[i]; },
      chunk);
}

// Bitwise comparison that treats NaN as equal to NaN.
void expect_same(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "at " << i;
    } else {
      EXPECT_EQ(got[i], want[i]) << "at " << i;
    }
  }
}

}  // namespace

TEST(ArrayScan, CumsumMatchesASerialRunningSum) {
  slab::testing::Engine e;
  for (std::int64_t n : {0, 1, 3, 1000}) {
    // Integer-valued doubles: every partial sum is exact, so the distributed order gives NumPy's bits.
    std::vector<double> x(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
      x[static_cast<std::size_t>(i)] = std::floor(slab::counter_uniform(3, i) * 100) - 50;
    std::vector<double> want(x.size());
    std::partial_sum(x.begin(), x.end(), want.begin());
    const auto got = slab::cumsum(distributed(e, x, 7)).gather_all();
    expect_same(got, want);
  }
  // A NaN makes every later value NaN (NumPy), whichever rank holds it.
  std::vector<double> x(50, 1.0);
  x[20] = std::nan("");
  const auto got = slab::cumsum(distributed(e, x, 4)).gather_all();
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (i < 20) {
      EXPECT_EQ(got[i], static_cast<double>(i + 1));
    } else {
      EXPECT_TRUE(std::isnan(got[i])) << i;
    }
  }
}

TEST(ArrayScan, CumsumOfInt64WrapsAsNumPy) {
  slab::testing::Engine e;
  const std::int64_t big = std::numeric_limits<std::int64_t>::max() - 5;
  std::vector<std::int64_t> x = {big, 3, 4, -7, std::numeric_limits<std::int64_t>::min(), 1, 2};
  std::vector<std::int64_t> want(x.size());
  std::uint64_t run = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    want[i] = static_cast<std::int64_t>(run += static_cast<std::uint64_t>(x[i]));
  EXPECT_EQ(slab::cumsum(distributed(e, x, 2)).gather_all(), want);
}

TEST(ArrayScan, CumsumOf2DIsAShapeErrorOnEveryRank) {
  slab::testing::Engine e;
  const auto m = slab::zeros<double>(e, {4, 3}, Split::rows);
  EXPECT_THROW((void)slab::cumsum(m), slab::ShapeError);
}

TEST(ArraySort, SortUniqueAndMaskMatchSerialReferences) {
  slab::testing::Engine e;
  for (std::int64_t n : {0, 2, 5, 2000}) {
    const auto x = doubles(n, 17);
    const auto a = distributed(e, x, 64);

    std::vector<double> sorted = x;
    std::stable_sort(sorted.begin(), sorted.end(), [](double p, double q) {
      if (std::isnan(q)) return !std::isnan(p);
      return !std::isnan(p) && p < q;
    });
    expect_same(slab::sort(a).gather_all(), sorted);

    std::vector<double> distinct = sorted;
    distinct.erase(std::unique(distinct.begin(), distinct.end(),
                               [](double p, double q) { return p == q || (std::isnan(p) && std::isnan(q)); }),
                   distinct.end());
    const auto u = slab::unique(a).gather_all();
    ASSERT_EQ(u.size(), distinct.size()) << "n = " << n;
    for (std::size_t i = 0; i < u.size(); ++i) {
      if (std::isnan(distinct[i]))
        EXPECT_TRUE(std::isnan(u[i]));
      else
        EXPECT_EQ(u[i], distinct[i]);  // -0.0 == 0.0: one of them, as NumPy keeps one
    }

    std::vector<double> selected;
    for (double v : x)
      if (v > 3) selected.push_back(v);
    expect_same(slab::compress(a, a > 3.0).gather_all(), selected);
  }
}

TEST(ArraySort, Int64SortAndUniqueWithExtremes) {
  slab::testing::Engine e;
  std::vector<std::int64_t> x;
  for (int i = 0; i < 300; ++i) x.push_back((i * 7919) % 101 - 50);
  x.push_back(std::numeric_limits<std::int64_t>::min());
  x.push_back(std::numeric_limits<std::int64_t>::max());
  const auto a = distributed(e, x, 16);
  std::vector<std::int64_t> sorted = x;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(slab::sort(a).gather_all(), sorted);
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  EXPECT_EQ(slab::unique(a).gather_all(), sorted);
}

TEST(ArraySort, OutOfCoreUnderALimitItDoesNotFit) {
  // 400,000 doubles (3.2 MB) under a 1 MiB device tier: the sort spills and still gives the serial answer.
  slab::testing::Engine e(1 << 20, 64 << 20);
  const std::int64_t n = 400000;
  std::vector<double> x(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = slab::counter_uniform(5, i);
  const auto a = Array<double>::from_function(
      e, {n}, Split::rows, [](std::int64_t i, std::int64_t) { return slab::counter_uniform(5, i); }, 8192);
  std::vector<double> want = x;
  std::sort(want.begin(), want.end());
  const auto s = slab::sort(a);
  const auto c = slab::cumsum(s);
  EXPECT_EQ(s.gather_all(), want);
  EXPECT_NEAR(c.gather_all().back(), std::accumulate(want.begin(), want.end(), 0.0), 1e-6);
  EXPECT_LE(e.memory().stats().device.high_water, std::uint64_t{1} << 20);
}

TEST(ArraySort, TwoDimensionalInputAndMaskLengthAreShapeErrors) {
  slab::testing::Engine e;
  const auto m = slab::zeros<double>(e, {4, 3}, Split::rows);
  EXPECT_THROW((void)slab::sort(m), slab::ShapeError);
  const auto a = slab::zeros<double>(e, {5}, Split::rows);
  const auto mask = slab::zeros<std::int64_t>(e, {4}, Split::rows);
  EXPECT_THROW((void)slab::compress(a, mask), slab::ShapeError);
}

TEST(ArrayConcatenate, OneAfterAnotherAsNumPy) {
  slab::testing::Engine e;
  std::vector<double> a = doubles(23, 1), b = doubles(2, 2), c = doubles(40, 3);
  std::vector<double> want = a;
  want.insert(want.end(), b.begin(), b.end());
  want.insert(want.end(), c.begin(), c.end());
  const auto got = slab::concatenate<double>({distributed(e, a, 5), distributed(e, b, 5), distributed(e, c, 8)});
  EXPECT_EQ(got.rows(), 65);
  expect_same(got.gather_all(), want);
  std::vector<std::int64_t> i = {1, 2, 3}, j = {};
  EXPECT_EQ(slab::concatenate<std::int64_t>({distributed(e, i, 1), distributed(e, j, 1)}).gather_all(), i);
}
