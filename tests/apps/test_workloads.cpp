// The apps' generated inputs (apps/workloads) against the formulas of docs/WORKLOADS.md, evaluated serially.
#include <gtest/gtest.h>

#include <workloads/workloads.hpp>

#include "slab/core/counter_rng.hpp"
#include "slab/core/time.hpp"
#include "test_engine.hpp"

namespace {

using slab::format_timestamp;
using slab::frame::Frame;
using slab::frame::kNames;
using slab::frame::LocalTable;
using Engine = slab::testing::Engine;

TEST(Workloads, MatchTheSerialFormulas) {
  Engine e;
  const std::int64_t n = 1000;
  Frame f = slab::workloads::w3(e, n, 97);
  LocalTable g = f.gather_all();
  ASSERT_EQ(g.nrows(), n);
  for (std::int64_t r = 0; r < n; ++r) {
    auto ur = static_cast<std::uint64_t>(r);
    ASSERT_EQ(g["id"].ints[r], static_cast<std::int64_t>(slab::counter_hash(3, ur) % 1000));
    ASSERT_EQ(g["name"].strings[r], std::string(kNames[slab::counter_hash(4, ur) % 26]));
    ASSERT_EQ(g["x"].floats[r], 2.0 * slab::counter_uniform(5, ur) - 1.0);
    ASSERT_EQ(g["y"].floats[r], 2.0 * slab::counter_uniform(6, ur) - 1.0);
  }
  Frame l = slab::workloads::w4_right(e, 10, 3);
  auto gl = l.gather_all();
  for (std::int64_t q = 0; q < 10; ++q) EXPECT_EQ(gl["key"].ints[q], (q * 1000003) % 10);
  Frame w5 = slab::workloads::w5(e, 5, 2);
  auto g5 = w5.gather_all();
  EXPECT_EQ(format_timestamp(g5["t"].ints[3]), "2000-01-01 00:00:03");
}

}  // namespace
