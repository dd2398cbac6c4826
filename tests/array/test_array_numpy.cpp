// NumPy's reshape/ravel and joins (concatenate along both axes, stack, vstack, hstack, column_stack) and int32
// arrays on slab::Array, against serial references (the flat C order, loops on the gathered values): every
// split, uneven blocks, ranks without rows, empty arrays, a memory limit the data does not fit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "array_test_util.hpp"
#include "slab/array/join.hpp"
#include "slab/array/print.hpp"
#include "slab/array/reshape.hpp"
#include "slab/array/scan.hpp"

using slab::Array;
using slab::Shape;
using slab::Split;
using slab_test::Engine;

namespace {

// How a test array is laid out: its split, its chunk length, and whether its blocks are uneven (a row range of
// a taller array, so that some ranks may hold no rows).
struct Variant {
  Split split;
  std::int64_t chunk;
  bool uneven;
  [[nodiscard]] std::string name() const {
    return std::string(slab::to_string(split)) + (uneven ? " uneven" : "") + " chunk " + std::to_string(chunk);
  }
};
const std::vector<Variant> variants = {{Split::rows, 2, false}, {Split::cols, 2, false}, {Split::none, 3, false},
                                       {Split::rows, 2, true},  {Split::rows, 0, false}, {Split::cols, 1, true}};

template <class T, class F>
Array<T> make(slab::Engine& e, Shape shape, const Variant& v, F f) {
  if (!v.uneven) return Array<T>::from_function(e, shape, v.split, f, v.chunk);
  const std::int64_t pad = 3;  // rows [3, 3 + rows) of a taller array: uneven row blocks (cols split: even)
  const Shape tall = shape.ndim == 1 ? Shape{shape.rows + 5} : Shape{shape.rows + 5, shape.cols};
  auto big = Array<T>::from_function(
      e, tall, v.split, [f](std::int64_t i, std::int64_t j) { return f(i - pad, j); }, v.chunk);
  return big.row_range(pad, pad + shape.rows);
}

// Events of the tracer named `name` that were collective (kind comm): how many rounds moved elements.
std::size_t comm_events(slab::Engine& e, const std::string& name) {
  std::size_t n = 0;
  for (const auto& ev : e.tracer().events()) n += ev.name == name && ev.kind == slab::TraceKind::comm;
  return n;
}

template <class T>
std::vector<T> iota_vector(std::int64_t n) {
  std::vector<T> v(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) v[static_cast<std::size_t>(k)] = static_cast<T>(k);
  return v;
}

}  // namespace

TEST(ArrayNumpy, ReshapeKeepsTheFlatOrderForEveryShape) {
  Engine e;
  struct Case {
    Shape from, to;
  };
  const std::vector<Case> cases = {{{12, 4}, {24, 2}}, {{12, 4}, {48}}, {{48}, {6, 8}},    {{7, 4}, {28}},
                                   {{7, 4}, {2, 14}},  {{2, 3}, {6}},   {{2, 3}, {3, 2}},  {{1, 9}, {9, 1}},
                                   {{9}, {9, 1}},      {{9, 1}, {9}},   {{0, 5}, {0}},     {{5, 0}, {0, 3}},
                                   {{0}, {0, 7}},      {{3, 5}, {-1}},  {{3, 5}, {5, -1}}, {{4, 6}, {-1, 3}}};
  for (const Variant& var : variants)
    for (const Case& c : cases) {
      const std::int64_t n = c.from.size();
      auto f = [cols = c.from.cols](std::int64_t i, std::int64_t j) { return static_cast<double>(i * cols + j); };
      const auto a = make<double>(e, c.from, var, f);
      const auto r = slab::reshape(a, c.to);
      const std::string what = slab::to_string(c.from) + " -> " + slab::to_string(c.to) + " " + var.name();
      const std::int64_t rows = c.to.rows == -1 ? n / c.to.cols : c.to.rows;
      const std::int64_t cols = c.to.ndim == 1 ? 1 : c.to.cols == -1 ? n / c.to.rows : c.to.cols;
      EXPECT_EQ(r.ndim(), c.to.ndim) << what;
      EXPECT_EQ(r.rows(), rows) << what;
      EXPECT_EQ(r.cols(), cols) << what;
      EXPECT_EQ(r.gather_all(), iota_vector<double>(n)) << what;
      EXPECT_EQ(r.split(), var.split == Split::none ? Split::none : Split::rows) << what;
      // Lazy like any array: an elementwise expression and a reduction of the result.
      EXPECT_EQ(slab::sum(r * 2.0), static_cast<double>(n * (n - 1))) << what;
    }
  // An unevaluated expression reshapes too.
  const auto x = slab::arange<std::int64_t>(e, 0, 20, 1, Split::rows, 3);
  EXPECT_EQ(((x * std::int64_t{3}).reshape({4, 5})).gather_all(),
            (slab::arange<std::int64_t>(e, 0, 60, 3, Split::rows, 3)).gather_all());
}

TEST(ArrayNumpy, ReshapeMovesNothingWhenTheBlocksLineUp) {
  Engine e;
  const int p = e.comm().size();
  // 12 rows on 1-4 ranks: every rank's flat range is the same in (12, 4), (24, 2) and (48,).
  const auto a = make<double>(e, {12, 4}, {Split::rows, 2, false}, [](auto i, auto j) { return double(i * 4 + j); });
  const std::size_t before = comm_events(e, "reshape");
  EXPECT_EQ(a.reshape({24, 2}).gather_all(), iota_vector<double>(48));
  EXPECT_EQ(a.ravel().gather_all(), iota_vector<double>(48));
  EXPECT_EQ(comm_events(e, "reshape"), before);
  // 7 rows: at more than one rank (4, 3 rows) -> 14, 14 elements differ, so elements move.
  const auto b = make<double>(e, {7, 4}, {Split::rows, 2, false}, [](auto i, auto j) { return double(i * 4 + j); });
  EXPECT_EQ(b.ravel().gather_all(), iota_vector<double>(28));
  EXPECT_EQ(comm_events(e, "reshape") > before, p > 1);
}

TEST(ArrayNumpy, JoinsEveryLayoutWithEmptyAndUnevenInputs) {
  Engine e;
  auto f = [](std::int64_t i, std::int64_t j) { return static_cast<double>(100 * i + j); };
  for (const Variant& va : variants)
    for (const Variant& vb : {variants[0], variants[2], variants[3]}) {
      const std::string what = va.name() + " with " + vb.name();
      const auto a = make<double>(e, {5, 3}, va, f), b = make<double>(e, {2, 3}, vb, f);
      const auto none = make<double>(e, {0, 3}, vb, f);
      std::vector<double> want = slab_test::reference<double>(5, 3, f);
      const auto tail = slab_test::reference<double>(2, 3, f);
      want.insert(want.end(), tail.begin(), tail.end());
      const auto rows = slab::concatenate({a, none, b});
      EXPECT_EQ(rows.rows(), 7) << what;
      EXPECT_EQ(rows.gather_all(), want) << what;
      // Side by side: a's 5 rows with 5 rows of another layout, and a 0-column array.
      const auto c = make<double>(e, {5, 2}, vb, f), empty = make<double>(e, {5, 0}, vb, f);
      const auto side = slab::concatenate({a, empty, c}, 1);
      EXPECT_EQ(side.cols(), 5) << what;
      EXPECT_EQ(side.gather_all(),
                slab_test::reference<double>(5, 5, [&](auto i, auto j) { return j < 3 ? f(i, j) : f(i, j - 3); }))
          << what;
      if (va.split == Split::rows) EXPECT_EQ(side.layout().bounds, a.layout().bounds) << what;
      // Empty 1-D arrays.
      const auto z = make<double>(e, Shape{0}, va, f);
      EXPECT_EQ(slab::stack({z, z}).cols(), 0) << what;
      EXPECT_EQ(slab::concatenate({z, z}).rows(), 0) << what;
    }
}

TEST(ArrayNumpy, BadShapesThrowOnEveryRank) {
  Engine e;
  const auto a = slab::zeros<double>(e, {2, 3}, Split::rows);
  const auto v = slab::zeros<double>(e, Shape{3}, Split::rows);
  auto message = [](auto fn) {
    try {
      fn();
    } catch (const slab::ShapeError& err) {
      return std::string(err.message());
    }
    return std::string("no ShapeError");
  };
  EXPECT_NE(message([&] {
              (void)a.reshape({4, 2});
            }).find("shape (2, 3) (size 6) into shape (4, 2)"),
            std::string::npos);
  EXPECT_NE(message([&] { (void)a.reshape({4, -1}); }).find("into shape (4, -1)"), std::string::npos);
  EXPECT_NE(message([&] { (void)a.reshape({-1, -1}); }).find("only one dimension can be -1"), std::string::npos);
  EXPECT_NE(message([&] { (void)a.reshape({-2, -3}); }).find("negative"), std::string::npos);
  EXPECT_NE(message([&] {
              (void)slab::zeros<double>(e, Shape{0}, Split::rows).reshape({-1, 0});
            }).find("(-1, 0)"),
            std::string::npos);
  EXPECT_NE(message([&] { (void)slab::concatenate({a, v}); }).find("same number of dimensions"), std::string::npos);
  EXPECT_NE(message([&] {
              (void)slab::concatenate({a, a.col_range(0, 2)});
            }).find("along dimension 1"),
            std::string::npos);
  EXPECT_NE(message([&] { (void)slab::concatenate({v, v}, 1); }).find("axis 1 is out of bounds"), std::string::npos);
  EXPECT_NE(message([&] { (void)slab::stack({a, a}); }).find("3-D"), std::string::npos);
  EXPECT_NE(message([&] { (void)slab::stack({v, v.row_range(0, 2)}); }).find("same shape"), std::string::npos);
  EXPECT_NE(message([&] {
              (void)slab::column_stack({a, v.row_range(0, 1)});
            }).find("along dimension 0"),
            std::string::npos);
  EXPECT_NE(message([&] { (void)slab::vstack({a, v.row_range(0, 2)}); }).find("along dimension 1"), std::string::npos);
  EXPECT_THROW((void)slab::concatenate(std::vector<Array<double>>{}), slab::InvalidArgument);
}

TEST(ArrayNumpy, ReshapeAndConcatenateStreamUnderALimitTheDataDoesNotFit) {
  // 2 x 200,000 doubles (3.2 MB) under a 1 MiB device tier: rounds of one chunk per rank, spilling the rest.
  Engine e(1 << 20, 64 << 20);
  const std::int64_t n = 200000;
  auto a = Array<double>::from_function(
      e, Shape{n}, Split::rows, [](std::int64_t i, std::int64_t) { return static_cast<double>(i); }, 4096);
  auto b = Array<double>::from_function(
      e, Shape{n}, Split::rows, [n](std::int64_t i, std::int64_t) { return static_cast<double>(n + i); }, 4096);
  const auto joined = slab::concatenate({a.row_range(7, n), b});  // uneven, so elements move at any rank count
  const auto m = joined.reshape({-1, 3});
  EXPECT_EQ(m.rows(), (2 * n - 7) / 3);
  const auto got = m.gather_all();
  EXPECT_EQ(got.size(), static_cast<std::size_t>(2 * n - 7));
  bool ok = true;
  for (std::size_t k = 0; k < got.size(); ++k) ok = ok && got[k] == static_cast<double>(k + 7);
  EXPECT_TRUE(ok);
  EXPECT_LE(e.memory().stats().device.high_water, std::uint64_t{1} << 20);
}

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
