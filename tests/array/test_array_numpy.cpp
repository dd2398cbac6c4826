// NumPy's int32 on slab::Array: creation, elementwise operations, reductions (int32 sums are int64, as
// NumPy's), cumsum and the repr, against serial references on the gathered values.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "array_test_util.hpp"
#include "slab/array/print.hpp"
#include "slab/array/scan.hpp"

using slab::Array;
using slab::Shape;
using slab::Split;
using slab_test::Engine;

TEST(ArrayNumpy, Int32ArraysCreateComputeReduceAndPrint) {
  Engine e;
  const std::int32_t big = std::numeric_limits<std::int32_t>::max();
  for (Split s : {Split::rows, Split::cols, Split::none}) {
    const auto a = Array<std::int32_t>::from_function(
        e, {4, 3}, s,
        [&](std::int64_t i, std::int64_t j) { return i == 3 ? big - std::int32_t(j) : std::int32_t(i * 3 + j - 4); },
        1);
    const auto x = a.gather_all();
    std::int64_t sum = 0;
    for (auto v : x) sum += v;
    EXPECT_EQ(a.sum(), sum);  // past 2^31: int64 as NumPy's
    EXPECT_EQ(slab::min(a), -4);
    EXPECT_EQ(slab::max(a), big);
    EXPECT_EQ(slab::argmax(a), 9);
    EXPECT_DOUBLE_EQ(slab::mean(a), static_cast<double>(sum) / 12);
    const auto sq = (a.row_range(0, 3) * std::int32_t{2} + std::int32_t{1}).gather_all();
    for (std::size_t k = 0; k < sq.size(); ++k) EXPECT_EQ(sq[k], 2 * x[k] + 1);
    EXPECT_EQ((a.row_range(0, 3) / std::int32_t{2}).gather_all()[0], -2.0);  // true division is float64
    EXPECT_EQ(slab::floor_divide(a, std::int32_t{-3}).gather_all()[1], 1);   // -3 // -3
    EXPECT_EQ(slab::count_nonzero(a > std::int32_t{0}), 7);
    EXPECT_EQ(a.astype<std::int64_t>().gather_all(), std::vector<std::int64_t>(x.begin(), x.end()));
    EXPECT_EQ(slab::sum(a, 0).gather_all()[0], static_cast<double>(x[0] + x[3] + x[6] + x[9]));
    EXPECT_EQ(slab::where(a > std::int32_t{0}, a, std::int32_t{0}).gather_all()[5], 1);
  }
  const auto v = slab::arange<std::int32_t>(e, 0, 4, 1, Split::rows);
  EXPECT_EQ(slab::to_string(v), "array([0, 1, 2, 3], dtype=int32)");
  EXPECT_EQ(slab::cumsum(v).gather_all(), (std::vector<std::int64_t>{0, 1, 3, 6}));
  EXPECT_EQ(slab::to_string(slab::zeros<std::int32_t>(e, Shape{0}, Split::rows)), "array([], dtype=int32)");
}
