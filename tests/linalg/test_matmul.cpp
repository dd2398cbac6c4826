// slab::matmul of distributed arrays against cblas_dgemm on the gathered operands, for every split of A and B (and
// transpose views of each), both algorithms (contraction and streaming B), 1-D operands, empty operands, ranks
// without rows, uneven blocks, Grams; at 1, 2, 3 and 4 ranks. No ASSERT_* before a collective.
#include <cblas.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "slab/array/array.hpp"
#include "slab/array/creation.hpp"
#include "slab/array/slicing.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/linalg/matmul.hpp"
#include "slab/memory/memory_manager.hpp"
#include "test_engine.hpp"

namespace {

using slab::Array;
using slab::Split;
using Engine = slab::testing::Engine;

Array<double> make(Engine& e, std::int64_t m, std::int64_t n, Split split, std::uint64_t seed, std::int64_t chunk = 2) {
  return Array<double>::from_function(
      e, slab::Shape{m, n}, split,
      [seed, n](std::int64_t i, std::int64_t j) {
        return slab::counter_uniform(seed, static_cast<std::uint64_t>(i * n + j)) - 0.5;
      },
      chunk);
}

// C = A B of row-major gathered operands, by cblas_dgemm (the reference).
std::vector<double> ref_matmul(const std::vector<double>& a, const std::vector<double>& b, std::int64_t m,
                               std::int64_t k, std::int64_t n) {
  std::vector<double> c(static_cast<std::size_t>(m * n), 0.0);
  if (m > 0 && n > 0 && k > 0)
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(m), int(n), int(k), 1.0, a.data(), int(k), b.data(),
                int(n), 0.0, c.data(), int(n));
  return c;
}

// Max |x - y| / (1 + max |y|).
double rel_error(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) return 1e300;
  double err = 0, scale = 1;
  for (std::size_t i = 0; i < x.size(); ++i) {
    err = std::max(err, std::fabs(x[i] - y[i]));
    scale = std::max(scale, std::fabs(y[i]));
  }
  return err / scale;
}

const char* name(Split s) { return slab::to_string(s); }

// A (m x k) split `sa` (or the transpose view of a k x m array split `sa` when ta), B likewise; C checked against
// dgemm, split by rows, and bitwise the same when computed again.
void check_product(Engine& e, std::int64_t m, std::int64_t k, std::int64_t n, Split sa, Split sb, bool ta, bool tb) {
  Array<double> a = ta ? slab::transpose(make(e, k, m, sa, 11)) : make(e, m, k, sa, 11);
  Array<double> b = tb ? slab::transpose(make(e, n, k, sb, 12)) : make(e, k, n, sb, 12);
  const auto ag = a.gather_all(), bg = b.gather_all();
  Array<double> c = slab::matmul(a, b);
  EXPECT_EQ(c.shape(), (slab::Shape{m, n}));
  EXPECT_EQ(c.split(), Split::rows);
  const auto cg = c.gather_all();
  EXPECT_LT(rel_error(cg, ref_matmul(ag, bg, m, k, n)), 1e-13)
      << "(" << m << ", " << k << ") @ (" << k << ", " << n << ") A " << name(sa) << (ta ? " (transposed)" : "")
      << ", B " << name(sb) << (tb ? " (transposed)" : "");
  EXPECT_EQ(slab::matmul(a, b).gather_all(), cg) << "not reproducible";
}

}  // namespace

TEST(Matmul, EverySplitOfAAndBMatchesDgemm) {
  Engine e;
  const Split splits[] = {Split::rows, Split::cols, Split::none};
  // (7, 5) @ (5, 9) streams B past A's rows; (3, 40) @ (40, 6) contracts over k = 40.
  for (const auto& [m, k, n] : {std::tuple{7, 5, 9}, std::tuple{3, 40, 6}})
    for (Split sa : splits)
      for (Split sb : splits) check_product(e, m, k, n, sa, sb, false, false);
}

TEST(Matmul, TransposeViewsAreReadWithoutTransposing) {
  Engine e;
  const Split splits[] = {Split::rows, Split::cols, Split::none};
  for (const auto& [m, k, n] : {std::tuple{6, 4, 5}, std::tuple{2, 33, 3}})
    for (Split sa : splits)
      for (Split sb : splits) {
        check_product(e, m, k, n, sa, sb, true, false);
        check_product(e, m, k, n, sa, sb, false, true);
        check_product(e, m, k, n, sa, sb, true, true);
      }
}

TEST(Matmul, RanksWithoutRowsUnevenBlocksAndEmptyOperands) {
  Engine e;
  check_product(e, 2, 3, 2, Split::rows, Split::rows, false, false);  // fewer rows than ranks
  check_product(e, 1, 1, 1, Split::rows, Split::cols, false, false);
  check_product(e, 5, 1, 7, Split::cols, Split::rows, false, false);
  // Slices keep their data where it is: uneven blocks, some ranks with none.
  Array<double> a = slab::row_range(make(e, 17, 6, Split::rows, 3), 5, 16);
  Array<double> b = slab::col_range(make(e, 6, 13, Split::cols, 4), 2, 11);
  const auto c = slab::matmul(a, b).gather_all();
  EXPECT_LT(rel_error(c, ref_matmul(a.gather_all(), b.gather_all(), 11, 6, 9)), 1e-13);
  // Empty products are zeros of the right shape (an empty sum is 0, as in NumPy).
  for (const auto& [m, k, n] : {std::tuple{0, 3, 4}, std::tuple{3, 0, 4}, std::tuple{3, 4, 0}}) {
    Array<double> z = slab::matmul(make(e, m, k, Split::rows, 5), make(e, k, n, Split::cols, 6));
    EXPECT_EQ(z.shape(), (slab::Shape{m, n}));
    const auto zg = z.gather_all();
    EXPECT_EQ(zg, std::vector<double>(static_cast<std::size_t>(m * n), 0.0));
  }
}

TEST(Matmul, OneDimensionalOperandsFollowNumPy) {
  Engine e;
  Array<double> a = make(e, 9, 4, Split::rows, 7);
  Array<double> v = Array<double>::from_function(
      e, slab::Shape{4}, Split::rows, [](std::int64_t i, std::int64_t) { return 1.0 + double(i); }, 1);
  Array<double> w = Array<double>::from_function(
      e, slab::Shape{9}, Split::rows, [](std::int64_t i, std::int64_t) { return 0.5 - double(i); }, 2);
  const auto ag = a.gather_all(), vg = v.gather_all(), wg = w.gather_all();
  Array<double> av = slab::matmul(a, v);  // (9, 4) @ (4,) -> (9,)
  EXPECT_EQ(av.shape(), slab::Shape{9});
  EXPECT_EQ(av.ndim(), 1);
  EXPECT_LT(rel_error(av.gather_all(), ref_matmul(ag, vg, 9, 4, 1)), 1e-13);
  Array<double> wa = slab::matmul(w, a);  // (9,) @ (9, 4) -> (4,)
  EXPECT_EQ(wa.shape(), slab::Shape{4});
  EXPECT_LT(rel_error(wa.gather_all(), ref_matmul(wg, ag, 1, 9, 4)), 1e-13);
  std::string kind, message;
  try {
    (void)slab::matmul(v, v);
  } catch (const slab::Error& err) {
    kind = err.kind();
    message = err.message();
  }
  EXPECT_EQ(kind, "ShapeError");
  EXPECT_NE(message.find("1-D"), std::string::npos) << message;
}

TEST(Matmul, MisalignedShapesAreAShapeErrorNamingBothOnEveryRank) {
  Engine e;
  std::string kind, message;
  try {
    (void)slab::matmul(make(e, 3, 4, Split::rows, 1), make(e, 5, 2, Split::cols, 2));
  } catch (const slab::Error& err) {
    kind = err.kind();
    message = err.message();
  }
  EXPECT_EQ(kind, "ShapeError");
  EXPECT_NE(message.find("(3, 4)"), std::string::npos) << message;
  EXPECT_NE(message.find("(5, 2)"), std::string::npos) << message;
  EXPECT_EQ(e.tasks().pending(), 0u) << "nothing is recorded for a bad call";
}

TEST(Matmul, GramsAreRecognisedAndExactlySymmetric) {
  Engine e;
  for (const Split split : {Split::rows, Split::cols, Split::none}) {
    // Wide X: X X^T contracts over its columns with dsyrk; tall X: C's rows stream (C_r = X_r X^T).
    for (const auto& [n, m] : {std::pair{6, 50}, std::pair{23, 4}}) {
      Array<double> x = make(e, n, m, split, 21, 3);
      const auto xg = x.gather_all();
      std::vector<double> xt(xg.size());
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < m; ++j) xt[std::size_t(j * n + i)] = xg[std::size_t(i * m + j)];
      const auto g = slab::matmul(x, slab::transpose(x)).gather_all();
      EXPECT_LT(rel_error(g, ref_matmul(xg, xt, n, m, n)), 1e-13) << name(split) << " " << n << " x " << m;
      if (n < m)
        for (std::int64_t i = 0; i < n; ++i)
          for (std::int64_t j = 0; j < i; ++j) EXPECT_EQ(g[std::size_t(i * n + j)], g[std::size_t(j * n + i)]);
      // A^T A of the same X (m x m): contracts over X's rows for the tall X.
      const auto h = slab::matmul(x.transpose(), x).gather_all();
      EXPECT_LT(rel_error(h, ref_matmul(xt, xg, m, n, m)), 1e-13) << name(split) << " " << n << " x " << m;
      if (m < n)
        for (std::int64_t i = 0; i < m; ++i)
          for (std::int64_t j = 0; j < i; ++j) EXPECT_EQ(h[std::size_t(i * m + j)], h[std::size_t(j * m + i)]);
    }
  }
}

TEST(Matmul, StreamedProductStaysUnderTheMemoryLimit) {
  // A (400 x 300, 0.96 MB), B (300 x 500, 1.2 MB), C (400 x 500, 1.6 MB) under a 600 KB limit per rank: even one
  // rank's rows of A and C do not fit at once (at 1-4 ranks), so they are taken in groups that do, each with one
  // 100 KB chunk of B at a time; pinning more would be OutOfMemory.
  const std::uint64_t limit = 600u << 10;
  Engine e(limit, 1ull << 30);
  const int p = e.comm().size();
  EXPECT_LT(limit, (400 * 300 + 400 * 500) * 8u / std::uint64_t(p)) << "a rank's rows of A and C exceed the limit";
  Array<double> a = make(e, 400, 300, Split::rows, 31, 40);
  Array<double> b = make(e, 300, 500, Split::rows, 32, 25);
  Array<double> c = slab::matmul(a, b);
  c.persist();
  EXPECT_LE(e.memory().stats().device.high_water, limit);
  const auto cg = c.gather_all();
  EXPECT_LT(rel_error(cg, ref_matmul(a.gather_all(), b.gather_all(), 400, 300, 500)), 1e-13);
  EXPECT_EQ(slab::matmul(a, b).gather_all(), cg) << "not reproducible";
}
