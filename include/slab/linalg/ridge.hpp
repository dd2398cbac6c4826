#pragma once
/// @file ridge.hpp
/// @brief Ridge regression with k-fold cross-validation on row-distributed data (W7 of WORKLOADS.md), by QR:
/// every fold's rows are reduced once to the triangular factor R_f of [X_f y_f] (TSQR over the ranks), after
/// which a fit for any alpha and any held-out fold is a (p+1) x (p+1) problem any rank can solve alone.
///
/// Why this is exact: for any Q with orthonormal columns, ||[X y] [w; -1]|| = ||R [w; -1]||, so
///   * the training rows of fold f are represented by R_train(f) = R of the stacked R_g, g != f;
///   * the ridge least-squares problem on [X_train; sqrt(alpha) I], [y_train; 0] is the QR of
///     [R_train(f); diag(sqrt(alpha), ..., sqrt(alpha), 0)], whose last column is the transformed right-hand
///     side (no normal equations: the condition number is not squared);
///   * the held-out error ||X_f w - y_f||^2 = ||R_f [w; -1]||^2.

#include <cstddef>
#include <vector>

#include "slab/comm/comm.hpp"

namespace slab::linalg {

/**
 * @brief The fold factors of a data set (X: rows x cols, y: rows) split into `folds` contiguous folds,
 * fold f = global rows [f*rows/folds, (f+1)*rows/folds). After construction every method is local (not
 * collective), const and thread-safe, so a sweep can call cv_error() for different alphas on any rank in
 * any order.
 */
class RidgeCv {
 public:
  /**
   * @brief Factor the folds. Collective over `comm`: each rank passes its contiguous block of global rows
   * [row0, row0 + local_rows) (row-major x with `cols` columns, and y), blocks in rank order covering all
   * `rows` rows; ranks may hold no rows. `rows`, `cols` and `folds` are the same on every rank.
   * @throws InvalidArgument (every rank) when folds < 2 or folds > rows, cols == 0, or the blocks do not
   * tile [0, rows).
   */
  RidgeCv(const Comm& comm, const double* x, const double* y, std::size_t local_rows, std::size_t row0,
          std::size_t rows, std::size_t cols, std::size_t folds);

  /// @brief The cross-validation error sum_f ||X_f w_f - y_f||^2 / rows, w_f fit without fold f. Not
  /// collective. @throws InvalidArgument when alpha < 0 or not finite.
  [[nodiscard]] double cv_error(double alpha) const;

  /**
   * @brief The ridge weights (cols values) minimising ||X_t w - y_t||^2 + alpha ||w||^2 over the training
   * rows t: every fold except `held_out`, or all rows when held_out == folds(). Not collective.
   * @throws InvalidArgument when alpha < 0 or not finite, or held_out > folds(); Error when the training
   * problem is singular (alpha == 0 and rank-deficient X).
   */
  [[nodiscard]] std::vector<double> fit(double alpha, std::size_t held_out) const;

  /// @brief ||X_f w - y_f||^2 over fold f's rows for weights w (cols values). Not collective.
  [[nodiscard]] double fold_error(std::size_t fold, const std::vector<double>& w) const;

  [[nodiscard]] std::size_t rows() const noexcept { return rows_; }
  [[nodiscard]] std::size_t cols() const noexcept { return cols_; }
  [[nodiscard]] std::size_t folds() const noexcept { return fold_r_.size(); }
  /// @brief First global row of fold f (f == folds(): rows()). Not collective.
  [[nodiscard]] std::size_t fold_begin(std::size_t f) const noexcept { return f * rows_ / folds(); }

 private:
  std::size_t rows_, cols_;
  std::vector<std::vector<double>> fold_r_;   // (cols+1)^2, row-major: R of [X_f y_f]
  std::vector<std::vector<double>> train_r_;  // R of the training rows of fold f; [folds]: all rows
};

/**
 * @brief W7's task the way a joblib user computes it, from scratch each time (the baseline RidgeCv improves on):
 * for each fold, the QR of the training rows [X_t y_t], then of [R; sqrt(alpha) I], then ||X_f w - y_f||^2 from
 * the held-out rows; returns the sum over folds / rows. Not collective: x (rows x cols, row-major) and y hold
 * every row. @throws InvalidArgument for a bad alpha or folds outside [2, rows].
 */
[[nodiscard]] double ridge_cv_error_refit(const double* x, const double* y, std::size_t rows, std::size_t cols,
                                          std::size_t folds, double alpha);

}  // namespace slab::linalg
