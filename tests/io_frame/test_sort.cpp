// sort_values against a stable serial sort of the gathered frame: duplicates, nulls first/last, descending,
// several keys, strings, ranks with no rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "../io/io_test_util.hpp"
#include "slab/core/counter_rng.hpp"
#include "frame/partitioner.hpp"
#include "slab/frame/sort.hpp"

namespace sf = slab::frame;

namespace {

const char* kNames[] = {"delta", "alpha", "charlie", "bravo", "echo"};

sf::LocalTable make_local(int rank, int size) {
  const std::int64_t n = rank == 1 ? 0 : 40 + 13 * rank;  // rank 1 has no rows
  std::int64_t base = 0;
  for (int q = 0; q < rank; ++q) base += q == 1 ? 0 : 40 + 13 * q;
  std::vector<std::int64_t> k, id;
  std::vector<std::uint8_t> kvalid;
  std::vector<double> x;
  std::vector<std::string> s;
  std::vector<std::uint8_t> svalid;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t g = static_cast<std::uint64_t>(base + i);
    k.push_back(static_cast<std::int64_t>(slab::counter_hash(1, g) % 7) - 3);
    kvalid.push_back(slab::counter_hash(2, g) % 9 != 0);
    const double u = slab::counter_uniform(3, g);
    x.push_back(u < 0.1 ? std::nan("") : std::floor(u * 5) - 2);
    const bool snull = slab::counter_hash(4, g) % 11 == 0;
    s.push_back(snull ? "" : kNames[slab::counter_hash(5, g) % 5]);
    svalid.push_back(!snull);
    id.push_back(base + i);
  }
  (void)size;
  sf::LocalTable t;
  t.add(sf::LocalColumn::int64("k", k, kvalid));
  t.add(sf::LocalColumn::float64("x", x));
  t.add(sf::LocalColumn::string("s", s, svalid));
  t.add(sf::LocalColumn::int64("id", id));
  return t;
}

// Stable serial order of the gathered table.
std::vector<std::int64_t> reference(const sf::LocalTable& t, const std::vector<sf::SortKey>& keys, bool nulls_first) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(t.nrows()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    for (const auto& key : keys) {
      const sf::LocalColumn& c = t[key.column];
      const bool na = c.is_null(a), nb = c.is_null(b);
      if (na || nb) {
        if (na && nb) continue;
        return nulls_first ? na : nb;
      }
      int cmp = 0;
      if (c.type == slab::ElementType::string)
        cmp = c.strings[a].compare(c.strings[b]);
      else {
        const double va = c.as_double(a), vb = c.as_double(b);
        cmp = va < vb ? -1 : (va > vb ? 1 : 0);
      }
      if (cmp != 0) return key.ascending ? cmp < 0 : cmp > 0;
    }
    return false;
  });
  std::vector<std::int64_t> ids;
  for (auto i : order) ids.push_back(t["id"].ints[i]);
  return ids;
}

}  // namespace

TEST(FrameSort, SampleSortMatchesStableSerialSort) {
  iotest::Engine e;
  sf::Frame f = sf::Frame::from_local_table(e, make_local(e.comm().rank(), e.comm().size()), 17);
  const sf::LocalTable all = f.gather_all();
  struct Case {
    std::vector<sf::SortKey> keys;
    bool nulls_first;
  };
  const std::vector<Case> cases = {
      {{{"k", true}}, false},
      {{{"k", false}}, true},
      {{{"x", true}}, true},
      {{{"x", false}}, false},
      {{{"s", true}, {"k", false}}, false},
      {{{"k", true}, {"x", false}, {"s", true}}, true},
      {{{"id", false}}, false},
  };
  for (const auto& c : cases) {
    sf::Frame sorted = sf::sort_values(f, c.keys, c.nulls_first ? sf::NullsPosition::first : sf::NullsPosition::last,
                                       c.keys.size() == 1 ? 0 : 10);
    const sf::LocalTable got = sorted.gather_all();
    const std::int64_t local_rows = sorted.local_len();
    const std::int64_t total = e.comm().allreduce(local_rows, slab::ReduceOp::sum);
    std::string what;
    for (const auto& k : c.keys) what += k.column + (k.ascending ? "+" : "-") + " ";
    what += c.nulls_first ? "nulls first" : "nulls last";
    EXPECT_EQ(total, all.nrows()) << what;
    ASSERT_EQ(got.names(), all.names()) << what;
    EXPECT_EQ(got["id"].ints, reference(all, c.keys, c.nulls_first)) << what;
    // Rows travel whole: every id keeps its own values.
    for (std::int64_t i = 0; i < got.nrows(); ++i) {
      const auto id = got["id"].ints[i];
      EXPECT_EQ(got["k"].is_null(i), all["k"].is_null(id)) << what;
      if (!got["k"].is_null(i)) EXPECT_EQ(got["k"].ints[i], all["k"].ints[id]) << what;
      EXPECT_EQ(got["s"].strings[i], all["s"].strings[id]) << what;
    }
  }
}

TEST(FrameSort, SplittersAndErrors) {
  using sf::detail::choose_splitters;
  const std::vector<std::uint64_t> samples = {5, 1, 4, 2, 3, 0, 7, 6};
  const auto sp = choose_splitters(samples, 1, 4);
  EXPECT_EQ(sp, (std::vector<std::uint64_t>{2, 4, 6}));
  const auto range = sf::detail::Partitioner::range(2, 2, sp, 1);
  EXPECT_EQ(range.bucket_of_key(&samples[0]), 2u);  // 5 -> after 2 and 4
  EXPECT_EQ(range.rank_of(2), 1);
  EXPECT_EQ(range.part_of(2), 0);
  EXPECT_EQ(range.bucket_of_key(&samples[5]), 0u);  // 0 -> first
  EXPECT_EQ(range.bucket_of_key(&samples[6]), 3u);  // 7 -> last
  EXPECT_TRUE(choose_splitters({}, 1, 3).empty());
  // Hash buckets come from the hash's high bits: the lowest and highest hashes land in the first and last bucket.
  const auto hash = sf::detail::Partitioner::hash(3, 2);
  EXPECT_EQ(hash.bucket_of_hash(0), 0u);
  EXPECT_EQ(hash.bucket_of_hash(~0ull), 5u);
  EXPECT_EQ(hash.bucket_of_hash(0x8000000000000000ull), 3u);
  iotest::Engine e;
  sf::Frame f = sf::Frame::from_local_table(e, make_local(e.comm().rank(), e.comm().size()));
  EXPECT_THROW((void)sf::sort_values(f, std::vector<std::string>{"nope"}), slab::InvalidArgument);
  EXPECT_THROW((void)sf::sort_values(f, std::vector<sf::SortKey>{}), slab::InvalidArgument);
}
