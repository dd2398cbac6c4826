#include <gtest/gtest.h>

#include "slab/core/error.hpp"
#include "slab/core/units.hpp"

TEST(Units, ParsesAbsoluteSizes) {
  EXPECT_EQ(slab::parse_bytes("1024", "x"), 1024u);
  EXPECT_EQ(slab::parse_bytes("64KiB", "x"), 65536u);
  EXPECT_EQ(slab::parse_bytes("2GiB", "x"), 2147483648u);
  EXPECT_EQ(slab::parse_bytes("1.5GB", "x"), 1500000000u);
  EXPECT_EQ(slab::parse_bytes("512 mb", "x"), 512000000u);
  EXPECT_EQ(slab::parse_bytes("0", "x"), 0u);
}

TEST(Units, ParsesFractions) {
  auto a = slab::parse_byte_limit("0.8", "x");
  ASSERT_TRUE(a.fraction.has_value());
  EXPECT_DOUBLE_EQ(*a.fraction, 0.8);
  EXPECT_EQ(a.resolve(1000), 800u);
  auto b = slab::parse_byte_limit("25%", "x");
  EXPECT_EQ(b.resolve(4000), 1000u);
}

TEST(Units, RejectsGarbageNamingTheFlag) {
  for (const char* bad : {"", "abc", "12XB", "-1GiB", "1.5", "150%", "nan"}) {
    if (std::string(bad) == "1.5") {
      EXPECT_THROW(slab::parse_byte_limit(bad, "--memory-limit"), slab::InvalidArgument) << bad;
      continue;
    }
    try {
      slab::parse_byte_limit(bad, "--memory-limit");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const slab::InvalidArgument& e) {
      EXPECT_NE(e.message().find("--memory-limit"), std::string::npos) << e.message();
    }
  }
  EXPECT_THROW(slab::parse_bytes("0.5", "--disk-limit"), slab::InvalidArgument);
}

TEST(Units, Formats) {
  EXPECT_EQ(slab::format_bytes(512), "512 B");
  EXPECT_EQ(slab::format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(slab::format_bytes(2147483648ull), "2 GiB");
}
