// SVD and QR of wide (rows < cols) and column-split or replicated matrices, against LAPACK (dgesdd, dgeqrf) on the
// gathered matrix, at 1, 2, 3 and 4 ranks. No ASSERT_* before a collective.
#include <cblas.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "slab/array/array.hpp"
#include "slab/array/slicing.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/linalg/linalg.hpp"
#include "test_engine.hpp"

extern "C" {
void dgesdd_(const char*, const int*, const int*, double*, const int*, double*, double*, const int*, double*,
             const int*, double*, const int*, int*, int*, std::size_t);
void dgeqrf_(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
}

namespace {

namespace la = slab::linalg;
using slab::Array;
using slab::Split;
using Engine = slab::testing::Engine;

Array<double> make(Engine& e, std::int64_t m, std::int64_t n, Split split, std::uint64_t seed) {
  return Array<double>::from_function(
      e, slab::Shape{m, n}, split,
      [seed, n](std::int64_t i, std::int64_t j) {
        return slab::counter_uniform(seed, static_cast<std::uint64_t>(i * n + j)) - 0.5;
      },
      3);
}

// Singular values of the row-major m x n matrix by LAPACK's dgesdd (row-major A is column-major A^T: same values).
std::vector<double> dgesdd_values(std::vector<double> a, int m, int n) {
  const int k = std::min(m, n);
  std::vector<double> s(static_cast<std::size_t>(k)), dummy(1);
  std::vector<int> iwork(8 * static_cast<std::size_t>(k));
  const int one = 1;
  int info = 0, lwork = -1;
  double query = 0;
  dgesdd_("N", &n, &m, a.data(), &n, s.data(), dummy.data(), &one, dummy.data(), &one, &query, &lwork, iwork.data(),
          &info, 1);
  lwork = static_cast<int>(query);
  std::vector<double> work(static_cast<std::size_t>(std::max(1, lwork)));
  dgesdd_("N", &n, &m, a.data(), &n, s.data(), dummy.data(), &one, dummy.data(), &one, work.data(), &lwork,
          iwork.data(), &info, 1);
  EXPECT_EQ(info, 0);
  return s;
}

// R (min(m, n) x n, row-major, rows signed so that diag >= 0) of LAPACK's dgeqrf of the row-major m x n matrix.
std::vector<double> dgeqrf_r(const std::vector<double>& a, int m, int n) {
  const int k = std::min(m, n);
  std::vector<double> w(a.size()), tau(static_cast<std::size_t>(k)), work(64 * static_cast<std::size_t>(n) + 64);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) w[std::size_t(i + j * m)] = a[std::size_t(i * n + j)];
  const int lwork = static_cast<int>(work.size());
  int info = 0;
  dgeqrf_(&m, &n, w.data(), &m, tau.data(), work.data(), &lwork, &info);
  EXPECT_EQ(info, 0);
  std::vector<double> r(static_cast<std::size_t>(k * n), 0.0);
  for (int i = 0; i < k; ++i) {
    const double sign = w[std::size_t(i + i * m)] < 0 ? -1.0 : 1.0;
    for (int j = i; j < n; ++j) r[std::size_t(i * n + j)] = sign * w[std::size_t(i + j * m)];
  }
  return r;
}

// Max |X^T X - I| of a row-major m x n matrix.
double orth_error(const std::vector<double>& x, int m, int n) {
  std::vector<double> g(static_cast<std::size_t>(n * n));
  cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, n, n, m, 1.0, x.data(), n, x.data(), n, 0.0, g.data(), n);
  double err = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) err = std::max(err, std::fabs(g[std::size_t(i * n + j)] - (i == j ? 1.0 : 0.0)));
  return err;
}

// Max |A - L R| for L (m x k) and R (k x n), row-major.
double product_error(const std::vector<double>& a, const std::vector<double>& l, const std::vector<double>& r, int m,
                     int k, int n) {
  std::vector<double> d(a);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, -1.0, l.data(), k, r.data(), n, 1.0, d.data(), n);
  double err = 0;
  for (double v : d) err = std::max(err, std::fabs(v));
  return err;
}

double max_diff(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) return 1e300;
  double err = 0;
  for (std::size_t i = 0; i < x.size(); ++i) err = std::max(err, std::fabs(x[i] - y[i]));
  return err;
}

}  // namespace

TEST(WideSvd, GoesThroughTheTransposeForEverySplit) {
  Engine e;
  const int m = 7, n = 40;
  for (const Split split : {Split::rows, Split::cols, Split::none}) {
    Array<double> a = make(e, m, n, split, 41);
    const auto ag = a.gather_all();
    auto [u, s, vt] = la::svd(a);
    const la::SvdResult again = la::svd(a);
    EXPECT_EQ(u.shape(), (slab::Shape{m, m}));
    EXPECT_EQ(u.split(), Split::rows);
    ASSERT_EQ(s.size(), std::size_t(m));
    ASSERT_EQ(vt.size(), std::size_t(m * n));
    const auto ug = u.gather_all();
    const auto ref = dgesdd_values(ag, m, n);
    for (int i = 0; i < m; ++i) EXPECT_NEAR(s[std::size_t(i)], ref[std::size_t(i)], 1e-13 * ref[0]) << i;
    std::vector<double> us(ug);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j) us[std::size_t(i * m + j)] *= s[std::size_t(j)];
    EXPECT_LT(product_error(ag, us, vt, m, m, n), 1e-13) << "U S V^T reconstructs A (" << slab::to_string(split) << ")";
    EXPECT_LT(orth_error(ug, m, m), 1e-13);
    // V, distributed, is vt^T, and orthonormal.
    EXPECT_EQ(again.v.shape(), (slab::Shape{n, m}));
    EXPECT_EQ(again.v.split(), Split::rows);
    const auto vg = again.v.gather_all();
    std::vector<double> vtt(vg.size());
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) vtt[std::size_t(j * n + i)] = vg[std::size_t(i * m + j)];
    EXPECT_EQ(vtt, vt);
    EXPECT_LT(orth_error(vg, n, m), 1e-13);
    EXPECT_EQ(again.s, s) << "reproducible";
  }
  // Truncated: the first k triplets; a wide A with one row.
  Array<double> a = make(e, m, n, Split::cols, 42);
  const auto ref = dgesdd_values(a.gather_all(), m, n);
  const la::SvdResult k3 = la::svd(a, 3);
  ASSERT_EQ(k3.s.size(), 3u);
  EXPECT_EQ(k3.u.shape(), (slab::Shape{m, 3}));
  EXPECT_EQ(k3.vt.size(), std::size_t(3 * n));
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(k3.s[std::size_t(i)], ref[std::size_t(i)], 1e-13 * ref[0]);
  Array<double> row = make(e, 1, 9, Split::cols, 43);
  const auto rg = row.gather_all();
  const la::SvdResult r1 = la::svd(row);
  double norm = 0;
  for (double x : rg) norm += x * x;
  ASSERT_EQ(r1.s.size(), 1u);
  EXPECT_NEAR(r1.s[0], std::sqrt(norm), 1e-14);
}

TEST(TallSvd, ColumnSplitIsResplitByRows) {
  Engine e;
  const int m = 31, n = 6;
  Array<double> rows = make(e, m, n, Split::rows, 44);
  const auto ag = rows.gather_all();
  const auto ref = dgesdd_values(ag, m, n);
  for (const Split split : {Split::cols, Split::none}) {
    const la::SvdResult r = la::svd(rows.resplit(split));
    EXPECT_EQ(r.u.split(), Split::rows);
    EXPECT_FALSE(r.v.valid());
    const auto ug = r.u.gather_all();
    for (int i = 0; i < n; ++i) EXPECT_NEAR(r.s[std::size_t(i)], ref[std::size_t(i)], 1e-13 * ref[0]);
    std::vector<double> us(ug);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) us[std::size_t(i * n + j)] *= r.s[std::size_t(j)];
    EXPECT_LT(product_error(ag, us, r.vt, m, n, n), 1e-13);
  }
}

TEST(Qr, ColumnSplitTallAndWideMatchLapack) {
  Engine e;
  // Tall, column-split or replicated: resplit by rows, then TSQR.
  for (const Split split : {Split::cols, Split::none}) {
    const int m = 29, n = 5;
    Array<double> a = make(e, m, n, split, 51);
    const auto ag = a.gather_all();
    const la::QrResult qr = la::tsqr(a);
    const auto r2 = la::tsqr_r(a);
    EXPECT_EQ(qr.q.shape(), (slab::Shape{m, n}));
    EXPECT_EQ(qr.q.split(), Split::rows);
    const auto qg = qr.q.gather_all();
    EXPECT_LT(orth_error(qg, m, n), 1e-13);
    EXPECT_LT(product_error(ag, qg, qr.r, m, n, n), 1e-13);
    EXPECT_LT(max_diff(qr.r, dgeqrf_r(ag, m, n)), 1e-13) << slab::to_string(split);
    EXPECT_LT(max_diff(r2, qr.r), 1e-13);
  }
  // Wide, any split: Q (m x m) from the first m columns, R = Q^T A upper trapezoidal, diag >= 0.
  for (const Split split : {Split::rows, Split::cols, Split::none}) {
    const int m = 4, n = 11;
    Array<double> a = make(e, m, n, split, 52);
    const auto ag = a.gather_all();
    const la::QrResult qr = la::tsqr(a);
    EXPECT_EQ(qr.q.shape(), (slab::Shape{m, m}));
    ASSERT_EQ(qr.r.size(), std::size_t(m * n));
    const auto qg = qr.q.gather_all();
    EXPECT_LT(orth_error(qg, m, m), 1e-13);
    EXPECT_LT(product_error(ag, qg, qr.r, m, m, n), 1e-13) << slab::to_string(split);
    for (int i = 0; i < m; ++i) {
      EXPECT_GE(qr.r[std::size_t(i * n + i)], 0.0);
      for (int j = 0; j < i; ++j) EXPECT_EQ(qr.r[std::size_t(i * n + j)], 0.0);
    }
    EXPECT_LT(max_diff(qr.r, dgeqrf_r(ag, m, n)), 1e-13);
    EXPECT_EQ(la::tsqr_r(a), qr.r);
  }
}
