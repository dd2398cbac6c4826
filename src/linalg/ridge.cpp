// Ridge regression with k-fold cross-validation from per-fold QR factors (see ridge.hpp for why it is exact).
#include "slab/linalg/ridge.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "slab/core/error.hpp"
#include "slab/linalg/dense.hpp"

namespace slab::linalg {

RidgeCv::RidgeCv(const Comm& comm, const double* x, const double* y, std::size_t local_rows, std::size_t row0,
                 std::size_t rows, std::size_t cols, std::size_t folds)
    : rows_(rows), cols_(cols) {
  // Global arguments first (the same on every rank, so every rank throws together), then the tiling.
  SLAB_EXPECTS(
      folds >= 2 && folds <= rows, InvalidArgument,
      "RidgeCv: " + std::to_string(folds) + " folds of " + std::to_string(rows) + " rows (need 2 <= folds <= rows)");
  SLAB_EXPECTS(cols > 0, InvalidArgument, "RidgeCv: X has no columns");
  const std::uint64_t mine[2] = {local_rows, row0 + local_rows <= rows ? 0u : 1u};
  std::uint64_t sums[2] = {mine[0], mine[1]};
  comm.allreduce(std::span<std::uint64_t>(sums, 2), ReduceOp::sum);
  comm.agree(sums[0] == rows && sums[1] == 0, "RidgeCv: the ranks' row blocks (" + std::to_string(sums[0]) +
                                                  " rows in all, this rank [" + std::to_string(row0) + ", " +
                                                  std::to_string(row0 + local_rows) + ")) do not tile [0, " +
                                                  std::to_string(rows) + ")");

  const std::size_t n = cols + 1;  // [X y]
  // Each rank's local factor of every fold, stacked, then one reduction tree for all folds together (one
  // round of messages instead of one per fold).
  std::vector<double> factors(folds * n * n, 0.0), block;
  for (std::size_t f = 0; f < folds; ++f) {
    const std::size_t lo = std::max(row0, f * rows / folds);
    const std::size_t hi = std::min(row0 + local_rows, (f + 1) * rows / folds);
    if (hi <= lo) continue;  // no rows of this fold here: a zero factor
    const std::size_t m = hi - lo;
    block.resize(m * n);
    for (std::size_t i = 0; i < m; ++i) {
      std::copy_n(x + (lo - row0 + i) * cols, cols, block.data() + i * n);
      block[i * n + cols] = y[lo - row0 + i];
    }
    local_qr_r(block.data(), m, n, factors.data() + f * n * n);
  }
  std::vector<std::byte> bytes(factors.size() * sizeof(double));
  std::memcpy(bytes.data(), factors.data(), bytes.size());
  comm.tree_allreduce_bytes(bytes, [&](std::vector<std::byte>& acc, const std::vector<std::byte>& other) {
    for (std::size_t f = 0; f < folds; ++f)
      combine_r(reinterpret_cast<double*>(acc.data()) + f * n * n,
                reinterpret_cast<const double*>(other.data()) + f * n * n, n);
  });
  fold_r_.resize(folds);
  for (std::size_t f = 0; f < folds; ++f) {
    fold_r_[f].resize(n * n);
    std::memcpy(fold_r_[f].data(), bytes.data() + f * n * n * sizeof(double), n * n * sizeof(double));
  }
  // The training factor of each fold (and of all rows): R of the other folds' stacked factors.
  train_r_.resize(folds + 1);
  for (std::size_t held = 0; held <= folds; ++held) {
    std::vector<double>& acc = train_r_[held];
    for (std::size_t g = 0; g < folds; ++g) {
      if (g == held) continue;
      if (acc.empty())
        acc = fold_r_[g];
      else
        combine_r(acc.data(), fold_r_[g].data(), n);
    }
  }
}

namespace {

void check_alpha(double alpha) {
  SLAB_EXPECTS(std::isfinite(alpha) && alpha >= 0, InvalidArgument,
               "ridge: alpha must be finite and >= 0, got " + std::to_string(alpha));
}

/// The ridge weights from r = R of the training [X y] ((cols+1)^2, consumed): the QR of
/// [R; diag(sqrt(alpha), ..., 0)] is the ridge problem's R with Q^T [y; 0] in its last column.
std::vector<double> solve_from_r(std::vector<double> r, std::size_t cols, double alpha) {
  const std::size_t n = cols + 1;
  std::vector<double> d(n * n, 0.0);
  const double s = std::sqrt(alpha);
  for (std::size_t i = 0; i < cols; ++i) d[i * n + i] = s;
  combine_r(r.data(), d.data(), n);
  std::vector<double> rxx(cols * cols), w(cols);
  for (std::size_t i = 0; i < cols; ++i) {
    std::copy_n(r.data() + i * n, cols, rxx.data() + i * cols);
    w[i] = r[i * n + cols];
    SLAB_EXPECTS(r[i * n + i] != 0.0 && std::isfinite(r[i * n + i]), Error,
                 "ridge: the training problem is singular (alpha " + std::to_string(alpha) + ")");
  }
  solve_upper(rxx.data(), cols, w.data());
  return w;
}

}  // namespace

std::vector<double> RidgeCv::fit(double alpha, std::size_t held_out) const {
  check_alpha(alpha);
  SLAB_EXPECTS(held_out <= folds(), InvalidArgument,
               "RidgeCv: fold " + std::to_string(held_out) + " of " + std::to_string(folds()));
  return solve_from_r(train_r_[held_out], cols_, alpha);
}

double ridge_cv_error_refit(const double* x, const double* y, std::size_t rows, std::size_t cols, std::size_t folds,
                            double alpha) {
  check_alpha(alpha);
  SLAB_EXPECTS(folds >= 2 && folds <= rows && cols > 0, InvalidArgument,
               "ridge_cv_error_refit: " + std::to_string(folds) + " folds of " + std::to_string(rows) + " x " +
                   std::to_string(cols));
  const std::size_t n = cols + 1;
  std::vector<double> train, r(n * n), res;
  double sum = 0;
  for (std::size_t f = 0; f < folds; ++f) {
    const std::size_t lo = f * rows / folds, hi = (f + 1) * rows / folds, m = rows - (hi - lo);
    train.resize(m * n);
    for (std::size_t i = 0, t = 0; i < rows; ++i) {
      if (i >= lo && i < hi) continue;
      std::copy_n(x + i * cols, cols, train.data() + t * n);
      train[t++ * n + cols] = y[i];
    }
    local_qr_r(train.data(), m, n, r.data());
    const std::vector<double> w = solve_from_r(r, cols, alpha);
    res.assign(y + lo, y + hi);  // X_f w - y_f
    cblas_dgemv(CblasRowMajor, CblasNoTrans, int(hi - lo), int(cols), 1.0, x + lo * cols, int(cols), w.data(), 1, -1.0,
                res.data(), 1);
    sum += cblas_ddot(int(res.size()), res.data(), 1, res.data(), 1);
  }
  return sum / double(rows);
}

double RidgeCv::fold_error(std::size_t fold, const std::vector<double>& w) const {
  SLAB_EXPECTS(fold < folds() && w.size() == cols_, InvalidArgument,
               "RidgeCv::fold_error: fold " + std::to_string(fold) + " of " + std::to_string(folds()) + ", " +
                   std::to_string(w.size()) + " weights for " + std::to_string(cols_) + " columns");
  const std::size_t n = cols_ + 1;
  std::vector<double> v(w), res(n);
  v.push_back(-1.0);
  // ||[X_f y_f] [w; -1]||^2 = ||R_f [w; -1]||^2
  cblas_dgemv(CblasRowMajor, CblasNoTrans, int(n), int(n), 1.0, fold_r_[fold].data(), int(n), v.data(), 1, 0.0,
              res.data(), 1);
  return cblas_ddot(int(n), res.data(), 1, res.data(), 1);
}

double RidgeCv::cv_error(double alpha) const {
  double sum = 0;
  for (std::size_t f = 0; f < folds(); ++f) sum += fold_error(f, fit(alpha, f));
  return sum / double(rows_);
}

}  // namespace slab::linalg
