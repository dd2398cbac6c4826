#pragma once
/// @file dense.hpp
/// @brief Dense kernels on raw row-major blocks (pointer + rows + cols) and a Comm: the building blocks of
/// slab's distributed linear algebra, usable directly by SPMD apps that hold their own local blocks.
///
/// Every matrix here is row-major and dense (leading dimension = cols). "Local" functions are not
/// collective; functions taking a Comm are collective over it (call them on every rank in the same order
/// with the same global arguments). Host BLAS/LAPACK only: the task-queue layer (linalg.hpp) routes device
/// buffers to cuBLAS/cuSOLVER.

#include <cstddef>
#include <vector>

#include "slab/comm/comm.hpp"

namespace slab::linalg {

/// @brief C (m x n) = A (m x k) B (k x n), local dgemm. Not collective.
void local_matmul(const double* a, std::size_t m, std::size_t k, const double* b, std::size_t n, double* c);

/**
 * @brief The n x n factor R of a local QR of A (m x n): upper triangular when m >= n; when m < n (fewer rows
 * than columns), A padded with zero rows (a valid stacked factor for a TSQR tree, not triangular). Signs not
 * normalised. Not collective.
 */
void local_qr_r(const double* a, std::size_t m, std::size_t n, double* r);

/**
 * @brief R (n x n, upper, signs not normalised) and the explicit Q (m x n, orthonormal columns) of a local QR of A
 * (m x n, m >= n): A = Q R. Not collective. @throws ShapeError when m < n.
 */
void local_qr_explicit(const double* a, std::size_t m, std::size_t n, double* r, double* q);

/// @brief acc <- R of the 2n x n QR of [acc; other] (both n x n). The TSQR combine. Not collective.
void combine_r(double* acc, const double* other, std::size_t n);

/**
 * @brief TSQR reduction tree over the ranks of `comm` (fixed binomial tree rooted at rank 0; any rank count):
 * each rank gives its n x n local factor, every rank gets the same R of the stacked matrix, sign-normalised
 * so diag(R) >= 0. With `tree_q` non-null, also returns this rank's n x n block C of the tree's Q (times the
 * sign matrix): the explicit Q of the whole matrix is diag(Q_local) [C_0; C_1; ...]. Collective.
 */
std::vector<double> tree_r(const Comm& comm, std::vector<double> r_local, std::size_t n,
                           std::vector<double>* tree_q = nullptr);

/**
 * @brief TSQR of the row-split matrix whose local rows are `a` (rows x n; rows may be 0 or < n on some ranks):
 * returns R (n x n, diag >= 0, identical on every rank); when `q` is non-null writes this rank's rows of the
 * explicit Q (rows x n, orthonormal columns overall). Collective.
 * @throws ShapeError (every rank) when the global row count is below n (not tall-skinny).
 */
std::vector<double> tsqr(const Comm& comm, const double* a, std::size_t rows, std::size_t n, double* q);

/// Small SVD of a replicated n x n (or k x n) matrix: M = U diag(s) VT.
struct SmallSvd {
  std::vector<double> u;   ///< m x min(m, n), row-major
  std::vector<double> s;   ///< min(m, n), descending
  std::vector<double> vt;  ///< min(m, n) x n, row-major
};
/// @brief dgesdd of an m x n row-major matrix. Not collective. @throws Error when LAPACK fails to converge.
SmallSvd small_svd(const double* m, std::size_t rows, std::size_t cols);
/// @brief small_svd on rank 0, broadcast: every rank gets bitwise the same factors. Collective.
SmallSvd small_svd_bcast(const Comm& comm, const double* m, std::size_t rows, std::size_t cols);

/// @brief G (upper triangle, row-major n x n) = A^T A (+ G when accumulate), dsyrk. Not collective.
void local_gram(const double* a, std::size_t m, std::size_t n, double* g, bool accumulate);
/// @brief In place: the Gram G (upper triangle read) becomes R (upper, diag > 0) with R^T R = G, by Cholesky.
/// Returns false when G is not numerically positive definite. Not collective.
bool cholesky_r(double* g, std::size_t n);

/// @brief Replace A (m x n row-major, m >= n) by the Q of its QR (orthonormal columns). Not collective.
void local_orthonormalize(double* a, std::size_t m, std::size_t n);

/// @brief Solve R x = y in place (R upper triangular n x n row-major). Not collective.
void solve_upper(const double* r, std::size_t n, double* y);

}  // namespace slab::linalg
