#pragma once
/// @file pca.hpp
/// @brief Q of a TSQR applied without forming it, and principal component analysis.

#include <cstdint>
#include <span>
#include <vector>

#include "slab/array/array.hpp"
#include "slab/linalg/linalg.hpp"

namespace slab::linalg {

/**
 * @brief Q^T B for A = Q R (R from tsqr_r(a)) without forming Q: R^-T (A^T B), with B row-split like A.
 * Returns the n x p product (row-major, replicated). Accurate while A is well conditioned (the error grows
 * with cond(A)); use tsqr() for an explicit Q otherwise. Collective.
 * @throws ShapeError when the shapes or row distributions differ.
 */
[[nodiscard]] std::vector<double> apply_qt(const Array<double>& a, std::span<const double> r, const Array<double>& b);

/**
 * @brief Q X for A = Q R without forming Q: A (R^-1 X), X replicated (n x p, row-major). Row-split like A.
 * Lazy (the small triangular solve runs now, on every rank identically).
 * @throws ShapeError when r or x does not fit A.
 */
[[nodiscard]] Array<double> apply_q(const Array<double>& a, std::span<const double> r, std::span<const double> x,
                                    std::int64_t p);

/// Result of pca().
struct PcaResult {
  std::vector<double> components;                ///< k x n, the principal axes (rows of V^T), replicated
  std::vector<double> explained_variance;        ///< k, s^2 / (m - 1)
  std::vector<double> explained_variance_ratio;  ///< k, of the total variance
  std::vector<double> mean;                      ///< n, the column means removed
  Array<double> scores;                          ///< m x k, U S, split like A
};

/**
 * @brief PCA of the rows of A (observations x features), like scikit-learn's PCA: columns centred, then the
 * SVD of the centred matrix (TSQR, or randomized when `randomized`), k components. The centred matrix is
 * persisted once (one extra copy of A). Collective.
 * @throws InvalidArgument when k < 1 or k > min(m, n); ShapeError when A is not 2-D split by rows.
 */
[[nodiscard]] PcaResult pca(const Array<double>& a, std::int64_t k, bool randomized = false,
                            RandomizedOptions options = {});

}  // namespace slab::linalg
