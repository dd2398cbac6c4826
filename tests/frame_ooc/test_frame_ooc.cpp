// Out of core: groupby, merge (hash strategy) and sort_values over a frame about 4.6x larger than each rank's
// device memory limit, checked against references computed straight from the generator (the inputs are
// never gathered: that would not fit). Every rank reads result partitions one at a time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "../common/test_engine.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/frame/groupby.hpp"
#include "slab/frame/merge.hpp"
#include "slab/frame/sort.hpp"

namespace fr = slab::frame;

namespace {

constexpr std::uint64_t kLimit = 256ull << 10;  // device tier per rank
constexpr std::uint64_t kHost = 512ull << 10;   // host tier: spills go on to disk too
constexpr std::int64_t kRowsPerRank = 50000;    // 24 bytes a row: 1.2 MB = 4.6x the limit per rank
constexpr std::int64_t kPart = 4000;
constexpr std::int64_t kKeys = 1000;

/// With skew, half of all rows have key 0.
std::int64_t key_of(std::int64_t g, bool skew = false) {
  return skew && g % 2 == 0 ? 0 : static_cast<std::int64_t>(slab::counter_hash(7, g) % kKeys);
}
double x_of(std::int64_t g) { return static_cast<double>(g % 977) * 0.25; }

/// Rows [rank * kRowsPerRank, ...) of (key int64, x float64, id int64), generated lazily per partition.
fr::Frame make_left(slab::testing::Engine& e, bool skew = false) {
  const fr::Schema schema(
      {{"key", slab::ElementType::int64}, {"x", slab::ElementType::float64}, {"id", slab::ElementType::int64}});
  std::vector<slab::Chunk> parts;
  std::vector<std::optional<std::int64_t>> rows;
  const std::int64_t first = e.comm().rank() * kRowsPerRank;
  for (std::int64_t b = 0; b < kRowsPerRank; b += kPart) {
    const std::int64_t n = std::min(kPart, kRowsPerRank - b);
    parts.push_back(e.tasks().submit("gen", {}, [schema, g0 = first + b, n, skew](slab::TaskContext& ctx) {
      fr::BatchBuilder bb(ctx, n, schema, {});
      for (std::int64_t i = 0; i < n; ++i) {
        bb.column<std::int64_t>(0)[i] = key_of(g0 + i, skew);
        bb.column<double>(1)[i] = x_of(g0 + i);
        bb.column<std::int64_t>(2)[i] = g0 + i;
      }
    }));
    rows.emplace_back(n);
  }
  return fr::Frame(e, schema, std::move(parts), std::move(rows));
}

/// Every key twice (k2 = key, y = key * 0.5 and key * 0.5 + 1), spread over the ranks, one partition each.
fr::Frame make_right(slab::testing::Engine& e) {
  fr::LocalTable t;
  std::vector<std::int64_t> k;
  std::vector<double> y;
  for (std::int64_t r = e.comm().rank(); r < 2 * kKeys; r += e.comm().size()) {
    k.push_back(r % kKeys);
    y.push_back(static_cast<double>(r % kKeys) * 0.5 + static_cast<double>(r / kKeys));
  }
  t.add(fr::LocalColumn::int64("key", k)).add(fr::LocalColumn::float64("y", y));
  return fr::Frame::from_local_table(e, t, 500);
}

/// Calls fn(view) for each local partition, one resident at a time.
template <class F>
void for_each_partition(const fr::Frame& f, F&& fn) {
  for (const auto& p : f.partitions()) {
    auto [pin, view] = fr::view_chunk(p);
    fn(view);
  }
}

void expect_within_limit(slab::testing::Engine& e) {
  const auto st = e.memory().stats();
  EXPECT_LE(st.device.high_water, kLimit);
  EXPECT_GT(st.spilled_to_host_bytes + st.spilled_to_disk_bytes, 0u) << "nothing spilled: the test is too small";
}

std::int64_t total_rows(const slab::testing::Engine& e) { return kRowsPerRank * e.comm().size(); }

}  // namespace

TEST(FrameOutOfCore, GroupbyMatchesReference) {
  slab::testing::Engine e(kLimit, kHost);
  fr::Frame f = make_left(e);
  fr::Frame g = fr::groupby(f, {"key"}, {{"x", {fr::AggOp::sum, fr::AggOp::count}}}).persist();
  std::map<std::int64_t, std::pair<double, std::int64_t>> ref;
  for (std::int64_t i = 0; i < total_rows(e); ++i) {
    auto& r = ref[key_of(i)];
    r.first += x_of(i);
    ++r.second;
  }
  // Every group on exactly one rank: compare this rank's groups, and count groups over ranks.
  std::int64_t groups = 0;
  for_each_partition(g, [&](const fr::BatchView& b) {
    for (std::int64_t i = 0; i < b.nrows(); ++i) {
      const std::int64_t k = b.column<std::int64_t>(0)[i];
      ASSERT_TRUE(ref.count(k)) << k;
      EXPECT_NEAR(b.column<double>(1)[i], ref[k].first, 1e-6 * std::abs(ref[k].first) + 1e-9);
      EXPECT_EQ(b.column<std::int64_t>(2)[i], ref[k].second);
      ++groups;
    }
  });
  EXPECT_EQ(e.comm().allreduce(groups, slab::ReduceOp::sum), static_cast<std::int64_t>(ref.size()));
  expect_within_limit(e);
}

/// Inner hash merge with every key twice on the right; with skew half of the left rows share one key (whose
/// partition alone would be 0.6 MB per rank, over the 256 KiB limit, without the hot-key split).
void check_merge(bool skew) {
  slab::testing::Engine e(kLimit, kHost);
  fr::Frame l = make_left(e, skew);
  fr::Frame r = make_right(e);
  fr::MergeOptions opt;
  opt.strategy = fr::JoinStrategy::hash;
  fr::MergeStats st;
  opt.stats = &st;
  fr::Frame j = fr::merge(l, r, {"key"}, opt).persist();
  EXPECT_FALSE(st.broadcast);
  // Reference: every left row matches its key's two right rows (y = key/2 and key/2 + 1).
  std::int64_t ref_rows = 2 * total_rows(e), ref_id = 0;
  double ref_xy = 0;
  for (std::int64_t i = 0; i < total_rows(e); ++i) {
    ref_id += 2 * i;
    ref_xy += x_of(i) * (static_cast<double>(key_of(i, skew)) + 1.0);
  }
  std::int64_t sums[2] = {0, 0};  // rows, sum of id
  double xy = 0;
  std::int64_t bad = 0;
  const auto& s = j.schema();
  const std::size_t ck = s.index_of("key"), cx = s.index_of("x"), cy = s.index_of("y"), ci = s.index_of("id");
  for_each_partition(j, [&](const fr::BatchView& b) {
    for (std::int64_t i = 0; i < b.nrows(); ++i) {
      const std::int64_t id = b.column<std::int64_t>(ci)[i];
      bad += b.column<std::int64_t>(ck)[i] != key_of(id, skew) || b.column<double>(cx)[i] != x_of(id);
      const double y = b.column<double>(cy)[i];
      const double half = static_cast<double>(key_of(id, skew)) * 0.5;
      bad += y != half && y != half + 1;
      sums[1] += id;
      xy += b.column<double>(cx)[i] * y;
    }
    sums[0] += b.nrows();
  });
  e.comm().allreduce(std::span<std::int64_t>(sums, 2), slab::ReduceOp::sum);
  xy = e.comm().allreduce(xy, slab::ReduceOp::sum);
  EXPECT_EQ(e.comm().allreduce(bad, slab::ReduceOp::sum), 0);
  EXPECT_EQ(sums[0], ref_rows);
  EXPECT_EQ(sums[1], ref_id);
  EXPECT_NEAR(xy, ref_xy, 1e-9 * ref_xy);
  expect_within_limit(e);
}

TEST(FrameOutOfCore, HashMergeMatchesReference) { check_merge(false); }

TEST(FrameOutOfCore, HashMergeWithHotKeyStaysUnderLimit) { check_merge(true); }

TEST(FrameOutOfCore, SortMatchesReference) {
  slab::testing::Engine e(kLimit, kHost);
  fr::Frame f = make_left(e);
  fr::Frame sorted = fr::sort_values(f, std::vector<std::string>{"key"}, true).persist();
  // Sorted by key, ties by id (stable), across partitions and ranks; every row once.
  std::int64_t prev_key = -1, prev_id = -1, n = 0, id_sum = 0, bad = 0;
  for_each_partition(sorted, [&](const fr::BatchView& b) {
    for (std::int64_t i = 0; i < b.nrows(); ++i) {
      const std::int64_t k = b.column<std::int64_t>(0)[i], id = b.column<std::int64_t>(2)[i];
      bad += k != key_of(id) || b.column<double>(1)[i] != x_of(id);
      bad += k < prev_key || (k == prev_key && id <= prev_id);
      prev_key = k;
      prev_id = id;
      id_sum += id;
      ++n;
    }
  });
  // Rank boundaries: this rank's first row after the previous rank's last.
  std::vector<std::int64_t> last(2 * static_cast<std::size_t>(e.comm().size()));
  std::int64_t mine[2] = {prev_key, prev_id};
  e.comm().allgather(std::span<const std::int64_t>(mine, 2), std::span<std::int64_t>(last));
  std::int64_t first[2] = {-1, -1};
  for_each_partition(sorted, [&](const fr::BatchView& b) {
    if (first[0] < 0 && b.nrows() > 0) {
      first[0] = b.column<std::int64_t>(0)[0];
      first[1] = b.column<std::int64_t>(2)[0];
    }
  });
  if (n > 0)
    for (int q = e.comm().rank() - 1; q >= 0; --q)
      if (last[2 * q] >= 0) {
        bad += first[0] < last[2 * q] || (first[0] == last[2 * q] && first[1] <= last[2 * q + 1]);
        break;
      }
  const std::int64_t tot = total_rows(e);
  EXPECT_EQ(e.comm().allreduce(bad, slab::ReduceOp::sum), 0);
  EXPECT_EQ(e.comm().allreduce(n, slab::ReduceOp::sum), tot);
  EXPECT_EQ(e.comm().allreduce(id_sum, slab::ReduceOp::sum), tot * (tot - 1) / 2);
  expect_within_limit(e);
}
