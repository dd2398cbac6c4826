#include <gtest/gtest.h>

#include "slab/core/counter_rng.hpp"

// Test vectors of docs/WORKLOADS.md (the peers' generators give the same bits).
TEST(CounterRng, MatchesWorkloadTestVectors) {
  EXPECT_EQ(slab::counter_hash(1, 0), 0x1fdd7128f310c389ull);
  EXPECT_EQ(slab::counter_hash(1, 1), 0x6d65027660c4cdc5ull);
  EXPECT_EQ(slab::counter_hash(2, 0), 0x35ee9d0b8065b0c5ull);
  EXPECT_EQ(slab::counter_hash(11, 199999999), 0xee234e658d7409acull);
  EXPECT_DOUBLE_EQ(slab::counter_uniform(1, 0), 0.12447268724196459);
  EXPECT_DOUBLE_EQ(slab::counter_uniform(1, 1), 0.4273225344666286);
  EXPECT_DOUBLE_EQ(slab::counter_uniform(2, 0), 0.2106722024040184);
  EXPECT_DOUBLE_EQ(slab::counter_uniform(11, 199999999), 0.930226230424026);
}
