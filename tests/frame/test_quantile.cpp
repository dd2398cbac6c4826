// quantile / median: pandas' values on small columns (from perf/.venv's pandas 3.1.1, printed below), and a serial
// reference (sort + NumPy's interpolation) on a generated column spread over the ranks in many partitions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "../common/test_engine.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/frame/quantile.hpp"

namespace fr = slab::frame;

namespace {

/// `values` (NaN = null) as a frame, this rank's block of them, in partitions of two rows.
fr::Frame frame_of(slab::Engine& e, const std::vector<double>& values) {
  const int p = e.comm().size(), r = e.comm().rank();
  const auto n = static_cast<std::int64_t>(values.size());
  fr::LocalTable t;
  t.add(
      fr::LocalColumn::float64("v", std::vector<double>(values.begin() + n * r / p, values.begin() + n * (r + 1) / p)));
  return fr::Frame::from_local_table(e, t, 2);
}

}  // namespace

TEST(Quantile, MatchesPandas) {
  slab::testing::Engine e;
  // pd.Series([3.5, -1.0, nan, 2.25, 10.0, 7.0, -4.5, 0.1, 0.2, 8.0]).quantile(q) for q below; .median() 2.25.
  const fr::Frame f = frame_of(e, {3.5, -1.0, std::nan(""), 2.25, 10.0, 7.0, -4.5, 0.1, 0.2, 8.0});
  const std::vector<double> qs = {0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0, 0.33};
  const std::vector<double> want = {-4.5, -1.6999999999999997, 0.1, 2.25, 7.0, 8.4, 10.0, 0.16400000000000003};
  EXPECT_EQ(fr::quantile(f, "v", qs), want);
  EXPECT_EQ(fr::median(f, "v"), 2.25);
  // pd.Series([5, 1, 4, 2, 3, 100], dtype='Int64'): median 3.5, quantile(0.3) 2.5.
  fr::LocalTable t;
  if (e.comm().rank() == 0)
    t.add(fr::LocalColumn::int64("i", {5, 1, 4, 2, 3, 100}));
  else
    t.add(fr::LocalColumn::int64("i", {}));
  const fr::Frame g = fr::Frame::from_local_table(e, t, 4);
  EXPECT_EQ(fr::median(g, "i"), 3.5);
  EXPECT_EQ(fr::quantile(g, "i", 0.3), 2.5);
  // No values: NaN, as pandas.
  EXPECT_TRUE(std::isnan(fr::median(frame_of(e, {std::nan(""), std::nan("")}), "v")));
  EXPECT_THROW((void)fr::quantile(f, "v", 1.5), slab::InvalidArgument);
}

TEST(Quantile, MatchesSerialReference) {
  slab::testing::Engine e;
  std::vector<double> all;
  for (std::uint64_t k = 0; k < 5001; ++k) all.push_back(std::floor(slab::counter_uniform(11, k) * 1000) / 8);
  const fr::Frame f = frame_of(e, all);
  std::vector<double> sorted = all;
  std::sort(sorted.begin(), sorted.end());
  const std::vector<double> qs = {0, 0.01, 0.25, 0.5, 0.6180339887, 0.99, 1};
  const std::vector<double> got = fr::quantile(f, "v", qs);
  for (std::size_t k = 0; k < qs.size(); ++k) {
    const double pos = qs[k] * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const double a = sorted[lo], b = sorted[std::min(lo + 1, sorted.size() - 1)], t = pos - std::floor(pos);
    EXPECT_EQ(got[k], t >= 0.5 ? b - (b - a) * (1 - t) : a + (b - a) * t) << qs[k];
  }
}
