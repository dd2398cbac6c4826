#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string_view>
#include <vector>

#include "slab/memory/checksum.hpp"

namespace {

std::uint64_t of(std::string_view s, std::uint64_t seed = 0) { return slab::checksum64(s.data(), s.size(), seed); }

}  // namespace

TEST(Checksum, MatchesXxh64ReferenceValues) {
  EXPECT_EQ(of(""), 0xEF46DB3751D8E999ULL);
  EXPECT_EQ(of("abc"), 0x44BC2CF5AD770999ULL);
}

TEST(Checksum, IncrementalEqualsOneShotForAnySplit) {
  std::vector<unsigned char> data(1000);
  std::mt19937_64 rng(42);
  for (auto& c : data) c = static_cast<unsigned char>(rng());
  for (std::size_t n : {0, 1, 7, 31, 32, 33, 63, 64, 65, 999, 1000}) {
    const std::uint64_t want = slab::checksum64(data.data(), n, 7);
    for (std::size_t split : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{32}, n / 2, n}) {
      if (split > n) continue;
      slab::Checksum64 c(7);
      c.update(data.data(), split);
      c.update(data.data() + split, n - split);
      EXPECT_EQ(c.digest(), want) << "n=" << n << " split=" << split;
    }
    slab::Checksum64 bytewise(7);
    for (std::size_t i = 0; i < n; ++i) bytewise.update(&data[i], 1);
    EXPECT_EQ(bytewise.digest(), want) << "n=" << n;
  }
}

TEST(Checksum, DetectsAnySingleBitFlip) {
  std::vector<unsigned char> data(257, 0x5a);
  const std::uint64_t base = slab::checksum64(data.data(), data.size());
  for (std::size_t i = 0; i < data.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      data[i] ^= static_cast<unsigned char>(1u << bit);
      EXPECT_NE(slab::checksum64(data.data(), data.size()), base) << i << ":" << bit;
      data[i] ^= static_cast<unsigned char>(1u << bit);
    }
  }
}
