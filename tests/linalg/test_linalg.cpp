// linalg against LAPACK/BLAS on the gathered matrix, at 1, 2, 3 and 4 ranks. No ASSERT_* before a collective.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "slab/array/array.hpp"
#include "slab/array/creation.hpp"
#include "slab/array/elementwise.hpp"
#include "slab/array/reduction.hpp"
#include "slab/array/slicing.hpp"
#include "slab/comm/comm.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/core/version.hpp"
#include "slab/linalg/linalg.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/task/task_queue.hpp"
#include "test_engine.hpp"

extern "C" {
void dgesvd_(const char*, const char*, const int*, const int*, double*, const int*, double*, double*, const int*,
             double*, const int*, double*, const int*, int*, std::size_t, std::size_t);
void dgels_(const char*, const int*, const int*, const int*, double*, const int*, double*, const int*, double*,
            const int*, int*, std::size_t);
}

namespace {

namespace la = slab::linalg;
using slab::Array;

using Engine = slab::testing::Engine;

double u(std::uint64_t s, std::uint64_t i) { return slab::counter_uniform(s, i); }

template <class F>
Array<double> make(slab::Engine& e, std::int64_t m, std::int64_t n, F f, std::int64_t chunk = 3) {
  return Array<double>::from_function(e, slab::Shape{m, n}, slab::Split::rows, f, chunk);
}

// Max |X^T X - I| of a row-major m x n matrix.
double orth_error(const std::vector<double>& x, std::size_t m, std::size_t n) {
  std::vector<double> g(n * n);
  cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, int(n), int(n), int(m), 1.0, x.data(), int(n), x.data(), int(n),
              0.0, g.data(), int(n));
  double err = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) err = std::max(err, std::abs(g[i * n + j] - (i == j ? 1.0 : 0.0)));
  return err;
}

double fro(const std::vector<double>& x) {
  double s = 0;
  for (double v : x) s += v * v;
  return std::sqrt(s);
}

// ||A - U diag(s) VT||_F / ||A||_F.
double svd_residual(const std::vector<double>& a, const std::vector<double>& uu, const std::vector<double>& s,
                    const std::vector<double>& vt, std::size_t m, std::size_t n) {
  const std::size_t k = s.size();
  std::vector<double> us(uu);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < k; ++j) us[i * k + j] *= s[j];
  std::vector<double> d(a);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(m), int(n), int(k), -1.0, us.data(), int(k), vt.data(),
              int(n), 1.0, d.data(), int(n));
  return fro(d) / fro(a);
}

std::vector<double> ref_singular_values(std::vector<double> a, std::size_t m, std::size_t n) {
  // Row-major A is column-major A^T: same singular values.
  std::vector<double> s(std::min(m, n)), work(10 * (m + n) + 100), dummy(1);
  const int r = int(n), c = int(m), one = 1, lwork = int(work.size());
  int info = 0;
  dgesvd_("N", "N", &r, &c, a.data(), &r, s.data(), dummy.data(), &one, dummy.data(), &one, work.data(), &lwork, &info,
          1, 1);
  return s;
}

// `body(engine)` on the host place, then on the reference place (where builds have it): the device paths'
// compositions on the host, so that explicit TSQR's device steps (the rank's rows stacked in the task's memory,
// a local QR with explicit Q, the tree of the factors, Q = Q_i C) are checked in CI as a GPU runs them.
template <class Body>
void on_both_places(Body&& body) {
  {
    SCOPED_TRACE("host place");
    Engine e;
    body(static_cast<slab::Engine&>(e));
  }
  if (!slab::built_with_kernel_reference) return;
  SCOPED_TRACE("reference place");
  slab::EngineOptions o = slab::testing::engine_options();
  o.reference_kernels = true;
  slab::Engine e(o);
  body(e);
}

}  // namespace

TEST(Linalg, MatmulAtBAndMatvecMatchBlas) {
  Engine e;
  const int m = 37, k = 5, n = 3;
  auto a = make(e, m, k, [](auto i, auto j) { return u(21, i * 5 + j) - 0.5; });
  auto a2 = make(
      e, m, n, [](auto i, auto j) { return u(22, i * 3 + j); }, 7);  // different chunking
  std::vector<double> b(k * n);
  for (int i = 0; i < k * n; ++i) b[i] = u(23, i);
  auto c = la::matmul(a, b, n).gather_all();
  auto ag = a.gather_all(), a2g = a2.gather_all();
  std::vector<double> ref(m * n);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, ag.data(), k, b.data(), n, 0.0, ref.data(), n);
  double err = 0;
  for (int i = 0; i < m * n; ++i) err = std::max(err, std::abs(c[i] - ref[i]));
  EXPECT_LT(err, 1e-14);

  auto atb = la::at_b(a, a2);
  std::vector<double> ref2(k * n);
  cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, k, n, m, 1.0, ag.data(), k, a2g.data(), n, 0.0, ref2.data(), n);
  ASSERT_EQ(atb.size(), ref2.size());
  err = 0;
  for (int i = 0; i < k * n; ++i) err = std::max(err, std::abs(atb[i] - ref2[i]));
  EXPECT_LT(err, 1e-13);

  std::vector<double> x(b.begin(), b.begin() + k);
  auto y = la::matvec(a, x);
  EXPECT_EQ(y.ndim(), 1);
  auto yg = y.gather_all();
  err = 0;
  for (int i = 0; i < m; ++i) {
    double r = 0;
    for (int j = 0; j < k; ++j) r += ag[i * k + j] * x[j];
    err = std::max(err, std::abs(yg[i] - r));
  }
  EXPECT_LT(err, 1e-14);
}

TEST(Linalg, TsqrExplicitAndImplicitR) {
  on_both_places([](slab::Engine& e) {
    for (auto [m, n, chunk] : {std::tuple{50, 8, 4}, std::tuple{10, 8, 1}, std::tuple{9, 9, 2}, std::tuple{203, 17, 40},
                               std::tuple{23, 6, 2}}) {
      auto a = make(
          e, m, n, [n = n](auto i, auto j) { return u(31, i * n + j) - 0.5; }, chunk);
      auto qr = la::tsqr(a);
      auto r2 = la::tsqr_r(a);
      auto ag = a.gather_all(), qg = qr.q.gather_all();
      EXPECT_LT(orth_error(qg, m, n), 1e-13) << m << "x" << n;
      std::vector<double> d(ag);
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, n, -1.0, qg.data(), n, qr.r.data(), n, 1.0, d.data(),
                  n);
      EXPECT_LT(fro(d) / fro(ag), 1e-14) << m << "x" << n;
      double rdiff = 0, below = 0, mindiag = 1;
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          rdiff = std::max(rdiff, std::abs(qr.r[i * n + j] - r2[i * n + j]));
          if (j < i) below = std::max(below, std::abs(qr.r[i * n + j]));
        }
      for (int i = 0; i < n; ++i) mindiag = std::min(mindiag, qr.r[i * n + i]);
      EXPECT_LT(rdiff, 1e-12) << "tsqr_r and tsqr agree";
      EXPECT_EQ(below, 0.0);
      EXPECT_GE(mindiag, 0.0) << "diag(R) >= 0";
    }
  });
}

TEST(Linalg, SvdWellConditioned) {
  Engine e;
  const int m = 120, n = 7;
  auto a = make(
      e, m, n, [](auto i, auto j) { return u(1, i * 7 + j); }, 11);
  auto ag = a.gather_all();
  auto ref = ref_singular_values(ag, m, n);
  for (auto method : {la::QrMethod::householder, la::QrMethod::cholesky, la::QrMethod::automatic}) {
    auto r = la::svd(a, 0, method);
    auto ug = r.u.gather_all();
    EXPECT_FALSE(r.explicit_q);
    EXPECT_LT(svd_residual(ag, ug, r.s, r.vt, m, n), 1e-12) << int(method);
    EXPECT_LT(orth_error(ug, m, n), 1e-12) << int(method);
    for (int i = 0; i < n; ++i) EXPECT_NEAR(r.s[i], ref[i], 1e-12 * ref[0]) << int(method);
  }
  // Truncated.
  auto t = la::svd(a, 3);
  auto tu = t.u.gather_all();
  EXPECT_EQ(t.s.size(), 3u);
  EXPECT_EQ(t.u.cols(), 3);
  EXPECT_LT(orth_error(tu, m, 3), 1e-12);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(t.s[i], ref[i], 1e-12 * ref[0]);
}

TEST(Linalg, SvdIllConditionedAndRankDeficient) {
  on_both_places([](slab::Engine& e) {
    const int m = 90, n = 6;
    // Columns scaled from 1 to 1e-10: condition number ~1e10.
    auto a = make(
        e, m, n, [](auto i, auto j) { return (u(41, i * 6 + j) - 0.5) * std::pow(10.0, -2.0 * double(j)); }, 5);
    auto r = la::svd(a);
    auto ag = a.gather_all(), ug = r.u.gather_all();
    auto ref = ref_singular_values(ag, m, n);
    EXPECT_GT(ref[0] / ref[n - 1], 1e9);
    EXPECT_TRUE(r.explicit_q);
    for (int i = 0; i < n; ++i) EXPECT_NEAR(r.s[i], ref[i], 1e-13 * ref[0]) << i;
    EXPECT_LT(svd_residual(ag, ug, r.s, r.vt, m, n), 1e-13);
    EXPECT_LT(orth_error(ug, m, n), 1e-12);

    // Rank 2.
    auto b = make(
        e, m, n, [](auto i, auto j) { return u(42, i) * u(43, j) + u(44, i) * u(45, j); }, 4);
    auto rb = la::svd(b);
    auto bg = b.gather_all(), ubg = rb.u.gather_all();
    auto refb = ref_singular_values(bg, m, n);
    for (int i = 0; i < n; ++i) EXPECT_NEAR(rb.s[i], refb[i], 1e-13 * refb[0]) << i;
    EXPECT_LT(rb.s[2], 1e-13 * rb.s[0]);
    EXPECT_LT(svd_residual(bg, ubg, rb.s, rb.vt, m, n), 1e-13);
  });
}

TEST(Linalg, FewerRowsThanColumnsPerRank) {
  Engine e;
  const int m = 12, n = 10;  // at 4 ranks: 3 rows per rank; chunks of one row
  auto a = make(
      e, m, n, [](auto i, auto j) { return u(51, i * 10 + j); }, 1);
  auto r = la::svd(a);
  auto ag = a.gather_all(), ug = r.u.gather_all();
  EXPECT_LT(svd_residual(ag, ug, r.s, r.vt, m, n), 1e-12);
  auto ref = ref_singular_values(ag, m, n);
  for (int i = 0; i < n; ++i) EXPECT_NEAR(r.s[i], ref[i], 1e-12 * ref[0]);
}

TEST(Linalg, RanksWithoutRows) {
  on_both_places([](slab::Engine& e) {
    for (auto [m, n] : {std::pair{3, 3}, std::pair{5, 4}, std::pair{2, 1}}) {  // at 4 ranks some ranks hold no row
      auto a = make(
          e, m, n, [n = n](auto i, auto j) { return u(52, i * n + j) + (i == j ? 2.0 : 0.0); }, 1);
      auto qr = la::tsqr(a);
      auto r = la::svd(a);
      auto ag = a.gather_all(), qg = qr.q.gather_all(), ug = r.u.gather_all();
      EXPECT_LT(orth_error(qg, m, n), 1e-13) << m << "x" << n;
      EXPECT_LT(svd_residual(ag, ug, r.s, r.vt, m, n), 1e-13) << m << "x" << n;
      auto ref = ref_singular_values(ag, m, n);
      for (int i = 0; i < n; ++i) EXPECT_NEAR(r.s[i], ref[i], 1e-13 * ref[0]);
    }
  });
}

// Two passes over a regenerated source under a memory limit of a few chunks: A is never held.
TEST(Linalg, StreamedSvdStaysUnderTheLimit) {
  const std::int64_t m = 4000, n = 16, chunk = 50;  // 6.4 KB chunks, 512 KB in all
  Engine e(96 * 1024);
  const int rank = e.comm().rank();
  const auto layout = slab::Layout::make(slab::Shape{m, n}, slab::Split::rows, e.comm().size(), chunk);
  int generated = 0;
  la::RowSource src{layout, [&](std::size_t i) {
                      const auto ext = layout.chunk_extent(rank, std::int64_t(i));
                      return e.tasks().submit("gen", {}, [ext, &generated](slab::TaskContext& ctx) {
                        ++generated;
                        auto out = ctx.output_as<double>(std::size_t(ext.size()));
                        for (std::int64_t k = 0; k < ext.size(); ++k)
                          out[std::size_t(k)] = u(53, std::uint64_t(ext.row0 * ext.cols + k));
                      });
                    }};
  auto r = la::svd(e, src, 4);
  // Residual of the first rows held here, without holding U: one chunk at a time.
  double worst = 0;
  int computed = 0;
  const auto common = e.comm().allreduce(std::uint64_t(r.u.num_local_chunks()), slab::ReduceOp::min);
  for (std::size_t i = 0; i < common; i += 7, ++computed) {
    auto uc = e.tasks().compute<double>(r.u.local_chunk(i));  // collective: the same count on every rank
    const auto ext = r.u.local_extent(i);
    for (std::int64_t row = 0; row < ext.rows; ++row) {
      double norm = 0;
      for (int t = 0; t < 4; ++t) norm += uc[std::size_t(row * 4 + t)] * uc[std::size_t(row * 4 + t)];
      worst = std::max(worst, norm);
    }
  }
  const auto stats = e.memory().stats();
  EXPECT_LE(stats.device.high_water, 96u * 1024);
  EXPECT_EQ(stats.spilled_to_host_count, 0u) << "A is streamed, not spilled";
  EXPECT_EQ(generated, int(layout.num_chunks(rank)) + computed) << "one pass for R, then only the U chunks asked for";
  EXPECT_LE(worst, 1.0 + 1e-12);
  // Singular values against the gathered matrix.
  auto a = Array<double>::from_function(
      e, slab::Shape{m, n}, slab::Split::rows, [](auto i, auto j) { return u(53, std::uint64_t(i * 16 + j)); }, chunk);
  auto ref = ref_singular_values(a.gather_all(), m, n);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(r.s[i], ref[i], 1e-12 * ref[0]);
}

TEST(Linalg, RandomizedSvdRecoversLowRank) {
  Engine e;
  const int m = 300, n = 40, rank = 5;
  auto a = make(
      e, m, n,
      [](auto i, auto j) {
        double v = 0;
        for (int t = 0; t < 5; ++t) v += std::pow(0.5, t) * (u(60 + t, i) - 0.5) * (u(70 + t, j) - 0.5);
        return v;
      },
      17);
  auto r = la::randomized_svd(a, {rank, 5, 2, 99});
  auto ag = a.gather_all(), ug = r.u.gather_all();
  auto ref = ref_singular_values(ag, m, n);
  for (int i = 0; i < rank; ++i) EXPECT_NEAR(r.s[i], ref[i], 1e-10 * ref[0]) << i;
  EXPECT_LT(svd_residual(ag, ug, r.s, r.vt, m, n), 1e-10);
  EXPECT_LT(orth_error(ug, m, rank), 1e-12);
}

TEST(Linalg, LstsqMatchesDgels) {
  Engine e;
  const int m = 77, n = 5;
  auto a = make(
      e, m, n, [](auto i, auto j) { return u(81, i * 5 + j); }, 6);
  auto b = Array<double>::from_function(
      e, slab::Shape{m}, slab::Split::rows, [](auto i, auto) { return u(82, i); }, 10);
  auto x = la::lstsq(a, b);
  auto ag = a.gather_all(), bg = b.gather_all();
  std::vector<double> col(m * n), work(10000);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) col[i + j * m] = ag[i * n + j];
  const int one = 1, lwork = int(work.size());
  int info = 0;
  dgels_("N", &m, &n, &one, col.data(), &m, bg.data(), &m, work.data(), &lwork, &info, 1);
  EXPECT_EQ(info, 0);
  ASSERT_EQ(x.size(), std::size_t(n));
  for (int i = 0; i < n; ++i) EXPECT_NEAR(x[i], bg[i], 1e-12 * (1 + std::abs(bg[i])));
}

TEST(Linalg, BadInputThrowsOnEveryRank) {
  Engine e;
  auto a = make(e, 20, 4, [](auto i, auto j) { return u(91, i * 4 + j); });
  auto wide = make(e, 3, 8, [](auto i, auto j) { return u(92, i * 8 + j); });
  auto other = make(e, 21, 2, [](auto i, auto j) { return u(93, i * 2 + j); });
  auto expect_message = [](auto&& fn, const char* needle) {
    try {
      fn();
      ADD_FAILURE() << "no exception";
    } catch (const slab::Error& err) {
      EXPECT_NE(err.message().find(needle), std::string::npos) << err.message();
    }
  };
  EXPECT_THROW((void)la::svd(a, 5), slab::InvalidArgument);
  expect_message([&] { (void)la::svd(a, 5); }, "(20, 4)");
  // A wide A has a QR and an SVD now (through its first columns, through its transpose); no columns or no rows
  // has neither.
  auto no_cols = make(e, 3, 0, [](auto, auto) { return 0.0; });
  auto no_rows = make(e, 0, 5, [](auto, auto) { return 0.0; });
  EXPECT_THROW((void)la::tsqr(no_cols), slab::ShapeError);
  expect_message([&] { (void)la::tsqr_r(no_cols); }, "not tall-skinny");
  expect_message([&] { (void)la::tsqr(no_rows); }, "(0, 5)");
  expect_message([&] { (void)la::svd(no_rows); }, "(0, 5)");
  EXPECT_THROW((void)la::svd(wide, 4), slab::InvalidArgument);
  expect_message([&] { (void)la::svd(wide, 4); }, "(3, 8)");
  EXPECT_THROW((void)la::at_b(a, other), slab::ShapeError);
  expect_message([&] { (void)la::at_b(a, other); }, "(21, 2)");
  std::vector<double> b3(3);
  EXPECT_THROW((void)la::matmul(a, b3, 2), slab::ShapeError);
  EXPECT_THROW((void)la::randomized_svd(a, {4, 2, 1, 1}), slab::InvalidArgument);
  // Still usable afterwards (no rank left behind in a collective).
  auto r = la::tsqr_r(a);
  EXPECT_EQ(r.size(), 16u);
}
