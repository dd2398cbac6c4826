// Bad input matrix, arrays and linear algebra: shape mismatches, empty arrays, ranks with no rows, NaN and
// infinity in reductions, int64 overflow in sums (wraps, as documented in slab/array/reduction.hpp).
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "bad_input.hpp"
#include "slab/array/array.hpp"
#include "slab/array/creation.hpp"
#include "slab/array/elementwise.hpp"
#include "slab/array/reduction.hpp"
#include "slab/array/slicing.hpp"
#include "slab/linalg/linalg.hpp"
#include "test_engine.hpp"

namespace {

using badinput::expect_error;
using badinput::expect_result;
using slab::Array;
using slab::Shape;
using slab::Split;

double f(std::int64_t i, std::int64_t j) { return static_cast<double>(i * 10 + j); }

TEST(BadInputArray, ElementwiseShapeMismatch) {
  slab::testing::Engine e;
  auto a = Array<double>::from_function(e, Shape{6, 3}, Split::rows, f);
  auto b = Array<double>::from_function(e, Shape{6, 4}, Split::rows, f);
  expect_error(e.comm(), "ShapeError", "add: shapes cannot be broadcast: (6, 3) split=rows and (6, 4) split=rows",
               [&] { (void)(a + b).persist(); });
}

TEST(BadInputArray, ElementwiseSplitMismatch) {
  slab::testing::Engine e;
  auto a = Array<double>::from_function(e, Shape{6, 3}, Split::rows, f);
  auto b = Array<double>::from_function(e, Shape{6, 3}, Split::cols, f);
  if (e.comm().size() == 1) {  // one rank holds both whole: the same blocks, so this is allowed
    expect_result(e.comm(), "at 1 rank the blocks coincide: a + b",
                  [&] { EXPECT_EQ(slab::sum(a + b), 2 * slab::sum(a)); });
    return;
  }
  expect_error(e.comm(), "ShapeError",
               "add: operands are split differently (their blocks are not on the same ranks): (6, 3) split=rows and "
               "(6, 3) split=cols",
               [&] { (void)(a + b).persist(); });
}

TEST(BadInputArray, MatmulInnerDimensionMismatch) {
  slab::testing::Engine e;
  auto a = Array<double>::from_function(e, Shape{8, 3}, Split::rows, f);
  const std::vector<double> b(4 * 2, 1.0);  // 4 x 2, but A has 3 columns
  expect_error(e.comm(), "ShapeError", "linalg::matmul: A (8, 3) times B with 8 values as (3, 2): shapes do not match",
               [&] { (void)slab::linalg::matmul(a, b, 2); });
}

// A wide matrix is factored through its transpose (tests/linalg/test_wide.cpp); one with no columns has no R.
TEST(BadInputArray, TsqrOfAMatrixWithNoColumns) {
  slab::testing::Engine e;
  auto a = slab::zeros<double>(e, Shape{5, 0}, Split::rows);
  expect_error(e.comm(), "ShapeError", "linalg::tsqr_r: A (5, 0) is not tall-skinny (need rows >= cols >= 1)",
               [&] { (void)slab::linalg::tsqr_r(a); });
}

TEST(BadInputArray, EmptyArrayReductions) {
  slab::testing::Engine e;
  auto a = slab::zeros<double>(e, Shape{0, 3}, Split::rows);
  expect_result(e.comm(), "sum 0, mean NaN (NumPy)", [&] {
    EXPECT_EQ(slab::sum(a), 0.0);
    EXPECT_TRUE(std::isnan(slab::mean(a)));
    EXPECT_EQ(a.gather_all().size(), 0u);
  });
  expect_error(e.comm(), "ShapeError", "min of an empty array (0, 3) split=rows", [&] { (void)slab::min(a); });
}

TEST(BadInputArray, RanksWithNoRows) {
  slab::testing::Engine e;
  // One row: at 2-4 ranks every rank but one holds nothing.
  auto a = Array<double>::from_function(e, Shape{1, 3}, Split::rows, f);
  expect_result(e.comm(), "reductions as on one rank", [&] {
    const slab::Stats s = slab::reduce_stats(a);
    EXPECT_EQ(s.count, 3);
    EXPECT_EQ(s.sum, 0.0 + 1.0 + 2.0);
    EXPECT_EQ(s.max, 2.0);
    EXPECT_EQ(slab::argmax(a), 2);
    EXPECT_EQ(a.gather_all(), (std::vector<double>{0, 1, 2}));
  });
}

TEST(BadInputArray, NaNInReductions) {
  slab::testing::Engine e;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto a = Array<double>::from_function(e, Shape{9}, Split::rows,
                                        [nan](std::int64_t i, std::int64_t) { return i == 5 ? nan : double(i); });
  expect_result(e.comm(), "sum/min/max NaN, nansum skips NaN, argmin the NaN (NumPy)", [&] {
    EXPECT_TRUE(std::isnan(slab::sum(a)));
    EXPECT_TRUE(std::isnan(slab::min(a)));
    EXPECT_TRUE(std::isnan(slab::max(a)));
    EXPECT_TRUE(std::isnan(slab::reduce_stats(a).mean));
    EXPECT_EQ(slab::nansum(a), 0.0 + 1 + 2 + 3 + 4 + 6 + 7 + 8);
    EXPECT_EQ(slab::nanmean(a), (0.0 + 1 + 2 + 3 + 4 + 6 + 7 + 8) / 8);
    EXPECT_EQ(slab::argmin(a), 5);
  });
}

TEST(BadInputArray, InfinityInReductions) {
  slab::testing::Engine e;
  const double inf = std::numeric_limits<double>::infinity();
  auto a = Array<double>::from_function(e, Shape{7}, Split::rows, [inf](std::int64_t i, std::int64_t) {
    return i == 2 ? inf : i == 4 ? -inf : 1.0;
  });
  auto b = Array<double>::from_function(e, Shape{7}, Split::rows,
                                        [inf](std::int64_t i, std::int64_t) { return i == 3 ? inf : 1.0; });
  expect_result(e.comm(), "inf + -inf is NaN; max inf; a lone inf sums to inf (IEEE)", [&] {
    EXPECT_TRUE(std::isnan(slab::sum(a)));
    EXPECT_EQ(slab::max(a), inf);
    EXPECT_EQ(slab::min(a), -inf);
    EXPECT_EQ(slab::argmax(a), 2);
    EXPECT_EQ(slab::sum(b), inf);
    EXPECT_EQ(slab::max(b), inf);
  });
}

TEST(BadInputArray, Int64SumOverflowWraps) {
  slab::testing::Engine e;
  constexpr std::int64_t big = std::numeric_limits<std::int64_t>::max();
  // INT64_MAX + 1 + 1: wraps to INT64_MIN + 1 (NumPy's int64 sum does the same), mean exact in double.
  auto a = Array<std::int64_t>::from_function(e, Shape{3}, Split::rows,
                                              [](std::int64_t i, std::int64_t) { return i == 0 ? big : 1; });
  expect_result(e.comm(), "int64 sum wraps modulo 2^64 (NumPy); mean/var in double do not", [&] {
    EXPECT_EQ(slab::sum(a), std::numeric_limits<std::int64_t>::min() + 1);
    EXPECT_EQ(slab::nansum(a), std::numeric_limits<std::int64_t>::min() + 1);
    EXPECT_EQ(slab::reduce_stats(a).sum, static_cast<double>(std::numeric_limits<std::int64_t>::min() + 1));
    EXPECT_DOUBLE_EQ(slab::mean(a), (static_cast<double>(big) + 2.0) / 3.0);
    EXPECT_DOUBLE_EQ(slab::nanmean(a), (static_cast<double>(big) + 2.0) / 3.0);
  });
}

TEST(BadInputArray, MemoryLimitBelowOneChunk) {
  slab::testing::Engine e(/*device_limit=*/4096);
  // One chunk of 64 x 64 doubles (32 KiB) cannot fit a 4 KiB limit.
  auto a = Array<double>::from_function(e, Shape{64 * e.comm().size(), 64}, Split::rows, f, 64);
  expect_error(e.comm(), "OutOfMemory",
               "cannot allocate 32 KiB for 'task output' on the device tier: it is larger than the whole device limit "
               "of 4 KiB (a memory limit smaller than one chunk)",
               [&] { a.persist(); });
}

}  // namespace
