// The NumPy operations of issue 13 on slab::Array: reshape/ravel, concatenate along both axes, stack, vstack,
// hstack, column_stack, argmax/argmin along an axis, boolean masks (a[mask]), where with scalars, and
// Array<std::int32_t>. References: NumPy's answers in golden/numpy_ops.csv (golden/make_numpy_golden.py), and
// serial references in the test (the flat C order, loops) for the cases the golden inputs do not cover: every
// split, uneven blocks, ranks without rows, empty arrays, NaN, ties, a memory limit the data does not fit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "array_test_util.hpp"
#include "slab/array/compress.hpp"
#include "slab/array/join.hpp"
#include "slab/array/print.hpp"
#include "slab/array/reshape.hpp"
#include "slab/array/scan.hpp"
#include "slab/core/version.hpp"

using slab::Array;
using slab::Shape;
using slab::Split;
using slab_test::Engine;

namespace {

const double nan_v = std::numeric_limits<double>::quiet_NaN();

// The golden inputs (tests/array/golden/make_numpy_golden.py defines the same functions).
double x_value(std::int64_t i, std::int64_t j) {
  return (i * 5 + j) % 13 == 4 ? nan_v : static_cast<double>((i * 7 + j * 3) % 11 - 5);
}
std::int64_t i_value(std::int64_t i, std::int64_t j) { return (i * 5 + j * 7) % 9 - 4; }
double vec_value(std::int64_t seed, std::int64_t k) { return static_cast<double>((k * 3 + seed * 5) % 7 - 3); }

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

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

struct Golden {
  std::map<std::string, std::vector<double>> values;
  std::map<std::string, std::vector<std::int64_t>> shapes;
  Golden() {
    std::ifstream in(SLAB_NUMPY_GOLDEN);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      const auto a = line.find(','), b = line.rfind(',');
      const std::string what = line.substr(0, a);
      const std::string value = line.substr(b + 1);
      if (what.size() > 6 && what.compare(what.size() - 6, 6, ".shape") == 0)
        shapes[what.substr(0, what.size() - 6)].push_back(std::stoll(value));
      else
        values[what].push_back(std::stod(value));  // stod reads "nan"
    }
  }
  // The array's shape and gathered values against NumPy's (collective: gather_all on every rank).
  template <class T>
  void check(const std::string& what, const Array<T>& a, const std::string& where) const {
    const std::vector<T> got = a.gather_all();
    ASSERT_TRUE(values.count(what) && shapes.count(what)) << what << " is not in the golden file";
    std::vector<std::int64_t> shape{a.rows()};
    if (a.ndim() == 2) shape.push_back(a.cols());
    EXPECT_EQ(shape, shapes.at(what)) << what << " (" << where << ")";
    const auto& want = values.at(what);
    ASSERT_EQ(got.size(), want.size()) << what << " (" << where << ")";
    for (std::size_t k = 0; k < got.size(); ++k)
      EXPECT_TRUE(same(static_cast<double>(got[k]), want[k]))
          << what << "[" << k << "] = " << got[k] << ", NumPy " << want[k] << " (" << where << ")";
  }
};

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

TEST(ArrayNumpy, MatchesNumPy) {
  Engine e;
  const Golden golden;
  EXPECT_EQ(golden.values.size(), 32u);
  for (const Variant& var : variants) {
    const std::string where = var.name();
    const auto X = make<double>(e, {7, 5}, var, x_value);
    const auto I = make<std::int64_t>(e, {6, 4}, var, i_value);
    auto vec = [&](std::int64_t seed, std::int64_t n) {
      return make<double>(e, Shape{n}, var, [seed](std::int64_t k, std::int64_t) { return vec_value(seed, k); });
    };
    const auto u = vec(1, 5), v = vec(2, 5), w = vec(3, 5), c7 = vec(4, 7);

    golden.check("reshape_5x7", X.reshape({5, 7}), where);
    golden.check("reshape_m1x35", slab::reshape(X, {-1, 35}), where);
    golden.check("reshape_35", X.reshape(-1), where);
    golden.check("reshape_35x1", X.reshape({35, 1}), where);
    golden.check("ravel_T", X.transpose().ravel(), where);
    golden.check("concat0", slab::concatenate({X, X.row_range(0, 2)}), where);
    golden.check("concat1", slab::concatenate({X, X.col_range(0, 2), X.col_range(4, 5)}, 1), where);
    golden.check("concat_1d", slab::concatenate({u, v.row_range(0, 2), w}), where);
    golden.check("stack0", slab::stack({u, v, w}), where);
    golden.check("stack1", slab::stack({u, v, w}, -1), where);
    golden.check("vstack", slab::vstack({u, X.row_range(0, 3), v}), where);
    golden.check("hstack_1d", slab::hstack({u, w}), where);
    golden.check("hstack_2d", slab::hstack({X, X.col_range(1, 3)}), where);
    golden.check("column_stack", slab::column_stack({c7, X, c7}), where);
    golden.check("argmax0", slab::argmax(X, 0), where);
    golden.check("argmax1", X.argmax(1), where);
    golden.check("argmin0", X.argmin(-2), where);
    golden.check("argmin1", slab::argmin(X, -1), where);
    golden.check("argmaxT1", X.transpose().argmax(1), where);
    golden.check("iargmax0", I.argmax(0), where);
    golden.check("iargmax1", I.argmax(1), where);
    golden.check("iargmin0", I.argmin(0), where);
    golden.check("iargmin1", I.argmin(1), where);
    golden.check("mask_pos", X[X > 0.0], where);
    golden.check("mask_pos", slab::compress(X, X > 0.0), where);
    golden.check("mask_rows", X[(X.col_range(1, 2) > 0.0).ravel()], where);
    golden.check("imask_even", I[slab::compare(slab::CompareOp::eq, slab::mod(I, std::int64_t{2}), std::int64_t{0})],
                 where);
    const std::int64_t positive = slab::count_nonzero(X > 0.0);
    EXPECT_EQ(positive, static_cast<std::int64_t>(golden.values.at("count_pos").at(0))) << where;
    golden.check("where_a0", slab::where(X > 0.0, X, 0.0), where);
    golden.check("where_1a", slab::where(X > 0.0, -1.0, X), where);
    golden.check("where_10", slab::where(X > 0.0, 1.0, 0.0), where);
    const auto J = make<std::int32_t>(e, Shape{5}, var, [](std::int64_t k, std::int64_t) {
      return static_cast<std::int32_t>(2'000'000'000 - 1000 * k);
    });
    const std::int64_t total = J.sum();  // int64: past 2^31, as NumPy's
    EXPECT_EQ(total, static_cast<std::int64_t>(golden.values.at("i32_sum").at(0))) << where;
    if (var.split != Split::cols) golden.check("i32_cumsum", slab::cumsum(J), where);
  }
}

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

TEST(ArrayNumpy, ArgmaxAlongAnAxisWithTiesNaNAndEmptyRanks) {
  Engine e;
  // 3 rows on up to 4 ranks, ties everywhere, NaN in some rows and columns, infinities.
  const double inf = std::numeric_limits<double>::infinity();
  auto f = [&](std::int64_t i, std::int64_t j) {
    if (i == 1 && j == 4) return nan_v;
    if (i == 2 && j == 0) return inf;
    if (i == 0 && j == 2) return -inf;
    return static_cast<double>((i + j) % 2);
  };
  for (const Variant& var : variants) {
    const auto a = make<double>(e, {3, 6}, var, f);
    std::vector<std::int64_t> max0(6), min0(6), max1(3), min1(3);
    for (std::int64_t j = 0; j < 6; ++j) {  // serial reference: first occurrence, NaN first
      std::int64_t mx = 0, mn = 0;
      for (std::int64_t i = 1; i < 3; ++i) {
        if (std::isnan(f(mx, j))) break;
        if (std::isnan(f(i, j)) || f(i, j) > f(mx, j)) mx = i;
      }
      for (std::int64_t i = 1; i < 3; ++i) {
        if (std::isnan(f(mn, j))) break;
        if (std::isnan(f(i, j)) || f(i, j) < f(mn, j)) mn = i;
      }
      max0[j] = mx, min0[j] = mn;
    }
    for (std::int64_t i = 0; i < 3; ++i) {
      std::int64_t mx = 0, mn = 0;
      for (std::int64_t j = 1; j < 6; ++j) {
        if (!std::isnan(f(i, mx)) && (std::isnan(f(i, j)) || f(i, j) > f(i, mx))) mx = j;
        if (!std::isnan(f(i, mn)) && (std::isnan(f(i, j)) || f(i, j) < f(i, mn))) mn = j;
      }
      max1[i] = mx, min1[i] = mn;
    }
    EXPECT_EQ(a.argmax(0).gather_all(), max0) << var.name();
    EXPECT_EQ(a.argmin(0).gather_all(), min0) << var.name();
    EXPECT_EQ(a.argmax(1).gather_all(), max1) << var.name();
    EXPECT_EQ(a.argmin(1).gather_all(), min1) << var.name();
    EXPECT_EQ(max0[4], 1);  // the NaN wins in column 4, for argmin too
    EXPECT_EQ(min0[4], 1);
    // A 1-D array is one column: one index, the flat argmax's.
    const auto v = make<double>(e, Shape{5}, var, [](std::int64_t k, std::int64_t) { return double(k % 3); });
    EXPECT_EQ(v.argmax(0).gather_all(), std::vector<std::int64_t>{2}) << var.name();
    EXPECT_EQ(v.argmax(), 2);
    // An empty result along a non-empty axis, and float / int32 element types.
    EXPECT_EQ(make<double>(e, {0, 4}, var, f).argmax(1).gather_all().size(), 0u);
    EXPECT_EQ(make<float>(e, {3, 6}, var, f).argmax(0).gather_all(), max0) << var.name();
    const auto k = make<std::int32_t>(e, {3, 6}, var, [](auto i, auto j) { return std::int32_t((i * 6 + j) % 4); });
    EXPECT_EQ(k.argmax(1).gather_all(), (std::vector<std::int64_t>{3, 1, 3})) << var.name();  // first 3 of each row
  }
}

TEST(ArrayNumpy, MasksSelectElementsOrRowsOnEveryLayout) {
  Engine e;
  auto f = [](std::int64_t i, std::int64_t j) { return static_cast<double>((i * 7 + j * 5) % 6) - 2.0; };
  for (const Variant& va : variants)
    for (const Variant& vm : {variants[0], variants[1], variants[2]}) {
      const std::string what = va.name() + " mask " + vm.name();
      const auto a = make<double>(e, {9, 4}, va, f);
      const auto m = make<std::int64_t>(e, {9, 4}, vm, [&](auto i, auto j) { return std::int64_t(f(i, j) > 0); });
      std::vector<double> want;
      for (std::int64_t i = 0; i < 9; ++i)
        for (std::int64_t j = 0; j < 4; ++j)
          if (f(i, j) > 0) want.push_back(f(i, j));
      const auto got = a[m];
      EXPECT_EQ(got.ndim(), 1) << what;
      EXPECT_EQ(got.gather_all(), want) << what;
      // Rows where column 0 is negative; none, and all.
      const auto rm = make<std::int64_t>(e, Shape{9}, vm, [&](auto i, auto) { return std::int64_t(f(i, 0) < 0); });
      std::vector<double> rows;
      for (std::int64_t i = 0; i < 9; ++i)
        if (f(i, 0) < 0)
          for (std::int64_t j = 0; j < 4; ++j) rows.push_back(f(i, j));
      const auto r = a[rm];
      EXPECT_EQ(r.cols(), 4) << what;
      EXPECT_EQ(r.gather_all(), rows) << what;
      EXPECT_EQ(a[a > 100.0].rows(), 0) << what;
      EXPECT_EQ(a[a > -100.0].gather_all(), slab_test::reference<double>(9, 4, f)) << what;
      // float and int32 values, 1-D with NaN.
      EXPECT_EQ(a.astype<float>()[m].gather_all(), std::vector<float>(want.begin(), want.end())) << what;
      const auto v =
          make<double>(e, Shape{6}, va, [](std::int64_t k, std::int64_t) { return k == 2 ? nan_v : k - 3.0; });
      EXPECT_EQ(v[v >= 0.0].gather_all(), (std::vector<double>{0, 1, 2})) << what;
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
  EXPECT_NE(message([&] { (void)slab::argmax(a, 2); }).find("axis 2 is out of bounds"), std::string::npos);
  EXPECT_NE(message([&] { (void)slab::argmin(a.row_range(0, 0), 0); }).find("empty sequence"), std::string::npos);
  EXPECT_NE(message([&] { (void)a[v > 0.0]; }).find("does not match"), std::string::npos);
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
  EXPECT_EQ(slab::sum(m.argmax(1)), 2 * m.rows());  // increasing rows: the last column
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

// astype where C++ leaves the conversion undefined, against NumPy 2.4 on x86 (the rule of
// src/array/kernels/cast_hd.hpp, which the host loop and the device program share; warnings silenced):
//   np.array([nan, inf, -inf, 1e19, -1e19, -2.7, 2.7, -0.0, 9.2e18, -2.0**63]).astype(np.int64)
//   np.array([nan, 3e9, -2.9, -2.0**31, 2147483647.9]).astype(np.int32)
//   np.array([nan, 3e9, -2.9], dtype=np.float32).astype(np.int64)
// and integer true division of the int64 extremes (float64 of each operand, then /).
TEST(ArrayNumpy, AstypeOfNaNInfinitiesAndOutOfRangeValuesIsNumpys) {
  Engine e;
  constexpr std::int64_t lo64 = std::numeric_limits<std::int64_t>::min();
  constexpr std::int32_t lo32 = std::numeric_limits<std::int32_t>::min();
  const double inf = std::numeric_limits<double>::infinity();
  auto from = [&](auto values) {
    using T = typename decltype(values)::value_type;
    const auto n = static_cast<std::int64_t>(values.size());
    return Array<T>::from_function(
        e, Shape{n}, Split::rows,
        [values](std::int64_t i, std::int64_t) { return values[static_cast<std::size_t>(i)]; }, 3);
  };
  const auto d = from(std::vector<double>{nan_v, inf, -inf, 1e19, -1e19, -2.7, 2.7, -0.0, 9.2e18, -0x1p63});
  EXPECT_EQ(d.astype<std::int64_t>().gather_all(),
            (std::vector<std::int64_t>{lo64, lo64, lo64, lo64, lo64, -2, 2, 0, 9200000000000000000, lo64}));
  const auto d32 = from(std::vector<double>{nan_v, 3e9, -2.9, -0x1p31, 2147483647.9});
  EXPECT_EQ(d32.astype<std::int32_t>().gather_all(), (std::vector<std::int32_t>{lo32, lo32, -2, lo32, 2147483647}));
  const auto f = from(std::vector<float>{std::numeric_limits<float>::quiet_NaN(), 3e9f, -2.9f});
  EXPECT_EQ(f.astype<std::int64_t>().gather_all(), (std::vector<std::int64_t>{lo64, 3000000000, -2}));
  const auto k = from(std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::max(), lo64, 7, -7, 0});
  const auto q = (k / std::int64_t{3}).gather_all();
  EXPECT_EQ(q[0], 0x1p63 / 3.0);
  EXPECT_EQ(q[1], -0x1p63 / 3.0);
  EXPECT_EQ((std::int64_t{1} / k).gather_all()[4], inf);
  EXPECT_EQ((k / k).gather_all()[2], 1.0);
}

// NumPy's broadcasting of a 1-D operand against a 2-D one: the vector is a row, (n,) as (1, n), so `x - x.mean(0)`
// centres the columns (slab broadcast it as a column before, so that threw for m != n and was wrong for a square x).
// Reference: the serial loops x[i, j] op v[j]. Every layout of x (uneven blocks, ranks without rows, split by
// columns), v replicated or split by rows (replicated first), on the host and on the reference place (the device
// programs); a length that is neither 1 nor x's column count throws the same ShapeError on every rank, naming the
// reshape to (n, 1) that makes a column.
TEST(ArrayNumpy, OneDOperandsBroadcastAsRowsAsNumPys) {
  const std::int64_t m = 7, n = 4;
  auto xf = [](std::int64_t i, std::int64_t j) { return 1.5 * i - 2.0 * j + (i * j) % 3; };
  auto vf = [](std::int64_t j, std::int64_t) { return 10.0 - 3.0 * j; };
  for (bool ref : {false, true}) {
    if (ref && !slab::built_with_kernel_reference) continue;
    slab::EngineOptions o = slab::testing::engine_options();
    o.reference_kernels = ref;
    slab::Engine e(o);
    for (const Variant& var : variants)
      for (Split vs : {Split::none, Split::rows}) {
        const std::string where = var.name() + ", v " + slab::to_string(vs) + (ref ? ", reference place" : ", host");
        const auto x = make<double>(e, Shape{m, n}, var, xf);
        const auto v = Array<double>::from_function(e, Shape{n}, vs, vf, 3);
        EXPECT_EQ((x - v).gather_all(),
                  slab_test::reference<double>(m, n, [&](auto i, auto j) { return xf(i, j) - vf(j, 0); }))
            << where;
        EXPECT_EQ((v * x).gather_all(),
                  slab_test::reference<double>(m, n, [&](auto i, auto j) { return vf(j, 0) * xf(i, j); }))
            << where;
        EXPECT_EQ(slab::where(x > v, x, v).gather_all(),
                  slab_test::reference<double>(
                      m, n, [&](auto i, auto j) { return xf(i, j) > vf(j, 0) ? xf(i, j) : vf(j, 0); }))
            << where;
        EXPECT_EQ(slab::where(v > 0.0, x, 0.0).gather_all(),
                  slab_test::reference<double>(m, n, [&](auto i, auto j) { return vf(j, 0) > 0.0 ? xf(i, j) : 0.0; }))
            << where;
        // x - x.mean(axis=0): each column's values less the column's mean (the mean from the same loops).
        std::vector<double> col_mean(n, 0.0);
        for (std::int64_t j = 0; j < n; ++j) {
          for (std::int64_t i = 0; i < m; ++i) col_mean[j] += xf(i, j);
          col_mean[j] /= static_cast<double>(m);
        }
        const auto centred = (x - x.mean(0)).gather_all();  // the member form of slab::mean(x, 0)
        const auto want = slab_test::reference<double>(m, n, [&](auto i, auto j) { return xf(i, j) - col_mean[j]; });
        ASSERT_EQ(centred.size(), want.size()) << where;
        for (std::size_t k = 0; k < want.size(); ++k)
          EXPECT_NEAR(centred[k], want[k], 1e-12) << where << " [" << k << "]";
        // A column: reshape the 1-D operand to (m, 1) (a view).
        const auto c = Array<double>::from_function(e, Shape{m}, Split::rows, vf, 2);
        if (var.split == Split::rows && !var.uneven)
          EXPECT_EQ((x - c.reshape({m, 1})).gather_all(),
                    slab_test::reference<double>(m, n, [&](auto i, auto j) { return xf(i, j) - vf(i, 0); }))
              << where;
      }
    // A square x: the vector is a row, as NumPy's (x[i, j] - v[j], not x[i, j] - v[i]).
    const auto sq = Array<double>::from_function(e, Shape{n, n}, Split::rows, xf, 1);
    const auto v = Array<double>::from_function(e, Shape{n}, Split::rows, vf, 1);
    EXPECT_EQ((sq - v).gather_all(),
              slab_test::reference<double>(n, n, [&](auto i, auto j) { return xf(i, j) - vf(j, 0); }));
    // Integer operands and comparisons take the same rule; a length-1 vector broadcasts along both axes.
    const auto k =
        Array<std::int64_t>::from_function(e, Shape{m, n}, Split::rows, [](auto i, auto j) { return i * 10 + j; });
    const auto kv = Array<std::int64_t>::from_function(e, Shape{n}, Split::none, [](auto j, auto) { return 2 * j; });
    EXPECT_EQ((k >= kv).gather_all(),
              slab_test::reference<std::int64_t>(m, n, [](auto i, auto j) { return i * 10 + j >= 2 * j; }));
    const auto one = Array<double>::from_function(e, Shape{1}, Split::rows, [](auto, auto) { return 0.5; });
    EXPECT_EQ((one + sq).gather_all(),
              slab_test::reference<double>(n, n, [&](auto i, auto j) { return 0.5 + xf(i, j); }));
    // Against a one-column operand the vector makes an outer product, as NumPy's (3, 1) * (4,) is (3, 4), in
    // either argument order of where; a length-1 operand split by rows (on one rank) is replicated to meet a
    // longer one, 1-D or 2-D.
    const auto c31 = Array<double>::from_function(e, Shape{3, 1}, Split::rows, [](auto i, auto) { return i + 1.0; });
    const auto v4 = Array<double>::from_function(e, Shape{4}, Split::none, [](auto j, auto) { return 10.0 * (j + 1); });
    const auto x34 =
        Array<double>::from_function(e, Shape{3, 4}, Split::rows, [](auto i, auto j) { return i * 4.0 + j; });
    EXPECT_EQ((c31 * v4).gather_all(),
              slab_test::reference<double>(3, 4, [](auto i, auto j) { return (i + 1.0) * 10.0 * (j + 1); }));
    EXPECT_EQ(slab::where(c31 > 1.5, v4, x34).gather_all(), slab_test::reference<double>(3, 4, [](auto i, auto j) {
                return i + 1.0 > 1.5 ? 10.0 * (j + 1) : i * 4.0 + j;
              }));
    EXPECT_EQ(slab::where(x34 > 5.0, c31, v4).gather_all(), slab_test::reference<double>(3, 4, [](auto i, auto j) {
                return i * 4.0 + j > 5.0 ? i + 1.0 : 10.0 * (j + 1);
              }));
    const auto col7 = Array<double>::from_function(e, Shape{m, 1}, Split::rows, [](auto i, auto) { return 1.0 * i; });
    const auto v7 = Array<double>::from_function(e, Shape{m}, Split::rows, [](auto j, auto) { return 100.0 * j; });
    EXPECT_EQ((col7 - v7).gather_all(),
              slab_test::reference<double>(m, m, [](auto i, auto j) { return 1.0 * i - 100.0 * j; }));
    const auto one_split = Array<double>::from_function(e, Shape{1}, Split::rows, [](auto, auto) { return 3.0; });
    const auto w4 = Array<double>::from_function(
        e, Shape{4}, Split::rows, [](auto j, auto) { return 1.0 * j; }, 1);
    EXPECT_EQ((w4 - one_split).gather_all(), (std::vector<double>{-3, -2, -1, 0}));
    EXPECT_EQ(slab::where(w4 > 0.0, w4, one_split).gather_all(), (std::vector<double>{3, 1, 2, 3}));
    const auto s11 = Array<double>::from_function(e, Shape{1, 1}, Split::rows, [](auto, auto) { return 5.0; });
    EXPECT_EQ((s11 + v4).gather_all(), (std::vector<double>{15, 25, 35, 45}));
    EXPECT_EQ((x34 * s11).gather_all(),
              slab_test::reference<double>(3, 4, [](auto i, auto j) { return (i * 4.0 + j) * 5.0; }));
    // A length that is neither: the same ShapeError on every rank, with the way to a column.
    const auto x = Array<double>::from_function(e, Shape{m, n}, Split::rows, xf);
    const auto c = Array<double>::from_function(e, Shape{m}, Split::rows, vf);
    try {
      (void)(x - c);
      ADD_FAILURE() << "no ShapeError for (7, 4) - (7,)";
    } catch (const slab::ShapeError& err) {
      const std::string msg = err.message();
      EXPECT_NE(msg.find("broadcasts as a row"), std::string::npos) << msg;
      EXPECT_NE(msg.find("reshape it to (n, 1)"), std::string::npos) << msg;
    }
    EXPECT_THROW((void)slab::where(x > 0.0, c, 0.0), slab::ShapeError);
  }
}

// The reductions' edges as NumPy's: min and max along an axis of length 0 raise ("zero-size array to reduction
// operation minimum which has no identity"; sum is 0 and mean NaN there, and an empty result along a non-empty axis
// is fine), var with ddof >= n is M2 / 0 (inf, or NaN for equal values), axis -1 is the last axis and axis 1 of a
// 1-D array is out of bounds, abs(-0.0) is 0.0. Expected values from NumPy 2.4.6:
//   np.var([1., 2.], ddof=2) -> inf; np.var([1., 1.], ddof=2) -> nan; np.var([1., 2.], ddof=5) -> inf
//   np.zeros((0, 3)).min(axis=0) -> ValueError; np.zeros((3, 0)).min(axis=0) -> []; np.zeros((0, 3)).sum(0) -> [0 0 0]
TEST(ArrayNumpy, ReductionEdgesAsNumPys) {
  const double inf = std::numeric_limits<double>::infinity();
  for (bool ref : {false, true}) {
    if (ref && !slab::built_with_kernel_reference) continue;
    slab::EngineOptions o = slab::testing::engine_options();
    o.reference_kernels = ref;
    slab::Engine e(o);
    const std::string where = ref ? "reference place" : "host";
    const auto empty_rows = slab::zeros<double>(e, {0, 3}, Split::rows);
    for (auto op : {slab::AxisOp::min, slab::AxisOp::max}) try {
        (void)slab::reduce_axis(empty_rows, op, 0);
        ADD_FAILURE() << "no ShapeError for min/max along an empty axis (" << where << ")";
      } catch (const slab::ShapeError& err) {
        EXPECT_NE(std::string(err.message()).find("zero-size array"), std::string::npos) << err.message();
      }
    EXPECT_THROW((void)slab::min(slab::zeros<double>(e, {0, 0}, Split::rows), 1), slab::ShapeError) << where;
    EXPECT_EQ(slab::min(slab::zeros<double>(e, {3, 0}, Split::rows), 0).gather_all().size(), 0u) << where;
    EXPECT_EQ(slab::sum(empty_rows, 0).gather_all(), (std::vector<double>{0, 0, 0})) << where;
    EXPECT_EQ(slab::min(empty_rows, 1).gather_all().size(), 0u) << where;
    const auto two = Array<double>::from_function(
        e, Shape{2}, Split::rows, [](auto i, auto) { return 1.0 + i; }, 1);
    const auto same2 = slab::ones<double>(e, Shape{2}, Split::rows);
    EXPECT_EQ(slab::var(two, 2), inf) << where;
    EXPECT_EQ(slab::var(two, 5), inf) << where;
    EXPECT_TRUE(std::isnan(slab::var(same2, 2))) << where;
    // Equal values are NaN (0 / 0) whatever the chunks and ranks, though NumPy's two-pass M2 of [0.1] * 3 is
    // rounding noise and its var(ddof=3) inf (the documented departure: min == max decides, not M2's noise).
    for (std::int64_t chunk : {0, 1, 2}) {
      const auto tenth = Array<double>::from_function(
          e, Shape{3}, Split::rows, [](auto, auto) { return 0.1; }, chunk);
      EXPECT_TRUE(std::isnan(slab::var(tenth, 3))) << where << " chunk " << chunk;
      EXPECT_TRUE(std::isnan(slab::var(tenth.reshape({3, 1}), 0, 3).gather_all()[0])) << where << " chunk " << chunk;
    }
    EXPECT_EQ(slab::std(two, 2), inf) << where;
    EXPECT_EQ(slab::var(two, 1), 0.5) << where;
    const auto m =
        Array<double>::from_function(e, Shape{3, 2}, Split::rows, [](auto i, auto j) { return i * 2.0 + j * j; });
    EXPECT_EQ(slab::var(m, 0, 3).gather_all(), (std::vector<double>{inf, inf})) << where;
    EXPECT_EQ(slab::sum(m, -1).gather_all(), slab::sum(m, 1).gather_all()) << where;
    EXPECT_EQ(slab::sum(m, -2).gather_all(), slab::sum(m, 0).gather_all()) << where;
    // The members along an axis (NumPy's m.sum(axis=-1), m.max(0)): m = [[0, 1], [2, 3], [4, 5]].
    EXPECT_EQ(m.sum(-1).gather_all(), (std::vector<double>{1, 5, 9})) << where;
    EXPECT_EQ(m.mean(0).gather_all(), (std::vector<double>{2, 3})) << where;
    EXPECT_EQ(m.min(1).gather_all(), (std::vector<double>{0, 2, 4})) << where;
    EXPECT_EQ(m.max(0).gather_all(), (std::vector<double>{4, 5})) << where;
    EXPECT_THROW((void)slab::sum(two, 1), slab::ShapeError) << where;
    EXPECT_THROW((void)slab::sum(m, 2), slab::ShapeError) << where;
    const auto z = Array<double>::from_function(
        e, Shape{4}, Split::rows, [](auto i, auto) { return i == 0 ? -0.0 : (i == 1 ? 0.0 : -2.5 * i); }, 1);
    const auto za = z.abs().gather_all();
    for (std::size_t i = 0; i < za.size(); ++i) EXPECT_FALSE(std::signbit(za[i])) << where << " abs[" << i << "]";
    EXPECT_FALSE(std::signbit((z * 2.0).abs().gather_all()[0])) << where << " (fused)";
  }
}
