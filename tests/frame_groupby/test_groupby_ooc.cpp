// groupby median/quantile and the per-group row-preserving operations out of core: 12,000 rows (~430 KB of
// tagged rows) under a 256 KiB device limit per rank, so the exchanges use several partitions a rank and buffers
// spill; results against a serial reference computed here from the generator (pandas' algorithms: Kahan running
// sums, sorted values for median/quantile). Also: a single group larger than memory is refused with OutOfMemory
// on every rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "slab/comm/comm.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/frame/frame.hpp"
#include "slab/frame/groupby.hpp"
#include "slab/frame/groupby_transform.hpp"
#include "slab/memory/memory_manager.hpp"
#include "test_engine.hpp"

namespace sf = slab::frame;
using slab::testing::Engine;

namespace {

constexpr std::int64_t kRows = 12000, kGroups = 700;
std::int64_t id_of(std::int64_t r) { return static_cast<std::int64_t>(slab::counter_hash(71, r) % kGroups); }
double x_of(std::int64_t r) { return r % 11 == 4 ? std::nan("") : 200 * slab::counter_uniform(72, r) - 100; }
std::int64_t v_of(std::int64_t r) { return static_cast<std::int64_t>(slab::counter_hash(73, r) % 1000) - 500; }

/// This rank's block of the rows, in partitions of 250 rows.
sf::Frame input(Engine& e, bool one_group = false) {
  const int p = e.comm().size(), me = e.comm().rank();
  std::vector<std::int64_t> id, v;
  std::vector<double> x;
  for (std::int64_t r = kRows * me / p; r < kRows * (me + 1) / p; ++r) {
    id.push_back(one_group ? 1 : id_of(r));
    x.push_back(x_of(r));
    v.push_back(v_of(r));
  }
  sf::LocalTable t;
  t.add(sf::LocalColumn::int64("id", id)).add(sf::LocalColumn::float64("x", x)).add(sf::LocalColumn::int64("v", v));
  return sf::Frame::from_local_table(e, t, 250);
}

/// pandas' linear quantile of sorted values.
double quantile(const std::vector<double>& s, double q) {
  if (s.empty()) return std::nan("");
  const double pos = q * static_cast<double>(s.size() - 1);
  const auto i = static_cast<std::size_t>(pos);
  const double frac = pos - std::floor(pos);
  return frac == 0 || i + 1 >= s.size() ? s[i] : s[i] + (s[i + 1] - s[i]) * frac;
}
double median(const std::vector<double>& s) {
  if (s.empty()) return std::nan("");
  const std::size_t n = s.size();
  return n % 2 ? s[n / 2] : (s[n / 2] + s[n / 2 - 1]) / 2;
}

bool close(double got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  return std::fabs(got - want) <= 1e-12 * std::max(1.0, std::fabs(want));
}

}  // namespace

TEST(GroupbyOutOfCore, RowPreservingAndMedianMatchSerial) {
  Engine e(256 << 10, 1ull << 30);
  const sf::Frame f = input(e);
  const sf::GroupBy g = f.groupby("id");
  const sf::Series cum = g.cumsum("x"), med = g.transform("v", "median"), sh = g.shift("x", 2);
  EXPECT_EQ(cum.frame().local_partition_rows(), f.local_partition_rows());
  const sf::LocalColumn got_cum = cum.gather_all(), got_med = med.gather_all(), got_sh = sh.gather_all();
  const sf::Frame agg_frame = g.agg({{"x", {"median", "mean"}}, {"v", {"q0.75", "sum"}}});
  // The values of median/quantile alone outgrow one partition a rank: the exchange streamed in several.
  EXPECT_GT(agg_frame.num_partitions(), 1u);
  const sf::LocalTable agg = agg_frame.gather_all();  // sorted by id

  // The serial reference, group by group in row order.
  std::map<std::int64_t, std::vector<std::int64_t>> rows;
  for (std::int64_t r = 0; r < kRows; ++r) rows[id_of(r)].push_back(r);
  std::int64_t bad = 0;
  ASSERT_EQ(got_cum.size(), static_cast<std::size_t>(kRows));
  ASSERT_EQ(agg.nrows(), static_cast<std::int64_t>(rows.size()));
  std::size_t gi = 0;
  for (const auto& [id, rs] : rows) {
    double acc = 0, comp = 0, xsum = 0;
    std::vector<double> xs, vs;
    std::int64_t vsum = 0;
    for (std::size_t t = 0; t < rs.size(); ++t) {
      const std::int64_t r = rs[t];
      const double x = x_of(r);
      if (!std::isnan(x)) {
        const double y = x - comp, s = acc + y;
        comp = s - acc - y;
        acc = s;
        xs.push_back(x);
        xsum += x;
      }
      bad += !close(got_cum.floats[r], std::isnan(x) ? std::nan("") : acc);
      bad += !close(got_sh.floats[r], t >= 2 ? x_of(rs[t - 2]) : std::nan(""));
      vs.push_back(static_cast<double>(v_of(r)));
      vsum += v_of(r);
    }
    std::sort(xs.begin(), xs.end());
    std::sort(vs.begin(), vs.end());
    for (std::int64_t r : rs) bad += !close(got_med.floats[r], median(vs));
    bad += agg["id"].ints[gi] != id;
    bad += !close(agg["x_median"].floats[gi], median(xs));
    bad += !close(agg["x_mean"].floats[gi], xs.empty() ? std::nan("") : xsum / static_cast<double>(xs.size()));
    bad += !close(agg["v_q0.75"].floats[gi], quantile(vs, 0.75));
    bad += agg["v_sum"].ints[gi] != vsum;
    ++gi;
  }
  EXPECT_EQ(bad, 0);
  const slab::MemoryStats st = e.memory().stats();
  EXPECT_LE(st.device.high_water, 256u << 10);
  EXPECT_GT(e.comm().allreduce(static_cast<std::int64_t>(st.spilled_to_host_bytes), slab::ReduceOp::sum), 0)
      << "nothing spilled: not out of core";
}

TEST(GroupbyOutOfCore, OneGroupLargerThanMemoryIsRefused) {
  Engine e(64 << 10, 1ull << 30);
  const sf::Frame f = input(e, true);  // ~430 KB of tagged rows in one group, 64 KiB of memory
  try {
    (void)f.groupby("id").cumsum("x");
    ADD_FAILURE() << "no OutOfMemory";
  } catch (const slab::OutOfMemory& err) {
    EXPECT_NE(err.message().find("groupby(...).cumsum('x')"), std::string::npos) << err.message();
  }
  try {
    (void)f.groupby("id").agg({{"x", {"median"}}});
    ADD_FAILURE() << "no OutOfMemory";
  } catch (const slab::OutOfMemory& err) {
    EXPECT_NE(err.message().find("median/quantile"), std::string::npos) << err.message();
  }
  // Every rank threw together and no failed round is left to run again: the next operations work.
  EXPECT_EQ(f.len(), kRows);
  EXPECT_EQ(f.groupby("id").size().gather_all()["size"].ints, std::vector<std::int64_t>{kRows});
}
