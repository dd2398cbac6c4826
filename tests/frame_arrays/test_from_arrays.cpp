// Frames from Arrays and back, at any rank count: the gathered frame equals the arrays' formulas, uneven
// blocks and differing chunks are lined up, ranks without rows hold no partition, and bad shapes or types
// fail on every rank.
#include <gtest/gtest.h>

#include <cmath>

#include "../common/test_engine.hpp"
#include "slab/array/creation.hpp"
#include "slab/array/elementwise.hpp"
#include "slab/array/reduction.hpp"
#include "slab/array/slicing.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/frame/from_arrays.hpp"

namespace fr = slab::frame;
using slab::Array;
using slab::Shape;
using slab::Split;

namespace {

std::int64_t ival(std::int64_t i) { return (i * 7919) % 1009 - 500; }
double dval(std::int64_t i) { return slab::counter_uniform(21, static_cast<std::uint64_t>(i)); }

}  // namespace

TEST(FrameFromArrays, ColumnsWithDifferentChunksAndBlocks) {
  slab::testing::Engine eng;
  for (std::int64_t n : {0, 1, 2, 53}) {
    auto a = Array<std::int64_t>::from_function(
        eng, Shape{n}, Split::rows, [](std::int64_t i, std::int64_t) { return ival(i); }, 7);
    auto b = Array<double>::from_function(
        eng, Shape{n}, Split::rows, [](std::int64_t i, std::int64_t) { return dval(i); }, 5);
    // Uneven blocks (a slice of a longer array) and a replicated float array: both are redistributed.
    auto c =
        slab::row_range(Array<double>::from_function(
                            eng, Shape{n + 9}, Split::rows, [](std::int64_t i, std::int64_t) { return 2.0 * i; }, 4),
                        9, n + 9);
    auto d = Array<float>::from_function(
        eng, Shape{n}, Split::none, [](std::int64_t i, std::int64_t) { return 0.5f * static_cast<float>(i); }, 3);
    fr::Frame f = fr::from_arrays({{"a", a}, {"b", b}, {"c", c}, {"d", d}});
    EXPECT_EQ(f.num_partitions(), a.num_local_chunks());  // one partition per chunk of the first column
    ASSERT_EQ(f.schema().to_string(), "a: int64, b: float64, c: float64, d: float64");
    EXPECT_EQ(f.len(), n);
    EXPECT_EQ(f.local_len(), a.local_block().rows);  // rows stay where the first column's are
    const fr::LocalTable t = f.gather_all();
    ASSERT_EQ(t.nrows(), n);
    for (std::int64_t i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(i);
      ASSERT_EQ(t["a"].ints[k], ival(i)) << i;
      ASSERT_EQ(t["b"].floats[k], dval(i)) << i;
      ASSERT_EQ(t["c"].floats[k], 2.0 * (i + 9)) << i;
      ASSERT_EQ(t["d"].floats[k], 0.5 * i) << i;
    }
  }
}

TEST(FrameFromArrays, MatrixColumns) {
  slab::testing::Engine eng;
  const std::int64_t m = 41, n = 3;
  auto fill = [](std::int64_t i, std::int64_t j) { return dval(i * 3 + j); };
  for (Split split : {Split::rows, Split::cols}) {
    auto x = Array<double>::from_function(eng, Shape{m, n}, split, fill, split == Split::rows ? 6 : 1);
    fr::Frame f = fr::from_array(x, {"p", "q", "r"});
    const fr::LocalTable t = f.gather_all();
    ASSERT_EQ(t.nrows(), m);
    const std::vector<double> all = x.gather_all();
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        ASSERT_EQ(t.columns[static_cast<std::size_t>(j)].floats[static_cast<std::size_t>(i)], fill(i, j));
        ASSERT_EQ(all[static_cast<std::size_t>(i * n + j)], fill(i, j));
      }
  }
}

TEST(FrameFromArrays, BadShapesFailOnEveryRank) {
  slab::testing::Engine eng;
  auto a = Array<double>::from_function(eng, Shape{10}, Split::rows, [](std::int64_t i, std::int64_t) { return i; });
  auto b = Array<double>::from_function(eng, Shape{11}, Split::rows, [](std::int64_t i, std::int64_t) { return i; });
  auto m = Array<double>::from_function(eng, Shape{10, 2}, Split::rows, [](std::int64_t i, std::int64_t) { return i; });
  try {
    (void)fr::from_arrays({{"a", a}, {"b", b}});
    FAIL() << "no error";
  } catch (const slab::ShapeError& e) {
    EXPECT_NE(e.message().find("column 'b' has 11 rows"), std::string::npos) << e.message();
  }
  EXPECT_THROW((void)fr::from_arrays({{"a", a}, {"m", m}}), slab::ShapeError);
  EXPECT_THROW((void)fr::from_arrays({{"a", a}, {"a", a}}), slab::InvalidArgument);
  EXPECT_THROW((void)fr::from_arrays({}), slab::InvalidArgument);
  EXPECT_THROW((void)fr::from_array(m, {"only one"}), slab::ShapeError);
  EXPECT_THROW((void)fr::from_array(a, {"a"}), slab::ShapeError);
}

// A frame with uneven rows per rank (rank r holds 5r + 3 rows, the last rank none when there are several)
// and partitions of 2 rows, to arrays of every numeric type, in chunks that straddle partitions.
TEST(FrameToArray, UnevenRowsAndNulls) {
  slab::testing::Engine eng;
  const int p = eng.comm().size(), r = eng.comm().rank();
  auto rows_of = [p](int rank) -> std::int64_t { return p > 1 && rank == p - 1 ? 0 : 5 * rank + 3; };
  std::int64_t first = 0, n = 0;
  for (int q = 0; q < p; ++q) {
    if (q < r) first += rows_of(q);
    n += rows_of(q);
  }
  std::vector<std::int64_t> ints, stamps;
  std::vector<double> floats;
  std::vector<std::uint8_t> bools, fvalid;
  for (std::int64_t i = first; i < first + rows_of(r); ++i) {
    ints.push_back(ival(i));
    stamps.push_back(1000000000LL * i);
    floats.push_back(dval(i));
    fvalid.push_back(i % 5 == 3 ? 0 : 1);
    bools.push_back(static_cast<std::uint8_t>(i % 2));
  }
  fr::LocalTable local;
  local.add(fr::LocalColumn::int64("i", ints))
      .add(fr::LocalColumn::float64("f", floats, fvalid))
      .add(fr::LocalColumn::timestamp("t", stamps))
      .add(fr::LocalColumn::boolean("b", bools))
      .add(fr::LocalColumn::string("s", std::vector<std::string>(ints.size(), "x")))
      .add(fr::LocalColumn::int64("in", ints, fvalid));
  fr::Frame f = fr::Frame::from_local_table(eng, local, 2);

  for (std::int64_t chunk : {0, 3}) {
    Array<std::int64_t> ai = fr::to_array<std::int64_t>(f, "i", chunk);
    Array<double> af = fr::to_array<double>(f, "f", chunk);
    Array<std::int64_t> at = fr::to_array<std::int64_t>(f, "t", chunk);
    Array<double> ab = fr::to_array<double>(f, "b", chunk);
    ASSERT_EQ(ai.rows(), n);
    EXPECT_EQ(ai.local_block().rows, rows_of(r));  // the frame's distribution, uneven
    EXPECT_EQ(ai.local_block().row0, first);
    const auto gi = ai.gather_all(), gt = at.gather_all();
    const auto gf = af.gather_all(), gb = ab.gather_all();
    for (std::int64_t i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(i);
      ASSERT_EQ(gi[k], ival(i));
      ASSERT_EQ(gt[k], 1000000000LL * i);
      ASSERT_EQ(gb[k], static_cast<double>(i % 2));
      if (i % 5 == 3)
        ASSERT_TRUE(std::isnan(gf[k])) << i;
      else
        ASSERT_EQ(gf[k], dval(i)) << i;
    }
    EXPECT_EQ(ai.sum(), [&] {
      std::int64_t s = 0;
      for (std::int64_t i = 0; i < n; ++i) s += ival(i);
      return s;
    }());
  }
  EXPECT_THROW((void)fr::to_array<std::int64_t>(f, "f"), slab::TypeError);
  EXPECT_THROW((void)fr::to_array<double>(f, "s"), slab::TypeError);
  EXPECT_THROW((void)fr::to_array<double>(f, "nope"), slab::InvalidArgument);
  // A null read as int64 fails when it runs, on every rank (the task error is agreed).
  Array<std::int64_t> bad = fr::to_array<std::int64_t>(f, "in");
  if (n > 3) {
    try {
      bad.persist();
      FAIL() << "no error";
    } catch (const slab::Error& e) {
      EXPECT_NE(e.message().find("column 'in' has a null"), std::string::npos) << e.message();
    }
  }
}

// from_arrays then to_array gives back the arrays (and combines with them: the same balanced blocks).
TEST(FrameToArray, RoundTrip) {
  slab::testing::Engine eng;
  const std::int64_t n = 37;
  auto a = Array<double>::from_function(
      eng, Shape{n}, Split::rows, [](std::int64_t i, std::int64_t) { return dval(i); }, 6);
  fr::Frame f = fr::from_arrays({{"a", a}});
  Array<double> back = fr::to_array<double>(f, "a");
  EXPECT_TRUE(back.layout().same_blocks(a.layout()));
  EXPECT_EQ((back - a).gather_all(), std::vector<double>(n, 0.0));
}
