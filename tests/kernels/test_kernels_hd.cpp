// The shared SLAB_HD functions are bit-for-bit the host's copies they mirror: the counter-based RNG, key words,
// the route hashes and the shuffle route (over many inputs, extremes included).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/kernels/counter_rng_hd.hpp"
#include "frame/hash_table.hpp"
#include "frame/kernels/agg_hd.hpp"
#include "frame/kernels/key_words_hd.hpp"
#include "frame/key_words.hpp"
#include "kernel_test_util.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/frame/shuffle.hpp"

namespace {

using namespace kernel_test;
namespace fk = slab::frame::kernels;
namespace fd = slab::frame::detail;

std::vector<std::uint64_t> inputs() {
  std::vector<std::uint64_t> v{0, 1, ~0ull, 1ull << 63, (1ull << 63) - 1, 0x9E3779B97F4A7C15ull};
  for (std::int64_t i = 0; i < 200000; ++i) v.push_back(h(120, i));
  return v;
}

TEST(KernelHd, CounterRngIsTheHosts) {
  for (std::uint64_t x : inputs()) {
    ASSERT_EQ(slab::kernels::mix64(x), slab::mix64(x));
    const std::uint64_t s = x >> 44, i = x & ((1ull << 40) - 1);
    ASSERT_EQ(slab::kernels::counter_hash(s, i), slab::counter_hash(s, i));
    ASSERT_TRUE(same_bits(slab::kernels::counter_uniform(s, i), slab::counter_uniform(s, i)));
  }
}

TEST(KernelHd, PortableLog1pAndCosAreWithinAnUlpOfLibm) {
  std::size_t differ = 0;
  for (std::int64_t i = 0; i < 200000; ++i) {
    const double u = slab::counter_uniform(7, static_cast<std::uint64_t>(i));
    const double a = slab::kernels::portable::log1p(-u), b = std::log1p(-u);
    const double c = slab::kernels::portable::cos(2 * 3.141592653589793 * u), d = std::cos(2 * 3.141592653589793 * u);
    ASSERT_LE(std::fabs(a - b), std::fabs(b) * 2.3e-16) << u;
    ASSERT_LE(std::fabs(c - d), 2.3e-16) << u;
    differ += !same_bits(a, b) + !same_bits(c, d);
  }
  EXPECT_LT(differ, 10000u);  // a last-bit difference in under 2.5% of the values (1.6% measured)
  EXPECT_TRUE(std::isinf(slab::kernels::portable::log1p(-1.0)));
  EXPECT_TRUE(same_bits(slab::kernels::portable::cos(0.0), 1.0));
}

TEST(KernelHd, KeyWordsAndHashesAreTheHosts) {
  const double specials[] = {0.0,
                             -0.0,
                             1.0,
                             -1.0,
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::denorm_min(),
                             std::numeric_limits<double>::max(),
                             std::numeric_limits<double>::quiet_NaN()};
  for (double d : specials) {
    ASSERT_EQ(fk::float_word(d), fd::float_word(d)) << d;
    if (d == d) ASSERT_TRUE(same_bits(fk::word_float(fk::float_word(d)), fd::word_float(fd::float_word(d))));
  }
  for (std::uint64_t x : inputs()) {
    double d;
    std::memcpy(&d, &x, 8);
    ASSERT_EQ(fk::float_word(d), fd::float_word(d));
    ASSERT_EQ(fk::route_hash(x), fd::route_hash(x));
    const std::uint64_t w[3] = {x, ~x, x * 3};
    std::uint64_t hw = fk::kHashWordsSeed;
    for (std::uint64_t v : w) hw = fk::hash_words_step(hw, v);
    ASSERT_EQ(hw, fd::hash_words(w, 3));
    for (auto [ranks, parts] : {std::pair{1, 1}, {3, 7}, {4096, 1}, {5, 65536}})
      ASSERT_EQ(fk::shuffle_bucket(x, ranks, parts), kernel_test::host_bucket(x, ranks, parts));
  }
}

}  // namespace

namespace {

// groupby's int64 mean (agg_hd.hpp's int64_mean, host and device alike) from a group's wrapped sum, min, max and
// Welford mean, against the exact sum (__int128): the mean of the wrapped sum where nothing wrapped, bitwise; the
// exact mean within an ulp where the sum wrapped and n (max - min) < 2^64; Welford's mean where the values span
// more. Groups of random sizes drawn near 0, near each extreme and across both.
TEST(KernelHd, Int64MeanIsTheValuesMeanWhereTheSumWraps) {
  const std::int64_t M = std::numeric_limits<std::int64_t>::max(), m = std::numeric_limits<std::int64_t>::min();
  int wrapped_cases = 0, wide_cases = 0;
  for (std::int64_t c = 0; c < 20000; ++c) {
    const std::uint64_t r = h(130, c);
    const std::int64_t n = 1 + static_cast<std::int64_t>(r % 64);
    __int128 exact = 0;
    std::uint64_t wrapped = 0;
    std::int64_t lo = M, hi = m;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::uint64_t u = h(131 + static_cast<std::uint64_t>(c), i);
      std::int64_t v = static_cast<std::int64_t>(u % 2001) - 1000;
      switch ((r >> 8) % 4) {
        case 1:
          v = M - static_cast<std::int64_t>(u % 1000);
          break;  // near the top: the sum wraps upwards
        case 2:
          v = m + static_cast<std::int64_t>(u % 1000);
          break;  // near the bottom
        case 3:
          v = static_cast<std::int64_t>(u);
          break;  // anywhere: often wider than 2^64 / n
        default:
          break;
      }
      exact += v;
      wrapped += static_cast<std::uint64_t>(v);
      lo = std::min(lo, v), hi = std::max(hi, v);
    }
    const double welford = 0.125;  // a marker: where the values span too much, the result is Welford's mean
    const double got = fk::int64_mean(static_cast<std::int64_t>(wrapped), n, lo, hi, welford);
    const __int128 span = (static_cast<__int128>(hi) - lo) * n;
    if (span >= (static_cast<__int128>(1) << 64)) {
      ++wide_cases;
      ASSERT_EQ(got, welford) << "case " << c;
    } else if (exact == static_cast<std::int64_t>(wrapped)) {
      ASSERT_TRUE(same_bits(got, static_cast<double>(static_cast<std::int64_t>(wrapped)) / static_cast<double>(n)))
          << "case " << c;
    } else {
      ++wrapped_cases;
      const double want = static_cast<double>(static_cast<long double>(exact) / n);
      ASSERT_LE(std::fabs(got - want), 2 * std::nextafter(std::fabs(want), INFINITY) - 2 * std::fabs(want))
          << "case " << c << ": " << got << " vs " << want;
    }
  }
  EXPECT_GT(wrapped_cases, 1000);
  EXPECT_GT(wide_cases, 1000);
}

}  // namespace
