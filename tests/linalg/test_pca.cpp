// PCA and the implicit application of TSQR's Q, against LAPACK on the gathered matrix.
#include <gtest/gtest.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "slab/array/array.hpp"
#include "slab/array/creation.hpp"
#include "slab/array/elementwise.hpp"
#include "slab/array/reduction.hpp"
#include "slab/array/slicing.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/linalg/pca.hpp"
#include "test_engine.hpp"

namespace {
using slab::Array;
namespace la = slab::linalg;

Array<double> features(slab::Engine& q, std::int64_t m, std::int64_t n) {
  // Columns with different means and scales, mixed so that the components are not the axes.
  return Array<double>::from_function(
      q, slab::Shape{m, n}, slab::Split::rows,
      [n](std::int64_t i, std::int64_t j) {
        double v = 0;
        for (std::int64_t t = 0; t < n; ++t)
          v += slab::counter_uniform(31, std::uint64_t(i * n + t)) * (1.0 + t) *
               (t == j ? 3.0 : 0.3 * double((t + 2 * j) % 4));
        return v + 10.0 * double(j);
      },
      41);
}
}  // namespace

TEST(Pca, MatchesLapackOnTheCentredMatrix) {
  slab::testing::Engine e;
  const std::int64_t m = 503, n = 7, k = 4;
  Array<double> a = features(e, m, n);
  const la::PcaResult p = la::pca(a, k);
  std::vector<double> x = a.gather_all();
  std::vector<double> mean(n, 0.0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) mean[j] += x[i * n + j] / double(m);
  for (std::int64_t j = 0; j < n; ++j) EXPECT_NEAR(p.mean[j], mean[j], 1e-12 * std::abs(mean[j]));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) x[i * n + j] -= mean[j];
  std::vector<double> c = x, s(n), u(1), vt(n * n), superb(n);
  LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'A', int(m), int(n), c.data(), int(n), s.data(), u.data(), 1, vt.data(), int(n),
                 superb.data());
  double total = 0;
  for (double v : s) total += v * v;
  EXPECT_EQ(p.components.size(), std::size_t(k * n));
  for (std::int64_t i = 0; i < k; ++i) {
    EXPECT_NEAR(p.explained_variance[i], s[i] * s[i] / double(m - 1), 1e-10 * s[0] * s[0] / double(m - 1));
    EXPECT_NEAR(p.explained_variance_ratio[i], s[i] * s[i] / total, 1e-10);
    // Components agree up to sign.
    double dot = 0;
    for (std::int64_t j = 0; j < n; ++j) dot += p.components[i * n + j] * vt[i * n + j];
    EXPECT_NEAR(std::abs(dot), 1.0, 1e-9) << "component " << i;
  }
  // Scores are the centred data projected on the components.
  const std::vector<double> scores = p.scores.gather_all();
  double worst = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t t = 0; t < k; ++t) {
      double v = 0;
      for (std::int64_t j = 0; j < n; ++j) v += x[i * n + j] * p.components[t * n + j];
      worst = std::max(worst, std::abs(v - scores[i * k + t]));
    }
  EXPECT_LT(worst, 1e-9 * s[0]);
}

TEST(Pca, RejectsABadK) {
  slab::testing::Engine e;
  Array<double> a = features(e, 20, 5);
  EXPECT_THROW((void)la::pca(a, 0), slab::InvalidArgument);
  EXPECT_THROW((void)la::pca(a, 6), slab::InvalidArgument);
}

TEST(ImplicitQ, AppliesQAndQTransposeLikeTheExplicitQ) {
  slab::testing::Engine e;
  const std::int64_t m = 301, n = 6;
  Array<double> a = features(e, m, n);
  Array<double> b = Array<double>::from_function(
      e, slab::Shape{m, 2}, slab::Split::rows,
      [](std::int64_t i, std::int64_t j) { return std::sin(double(i + 7 * j)); }, 41);
  const std::vector<double> r = la::tsqr_r(a);
  const la::QrResult qr = la::tsqr(a);
  const std::vector<double> implicit = la::apply_qt(a, r, b);
  const std::vector<double> explicit_qtb = la::at_b(qr.q, b);
  ASSERT_EQ(implicit.size(), explicit_qtb.size());
  for (std::size_t i = 0; i < implicit.size(); ++i) EXPECT_NEAR(implicit[i], explicit_qtb[i], 1e-9) << i;
  std::vector<double> eye(n * n, 0.0);
  for (std::int64_t i = 0; i < n; ++i) eye[i * n + i] = 1.0;
  const std::vector<double> q_implicit = la::apply_q(a, r, eye, n).gather_all();
  const std::vector<double> q_explicit = qr.q.gather_all();
  double worst = 0;
  for (std::size_t i = 0; i < q_explicit.size(); ++i) worst = std::max(worst, std::abs(q_implicit[i] - q_explicit[i]));
  EXPECT_LT(worst, 1e-9);
}
