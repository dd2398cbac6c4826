// The shared SLAB_HD functions are bit-for-bit the host's copies they mirror: the counter-based RNG, key words,
// the route hashes and the shuffle route (over many inputs, extremes included).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/kernels/counter_rng_hd.hpp"
#include "frame/hash_table.hpp"
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
