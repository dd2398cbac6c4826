#pragma once
/// @file linalg.hpp
/// @brief Distributed dense linear algebra on slab::Array<double>: matmul with a replicated matrix, A^T B,
/// matrix-vector, TSQR (R, explicit Q), SVD via TSQR (truncated; wide or column-split matrices through the
/// transpose or a resplit), randomized SVD / PCA and least squares. BLAS/LAPACK on host memory, cuBLAS/cuSOLVER
/// when the memory manager's device tier is a GPU. The product of two distributed arrays is matmul.hpp's.
///
/// Every function is called on every rank in the same order with the same global arguments (SPMD). Argument
/// errors are decided from global shapes only, so every rank throws the same ShapeError/InvalidArgument
/// (naming the operation and the shapes) together, before any communication. Functions marked lazy only
/// record tasks; the others are collective and run the graph they need.

#include <cstdint>
#include <functional>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "slab/array/array.hpp"
#include "slab/array/creation.hpp"
#include "slab/linalg/dense.hpp"

namespace slab::linalg {

/**
 * @brief A row-split matrix whose local chunks can be produced on demand, possibly more than once
 * (regenerated or re-read): what lets the SVD stream A in two passes under a memory limit. chunk(i) returns
 * a task handle whose output is the row-major block of layout.chunk_extent(rank, i). (slab::random_uniform_source
 * makes one on the device.)
 */
using RowSource = slab::ChunkSource;
/// @brief The source reading an array's own chunks (held by the array: computed once). Not collective.
/// @throws ShapeError when the array is not 2-D split by rows.
[[nodiscard]] RowSource row_source(const Array<double>& a, const char* op = "linalg");

/// @brief C = A B, A row-split (m x k), B replicated (k x n row-major, on every rank): one dgemm per chunk.
/// Lazy. @throws ShapeError when b.size() != k * n.
[[nodiscard]] Array<double> matmul(const Array<double>& a, std::span<const double> b, std::int64_t n);
/// @brief y = A x, x replicated (length A.cols()); y is 1-D, split like A's rows. Lazy.
[[nodiscard]] Array<double> matvec(const Array<double>& a, std::span<const double> x);
/**
 * @brief A^T B (a.cols() x b.cols(), replicated, row-major) of two row-split arrays with the same rows
 * distribution: a partial product per chunk, summed by the queue's streaming reduce, then a fixed-tree
 * reduction across ranks (bitwise reproducible at a given rank count). Collective.
 * @throws ShapeError when the row counts or row blocks differ.
 */
[[nodiscard]] std::vector<double> at_b(const Array<double>& a, const Array<double>& b);

/// @brief R (n x n, diag >= 0, replicated) of A = QR by TSQR over chunks then ranks; a column-split or replicated
/// A is resplit by rows first. A wide A (m < n) gives R m x n, upper trapezoidal (see tsqr). Collective.
/// @throws ShapeError when A has no columns, or no rows.
[[nodiscard]] std::vector<double> tsqr_r(const Array<double>& a);
/// @brief tsqr_r on a RowSource (each chunk produced once, streamed: one chunk resident at a time). Collective.
[[nodiscard]] std::vector<double> tsqr_r(Engine& engine, const RowSource& a);

/// Result of tsqr(): NumPy's qr(a, mode="reduced") with k = min(m, n).
struct QrResult {
  Array<double> q;        ///< m x k, orthonormal columns, split by rows (like A when A is row-split)
  std::vector<double> r;  ///< k x n upper triangular (trapezoidal when wide), diag >= 0, replicated
};
/**
 * @brief Explicit QR. Tall A (m >= n): TSQR, a local QR of the rank's stacked chunks, a binomial tree of 2n x n
 * QRs, Q formed back down the tree; a column-split or replicated A is resplit by rows first (one alltoallv).
 * Wide A (m < n): Q (m x m) is the orthogonal factor of A's first m columns (a Householder QR on rank 0 of that
 * small block, broadcast) and R = Q^T A (m x n, by at_b), as LAPACK's Householder QR of the whole matrix finds
 * Q from those columns. Collective. @throws ShapeError when A has no columns, or no rows.
 */
[[nodiscard]] QrResult tsqr(const Array<double>& a);

/// Result of svd() / randomized_svd(). Tuple-like over (u, s, vt), so `auto [u, s, vt] = svd(a);` works
/// (explicit_q stays a member only).
struct SvdResult {
  Array<double> u;          ///< m x k, split by rows (like A when A is row-split and tall)
  std::vector<double> s;    ///< k, descending
  std::vector<double> vt;   ///< k x n, replicated
  bool explicit_q = false;  ///< U came from an explicit Q (A ill-conditioned in its first k directions)
  /// V (n x k) split by rows, the distributed form of vt^T: set for a wide A (where n is the long side), the U of
  /// A^T's SVD; an empty handle for a tall A (vt is small there).
  Array<double> v;

  /// get<0> = u, get<1> = s, get<2> = vt (the structured binding's protocol).
  template <std::size_t I>
  [[nodiscard]] auto& get() & {
    return member<I>(*this);
  }
  template <std::size_t I>
  [[nodiscard]] const auto& get() const& {
    return member<I>(*this);
  }
  template <std::size_t I>
  [[nodiscard]] auto&& get() && {
    return std::move(member<I>(*this));
  }

 private:
  template <std::size_t I, class R>
  static auto& member(R& r) {
    static_assert(I < 3, "SvdResult has three parts: u, s, vt");
    if constexpr (I == 0)
      return r.u;
    else if constexpr (I == 1)
      return r.s;
    else
      return r.vt;
  }
};
/// How svd() finds R.
enum class QrMethod {
  householder,  ///< Householder TSQR: dgeqrt per chunk, triangle-on-triangle dtpqrt combines, tree over ranks
  cholesky,     ///< R = chol(sum of chunk Grams) per rank (dsyrk), then the same tree; falls back to Householder
                ///< only when a Gram is not positive definite
  automatic,    ///< cholesky, verified: Householder when cond(R) > 1e5 or some rank holds fewer than n rows
};

/**
 * @brief Thin SVD via TSQR: R (see QrMethod), R = U_r S V^T (dgesdd on rank 0, broadcast), then
 * U = A V_k S_k^-1, one dgemm per chunk (a second pass over A), when s_k / s_1 >= 1e-4; else U = Q U_r[:, :k]
 * from an explicit Householder TSQR. k = 0 keeps all min(m, n). A column-split or replicated tall A is resplit by
 * rows first. A wide A (m < n) goes through its transpose, as Dask's svd does for short-and-fat arrays: the tall
 * A^T = U' S V'^T (A^T is transposed locally when A is column-split, resplit by rows otherwise), so U = V' (m x k,
 * split by rows: its m rows are few), s, vt = U'^T (gathered to every rank: k n doubles each), and v = U' (n x k,
 * split by rows). Collective; U is computed lazily in the first case of a tall A.
 * @throws InvalidArgument when k > min(m, n) or k < 0; ShapeError when A has no rows or no columns.
 */
[[nodiscard]] SvdResult svd(const Array<double>& a, std::int64_t k = 0, QrMethod method = QrMethod::automatic);
/// @brief svd() streaming A from `a`: once for R, once for U (the explicit-Q fallback needs the rank's chunks
/// at once; a Cholesky R rejected by the check costs one more pass). Collective.
[[nodiscard]] SvdResult svd(Engine& engine, const RowSource& a, std::int64_t k = 0,
                            QrMethod method = QrMethod::automatic);

/// Options of randomized_svd().
struct RandomizedOptions {
  std::int64_t k = 10;           ///< singular triplets wanted
  std::int64_t oversample = 10;  ///< extra sketch columns p
  int power_iters = 2;           ///< q subspace iterations (each re-orthonormalised by TSQR)
  std::uint64_t seed = 77;       ///< Omega(i, j) = standard normal from counter streams (seed, i * l + j)
};
/**
 * @brief Randomized SVD (Halko-Martinsson-Tropp): Y = A Omega, q power iterations, Q = TSQR(Y), B = Q^T A,
 * small SVD of B, U = Q U_B. Collective. @throws InvalidArgument when k < 1 or k + p > min(m, n).
 */
[[nodiscard]] SvdResult randomized_svd(const Array<double>& a, const RandomizedOptions& options);

/**
 * @brief Least squares min ||A x - b|| by TSQR of [A b]: R x = Q^T b without forming Q. b is 1-D with A's
 * rows, split the same way. Returns x (A.cols(), replicated). Collective.
 * @throws ShapeError on mismatched rows; InvalidArgument when R is singular (rank deficient A).
 */
[[nodiscard]] std::vector<double> lstsq(const Array<double>& a, const Array<double>& b);

}  // namespace slab::linalg

template <>
struct std::tuple_size<slab::linalg::SvdResult> : std::integral_constant<std::size_t, 3> {};
template <>
struct std::tuple_element<0, slab::linalg::SvdResult> {
  using type = slab::Array<double>;
};
template <>
struct std::tuple_element<1, slab::linalg::SvdResult> {
  using type = std::vector<double>;
};
template <>
struct std::tuple_element<2, slab::linalg::SvdResult> {
  using type = std::vector<double>;
};
