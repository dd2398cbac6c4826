// slab::linalg::RidgeCv (the folds' QR factors reduced over the ranks) against a plain serial reference:
// LAPACK dgels on the explicit [X_train; sqrt(alpha) I], [y_train; 0] of every fold, on the same data.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <vector>

#include "slab/app/sweep.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/linalg/ridge.hpp"

extern "C" void dgels_(const char* trans, const int* m, const int* n, const int* nrhs, double* a, const int* lda,
                       double* b, const int* ldb, double* work, const int* lwork, int* info, std::size_t);

namespace {

struct Data {
  std::size_t rows, cols;
  std::vector<double> x, y;  // all rows, row-major
};

/// W7's formulas at a small size (rows x cols), on every rank.
Data make_data(std::size_t rows, std::size_t cols) {
  Data d{rows, cols, std::vector<double>(rows * cols), std::vector<double>(rows)};
  for (std::size_t i = 0; i < rows; ++i) {
    double dot = 0;
    for (std::size_t j = 0; j < cols; ++j) {
      d.x[i * cols + j] = 2.0 * slab::counter_uniform(12, i * cols + j) - 1.0;
      dot += d.x[i * cols + j] * (2.0 * slab::counter_uniform(13, j) - 1.0);
    }
    d.y[i] = dot + 0.1 * (2.0 * slab::counter_uniform(14, i) - 1.0);
  }
  return d;
}

/// sum_f ||X_f w_f - y_f||^2 / n with w_f from dgels on the augmented training matrix.
double reference_cv(const Data& d, double alpha, std::size_t folds) {
  const std::size_t n = d.rows, p = d.cols;
  double total = 0;
  for (std::size_t f = 0; f < folds; ++f) {
    const std::size_t lo = f * n / folds, hi = (f + 1) * n / folds, mt = n - (hi - lo), m = mt + p;
    std::vector<double> a(m * p, 0.0), b(m, 0.0);  // column-major
    std::size_t r = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (i >= lo && i < hi) continue;
      for (std::size_t j = 0; j < p; ++j) a[j * m + r] = d.x[i * p + j];
      b[r++] = d.y[i];
    }
    for (std::size_t j = 0; j < p; ++j) a[j * m + mt + j] = std::sqrt(alpha);
    const int mi = int(m), pi = int(p), one = 1;
    int info = 0, lwork = -1;
    double q = 0;
    dgels_("N", &mi, &pi, &one, a.data(), &mi, b.data(), &mi, &q, &lwork, &info, 1);
    lwork = int(q);
    std::vector<double> work(static_cast<std::size_t>(lwork));
    dgels_("N", &mi, &pi, &one, a.data(), &mi, b.data(), &mi, work.data(), &lwork, &info, 1);
    EXPECT_EQ(info, 0);
    for (std::size_t i = lo; i < hi; ++i) {
      double e = -d.y[i];
      for (std::size_t j = 0; j < p; ++j) e += d.x[i * p + j] * b[j];
      total += e * e;
    }
  }
  return total / double(n);
}

/// This rank's block of a block-row split (or, with `all_on_first`, every row on rank 0 and none elsewhere).
std::pair<std::size_t, std::size_t> my_rows(std::size_t rows, bool all_on_first) {
  int r = 0, p = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (all_on_first) return r == 0 ? std::pair{std::size_t(0), rows} : std::pair{rows, std::size_t(0)};
  const std::size_t row0 = rows * std::size_t(r) / std::size_t(p);
  return {row0, rows * std::size_t(r + 1) / std::size_t(p) - row0};
}

void expect_matches_reference(std::size_t rows, std::size_t cols, std::size_t folds, bool all_on_first) {
  slab::Comm comm(MPI_COMM_WORLD);
  const Data d = make_data(rows, cols);
  const auto [row0, local] = my_rows(rows, all_on_first);
  const slab::linalg::RidgeCv model(comm, d.x.data() + row0 * cols, d.y.data() + row0, local, row0, rows, cols, folds);
  for (double alpha : {0.0, 1e-3, 0.37, 10.0, 1e3}) {
    if (alpha == 0.0 && rows - rows / folds - 1 < cols) continue;  // unregularised needs full column rank
    const double ref = reference_cv(d, alpha, folds), got = model.cv_error(alpha);
    EXPECT_NEAR(got, ref, 1e-11 * ref) << "alpha " << alpha << " rows " << rows << " cols " << cols;
    // The from-scratch path (slab-sweep --refit) on all rows.
    const double refit = slab::linalg::ridge_cv_error_refit(d.x.data(), d.y.data(), rows, cols, folds, alpha);
    EXPECT_NEAR(refit, ref, 1e-11 * ref) << "refit, alpha " << alpha;
  }
}

}  // namespace

TEST(RidgeCv, MatchesSerialLapackReference) { expect_matches_reference(203, 6, 5, false); }

TEST(RidgeCv, FewerRowsPerFoldThanColumns) { expect_matches_reference(24, 9, 4, false); }

TEST(RidgeCv, RanksWithoutRows) { expect_matches_reference(57, 5, 3, true); }

TEST(RidgeCv, FitOnAllRowsSolvesTheNormalEquations) {
  slab::Comm comm(MPI_COMM_WORLD);
  const std::size_t rows = 90, cols = 4;
  const Data d = make_data(rows, cols);
  const auto [row0, local] = my_rows(rows, false);
  const slab::linalg::RidgeCv model(comm, d.x.data() + row0 * cols, d.y.data() + row0, local, row0, rows, cols, 3);
  const double alpha = 2.5;
  const std::vector<double> w = model.fit(alpha, model.folds());
  // (X^T X + alpha I) w = X^T y
  for (std::size_t j = 0; j < cols; ++j) {
    double lhs = alpha * w[j], rhs = 0;
    for (std::size_t i = 0; i < rows; ++i) {
      double xw = 0;
      for (std::size_t k = 0; k < cols; ++k) xw += d.x[i * cols + k] * w[k];
      lhs += d.x[i * cols + j] * xw;
      rhs += d.x[i * cols + j] * d.y[i];
    }
    EXPECT_NEAR(lhs, rhs, 1e-10 * std::abs(rhs) + 1e-12);
  }
}

TEST(RidgeCv, SweptOverAGridEqualsTheReferenceInGridOrder) {
  slab::Comm comm(MPI_COMM_WORLD);
  const std::size_t rows = 160, cols = 5, tasks = 9;
  const Data d = make_data(rows, cols);
  const auto [row0, local] = my_rows(rows, false);
  const slab::linalg::RidgeCv model(comm, d.x.data() + row0 * cols, d.y.data() + row0, local, row0, rows, cols, 5);
  slab::Grid grid({"alpha"});
  for (std::size_t k = 0; k < tasks; ++k) grid.add({std::pow(10.0, -3.0 + 6.0 * double(k) / double(tasks - 1))});
  const auto table = slab::sweep(comm, grid, [&](const slab::SweepPoint& p) {
    return slab::SweepValues{{"err", model.cv_error(p["alpha"])}};
  });
  ASSERT_EQ(table.size(), tasks);
  for (std::size_t k = 0; k < tasks; ++k) {
    EXPECT_EQ(table.at(k, "alpha"), grid.point(k)[0]);
    const double ref = reference_cv(d, grid.point(k)[0], 5);
    EXPECT_NEAR(table.at(k, "err"), ref, 1e-11 * ref);
  }
}

TEST(RidgeCv, BadArgumentsThrowOnEveryRank) {
  slab::Comm comm(MPI_COMM_WORLD);
  const Data d = make_data(10, 2);
  const auto [row0, local] = my_rows(10, false);
  EXPECT_THROW(slab::linalg::RidgeCv(comm, d.x.data() + row0 * 2, d.y.data() + row0, local, row0, 10, 2, 11),
               slab::InvalidArgument);
  // Blocks that do not tile the rows (each rank claims one row too many).
  EXPECT_THROW(slab::linalg::RidgeCv(comm, d.x.data(), d.y.data(), local + 1, row0, 10 + 0, 2, 2),
               slab::InvalidArgument);
  const slab::linalg::RidgeCv model(comm, d.x.data() + row0 * 2, d.y.data() + row0, local, row0, 10, 2, 2);
  EXPECT_THROW((void)model.cv_error(-1.0), slab::InvalidArgument);
}
