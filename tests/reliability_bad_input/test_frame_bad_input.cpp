// Bad input matrix, frames: empty frames, ranks with no rows, NaN and infinity in groupby keys and values,
// unknown columns and wrong column types (pandas' semantics where slab follows them).
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "bad_input.hpp"
#include "slab/frame/groupby.hpp"
#include "test_engine.hpp"

namespace {

using badinput::expect_error;
using badinput::expect_result;
namespace fr = slab::frame;
using fr::AggOp;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Every rank contributes the same rows (k, v).
fr::Frame frame_of(slab::testing::Engine& e, std::vector<double> k, std::vector<double> v) {
  fr::LocalTable t;
  t.columns.push_back(fr::LocalColumn::float64("k", std::move(k)));
  t.columns.push_back(fr::LocalColumn::float64("v", std::move(v)));
  return fr::Frame::from_local_table(e, t);
}

fr::LocalTable sum_by_k(const fr::Frame& f, bool dropna = true) {
  fr::GroupbyOptions o;
  o.dropna = dropna;
  return fr::groupby(f, {"k"}, {{"v", {AggOp::sum, AggOp::count}}}, o).gather_all();
}

TEST(BadInputFrame, EmptyFrameGroupby) {
  slab::testing::Engine e;
  const auto f = frame_of(e, {}, {});
  expect_result(e.comm(), "0 groups, columns k v_sum v_count", [&] {
    const auto t = sum_by_k(f);
    EXPECT_EQ(t.nrows(), 0);
    EXPECT_EQ(t.names(), (std::vector<std::string>{"k", "v_sum", "v_count"}));
  });
}

TEST(BadInputFrame, RanksWithNoRows) {
  slab::testing::Engine e;
  fr::LocalTable t;
  const bool mine = e.comm().rank() == 0;
  t.columns.push_back(fr::LocalColumn::float64("k", mine ? std::vector<double>{2, 1, 2} : std::vector<double>{}));
  t.columns.push_back(fr::LocalColumn::float64("v", mine ? std::vector<double>{1, 2, 3} : std::vector<double>{}));
  const auto f = fr::Frame::from_local_table(e, t);
  expect_result(e.comm(), "groups of rank 0's rows only: k 1 -> 2, k 2 -> 4", [&] {
    const auto g = sum_by_k(f);
    ASSERT_EQ(g.nrows(), 2);
    EXPECT_EQ(g["k"].floats, (std::vector<double>{1, 2}));
    EXPECT_EQ(g["v_sum"].floats, (std::vector<double>{2, 4}));
  });
}

TEST(BadInputFrame, NaNKeys) {
  slab::testing::Engine e;
  const double p = e.comm().size();
  const auto f = frame_of(e, {1, kNaN, 2, kNaN}, {1, 10, 100, 1000});
  expect_result(e.comm(), "NaN keys dropped (dropna); one NaN group sorted last without dropna (pandas)", [&] {
    const auto g = sum_by_k(f);
    ASSERT_EQ(g.nrows(), 2);
    EXPECT_EQ(g["k"].floats, (std::vector<double>{1, 2}));
    EXPECT_EQ(g["v_sum"].floats, (std::vector<double>{p, 100 * p}));
    const auto h = sum_by_k(f, false);
    ASSERT_EQ(h.nrows(), 3);
    EXPECT_TRUE(std::isnan(h["k"].floats[2]));
    EXPECT_EQ(h["v_sum"].floats[2], 1010 * p);
  });
}

TEST(BadInputFrame, InfiniteKeys) {
  slab::testing::Engine e;
  const double p = e.comm().size();
  const auto f = frame_of(e, {kInf, -kInf, 1, kInf}, {1, 2, 3, 4});
  expect_result(e.comm(), "inf and -inf are ordinary keys, sorted -inf < 1 < inf", [&] {
    const auto g = sum_by_k(f);
    ASSERT_EQ(g.nrows(), 3);
    EXPECT_EQ(g["k"].floats, (std::vector<double>{-kInf, 1, kInf}));
    EXPECT_EQ(g["v_sum"].floats, (std::vector<double>{2 * p, 3 * p, 5 * p}));
  });
}

TEST(BadInputFrame, NaNAndInfinityValues) {
  slab::testing::Engine e;
  const double p = e.comm().size();
  const auto f = frame_of(e, {1, 1, 2, 2}, {kNaN, 2, kInf, 1});
  expect_result(e.comm(), "NaN values skipped by sum and count (pandas skipna); inf sums to inf", [&] {
    const auto g = sum_by_k(f);
    ASSERT_EQ(g.nrows(), 2);
    EXPECT_EQ(g["v_sum"].floats, (std::vector<double>{2 * p, kInf}));
    EXPECT_EQ(g["v_count"].ints,
              (std::vector<std::int64_t>{static_cast<std::int64_t>(p), 2 * static_cast<std::int64_t>(p)}));
  });
}

TEST(BadInputFrame, UnknownColumn) {
  slab::testing::Engine e;
  const auto f = frame_of(e, {1}, {2});
  expect_error(e.comm(), "InvalidArgument", "unknown column 'zz' (columns: k, v)", [&] {
    (void)fr::groupby(f, {"zz"}, {{"v", {AggOp::sum}}});
  });
}

TEST(BadInputFrame, SumOfAStringColumn) {
  slab::testing::Engine e;
  fr::LocalTable t;
  t.columns.push_back(fr::LocalColumn::float64("k", {1, 2}));
  t.columns.push_back(fr::LocalColumn::string("s", {"a", "b"}));
  const auto f = fr::Frame::from_local_table(e, t);
  expect_error(e.comm(), "TypeError", "groupby: sum of string column 's' is not supported", [&] {
    (void)fr::groupby(f, {"k"}, {{"s", {AggOp::sum}}});
  });
}

}  // namespace
