#include "slab/linalg/pca.hpp"
#include "slab/array/creation.hpp"
#include "slab/array/elementwise.hpp"
#include "slab/array/reduction.hpp"
#include "slab/array/slicing.hpp"

#include <cblas.h>

#include <cmath>
#include <numeric>
#include <string>

#include "slab/core/error.hpp"

namespace slab::linalg {

namespace {
std::string shape(const Array<double>& a) {
  return "(" + std::to_string(a.rows()) + ", " + std::to_string(a.cols()) + ")";
}
}  // namespace

std::vector<double> apply_qt(const Array<double>& a, std::span<const double> r, const Array<double>& b) {
  const std::int64_t n = a.cols();
  SLAB_EXPECTS(
      static_cast<std::int64_t>(r.size()) == n * n, ShapeError,
      "apply_qt: R has " + std::to_string(r.size()) + " entries; A " + shape(a) + " needs " + std::to_string(n * n));
  std::vector<double> y = at_b(a, b);  // checks rows and distribution; n x p
  const std::int64_t p = b.cols();
  // R^T Y = A^T B: one triangular solve, identical on every rank.
  cblas_dtrsm(CblasRowMajor, CblasLeft, CblasUpper, CblasTrans, CblasNonUnit, int(n), int(p), 1.0, r.data(), int(n),
              y.data(), int(p));
  return y;
}

Array<double> apply_q(const Array<double>& a, std::span<const double> r, std::span<const double> x, std::int64_t p) {
  const std::int64_t n = a.cols();
  SLAB_EXPECTS(static_cast<std::int64_t>(r.size()) == n * n && static_cast<std::int64_t>(x.size()) == n * p, ShapeError,
               "apply_q: A " + shape(a) + " needs R of " + std::to_string(n * n) + " and X of " +
                   std::to_string(n * p) + " entries; got " + std::to_string(r.size()) + " and " +
                   std::to_string(x.size()));
  std::vector<double> rinv_x(x.begin(), x.end());
  cblas_dtrsm(CblasRowMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, int(n), int(p), 1.0, r.data(), int(n),
              rinv_x.data(), int(p));
  return matmul(a, rinv_x, p);
}

PcaResult pca(const Array<double>& a, std::int64_t k, bool randomized, RandomizedOptions options) {
  SLAB_EXPECTS(a.ndim() == 2 && a.split() == Split::rows, ShapeError,
               "pca: A " + shape(a) + " must be a 2-D array split by rows");
  const std::int64_t m = a.rows(), n = a.cols();
  SLAB_EXPECTS(k >= 1 && k <= std::min(m, n), InvalidArgument,
               "pca: k = " + std::to_string(k) + " is outside [1, min(m, n) = " + std::to_string(std::min(m, n)) +
                   "] for A " + shape(a));
  PcaResult out;
  out.mean = mean(a, 0).gather_all();
  const Array<double> row =
      Array<double>::from_local_blocks(a.engine(), Shape{1, n}, Split::none, std::vector<double>(out.mean));
  Array<double> centred = a - row;
  centred.persist();
  // Total variance: the squared Frobenius norm of the centred matrix over m - 1.
  const double total = std::pow(norm(centred), 2) / double(m - 1);
  SvdResult s;
  if (randomized) {
    options.k = k;
    s = randomized_svd(centred, options);
  } else {
    s = svd(centred, k);
  }
  const std::size_t kk = s.s.size();
  out.components = std::move(s.vt);
  out.explained_variance.resize(kk);
  out.explained_variance_ratio.resize(kk);
  for (std::size_t i = 0; i < kk; ++i) {
    out.explained_variance[i] = s.s[i] * s.s[i] / double(m - 1);
    out.explained_variance_ratio[i] = total > 0 ? out.explained_variance[i] / total : 0.0;
  }
  std::vector<double> diag(kk * kk, 0.0);
  for (std::size_t i = 0; i < kk; ++i) diag[i * kk + i] = s.s[i];
  out.scores = matmul(s.u, diag, static_cast<std::int64_t>(kk));
  return out;
}

}  // namespace slab::linalg
