// Host kernels on row-major blocks. LAPACK is column-major: a row-major m x n block is the column-major
// n x m transpose, so QRs work on a column-major copy (blocked transpose) with dgeqrt (recursive panels,
// measurably faster than dgeqrf/dgelqf with OpenBLAS on tall-skinny blocks).
#include "slab/linalg/dense.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "linalg/lapack.hpp"
#include "slab/core/error.hpp"
#include "slab/core/fault.hpp"
#include "slab/trace/tracer.hpp"

namespace slab::linalg {
namespace {

constexpr int tree_tag_r = 7301;
constexpr int tree_tag_q = 7302;

void lapack_try(int info, const char* what) {
  if (info != 0)
    SLAB_FAIL(Error, std::string("linalg: LAPACK ") + what + " failed (info " + std::to_string(info) + ")");
}

// w (column-major, ld = m) = row-major a (m x n), in cache blocks.
void to_colmajor(const double* a, std::size_t m, std::size_t n, double* w) {
  constexpr std::size_t b = 64;
  for (std::size_t i0 = 0; i0 < m; i0 += b)
    for (std::size_t j0 = 0; j0 < n; j0 += b) {
      const std::size_t i1 = std::min(m, i0 + b), j1 = std::min(n, j0 + b);
      for (std::size_t j = j0; j < j1; ++j)
        for (std::size_t i = i0; i < i1; ++i) w[i + j * m] = a[i * n + j];
    }
}
void to_rowmajor(const double* w, std::size_t m, std::size_t n, double* a) {
  constexpr std::size_t b = 64;
  for (std::size_t i0 = 0; i0 < m; i0 += b)
    for (std::size_t j0 = 0; j0 < n; j0 += b) {
      const std::size_t i1 = std::min(m, i0 + b), j1 = std::min(n, j0 + b);
      for (std::size_t i = i0; i < i1; ++i)
        for (std::size_t j = j0; j < j1; ++j) a[i * n + j] = w[i + j * m];
    }
}

std::size_t block_nb(std::size_t n) { return std::max<std::size_t>(1, std::min<std::size_t>(64, n)); }

// dgeqrt on column-major w (m x n, m >= n); T is nb x n.
void geqrt(double* w, std::size_t m, std::size_t n, std::vector<double>& t) {
  const std::size_t nb = block_nb(n);
  t.resize(nb * n);
  const int mi = int(m), ni = int(n), nbi = int(nb);
  std::vector<double> work(nb * n);
  int info = 0;
  dgeqrt_(&mi, &ni, &nbi, w, &mi, t.data(), &nbi, work.data(), &info);
  lapack_try(info, "dgeqrt");
}

// Row-major upper triangle R (n x n) from the column-major factored w (ld m).
void extract_r(const double* w, std::size_t m, std::size_t n, double* r) {
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) r[i * n + j] = j >= i ? w[i + j * m] : 0.0;
}

// Explicit Q (m x n row-major) = Qhat [C; 0] from a dgeqrt factorisation (w, t), C n x n row-major.
void apply_q(const double* w, const std::vector<double>& t, std::size_t m, std::size_t n, const double* c, double* q) {
  std::vector<double> x(m * n, 0.0);  // column-major [C; 0]
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) x[i + j * m] = c[i * n + j];
  const std::size_t nb = block_nb(n);
  const int mi = int(m), ni = int(n), nbi = int(nb);
  std::vector<double> work(n * nb);
  int info = 0;
  dgemqrt_("L", "N", &mi, &ni, &ni, &nbi, w, &mi, t.data(), &nbi, x.data(), &mi, work.data(), &info, 1, 1);
  lapack_try(info, "dgemqrt");
  to_rowmajor(x.data(), m, n, q);
}

// QR of the stacked [top; bottom] (2n x n); returns the factored w and t.
void stacked_qr(const double* top, const double* bottom, std::size_t n, std::vector<double>& w,
                std::vector<double>& t) {
  const std::size_t m = 2 * n;
  w.resize(m * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      w[i + j * m] = top[i * n + j];
      w[n + i + j * m] = bottom[i * n + j];
    }
  geqrt(w.data(), m, n, t);
}

}  // namespace

void local_matmul(const double* a, std::size_t m, std::size_t k, const double* b, std::size_t n, double* c) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    std::fill(c, c + m * n, 0.0);
    return;
  }
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(m), int(n), int(k), 1.0, a, int(k), b, int(n), 0.0, c,
              int(n));
}

void local_qr_r(const double* a, std::size_t m, std::size_t n, double* r) {
  if (m < n) {  // pad with zero rows: [A; 0] is its own stacked factor
    std::memcpy(r, a, m * n * sizeof(double));
    std::fill(r + m * n, r + n * n, 0.0);
    return;
  }
  std::vector<double> w(m * n), t;
  to_colmajor(a, m, n, w.data());
  geqrt(w.data(), m, n, t);
  extract_r(w.data(), m, n, r);
}

void local_qr_explicit(const double* a, std::size_t m, std::size_t n, double* r, double* q) {
  SLAB_EXPECTS(m >= n, ShapeError,
               "linalg::local_qr_explicit: A (" + std::to_string(m) + ", " + std::to_string(n) +
                   ") has fewer rows than columns");
  if (n == 0) return;
  std::vector<double> w(m * n), t, identity(n * n, 0.0);
  to_colmajor(a, m, n, w.data());
  geqrt(w.data(), m, n, t);
  extract_r(w.data(), m, n, r);
  for (std::size_t i = 0; i < n; ++i) identity[i * n + i] = 1.0;
  apply_q(w.data(), t, m, n, identity.data(), q);
}

namespace {
bool upper_triangular(const double* r, std::size_t n) {
  for (std::size_t i = 1; i < n; ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (r[i * n + j] != 0.0) return false;
  return true;
}
}  // namespace

void combine_r(double* acc, const double* other, std::size_t n) {
  if (!upper_triangular(acc, n) || !upper_triangular(other, n)) {  // a zero-padded factor: general 2n x n QR
    std::vector<double> w, t;
    stacked_qr(acc, other, n, w, t);
    extract_r(w.data(), 2 * n, n, acc);
    return;
  }
  // Triangle on triangle: dtpqrt exploits both (about 3x fewer flops than a 2n x n QR).
  std::vector<double> a(n * n), b(n * n);
  to_colmajor(acc, n, n, a.data());
  to_colmajor(other, n, n, b.data());
  const std::size_t nb = block_nb(n);
  std::vector<double> t(nb * n), work(nb * n);
  const int ni = int(n), nbi = int(nb);
  int info = 0;
  dtpqrt_(&ni, &ni, &ni, &nbi, a.data(), &ni, b.data(), &ni, t.data(), &nbi, work.data(), &info);
  lapack_try(info, "dtpqrt");
  extract_r(a.data(), n, n, acc);
}

std::vector<double> tree_r(const Comm& comm, std::vector<double> r, std::size_t n, std::vector<double>* tree_q) {
  const int rank = comm.rank(), size = comm.size();
  SLAB_EXPECTS(
      r.size() == n * n, ShapeError,
      "linalg::tree_r: local factor has " + std::to_string(r.size()) + " values, expected " + std::to_string(n * n));
  struct Level {
    int partner;
    std::vector<double> w, t;  // factored 2n x n stack (for Q)
  };
  std::vector<Level> levels;
  int parent = -1;
  // A level that fails here must not strand the ranks above it: a failed subtree's message carries a flag
  // (its last value) in place of a factor, the tree runs to the end, and then every rank agrees on the error.
  std::exception_ptr error;
  bool failed = false;
  std::vector<double> other(n * n + 1);
  for (int s = 1; s < size; s *= 2) {
    try {
      SLAB_FAULT_POINT("tsqr_level");
    } catch (...) {
      error = std::current_exception();
      failed = true;
    }
    if (rank % (2 * s) == 0) {
      if (rank + s < size) {
        comm.recv(std::span<double>(other), rank + s, tree_tag_r);
        failed = failed || other[n * n] != 0.0;
        if (failed) continue;
        try {
          if (!tree_q) {
            combine_r(r.data(), other.data(), n);
            continue;
          }
          Level level{rank + s, {}, {}};
          stacked_qr(r.data(), other.data(), n, level.w, level.t);
          extract_r(level.w.data(), 2 * n, n, r.data());
          levels.push_back(std::move(level));
        } catch (...) {
          error = std::current_exception();
          failed = true;
        }
      }
    } else {
      parent = rank - s;
      r.push_back(failed ? 1.0 : 0.0);
      comm.send(std::span<const double>(r), parent, tree_tag_r);
      r.pop_back();
      break;
    }
  }
  comm.agree(error);  // only a rank whose own level threw reports; the others learn it here
  std::vector<double> sign(n, 1.0);
  if (rank == 0) {  // diag(R) >= 0: R <- D R, Q <- Q D
    for (std::size_t i = 0; i < n; ++i)
      if (r[i * n + i] < 0) {
        sign[i] = -1.0;
        for (std::size_t j = 0; j < n; ++j) r[i * n + j] = -r[i * n + j];
      }
  }
  comm.bcast(std::span<double>(r), 0);
  if (tree_q) {  // back down the tree: C of a node splits into its two children's blocks
    std::vector<double> c(n * n, 0.0), both(2 * n * n);
    if (rank == 0) {
      for (std::size_t i = 0; i < n; ++i) c[i * n + i] = sign[i];
    } else {
      comm.recv(std::span<double>(c), parent, tree_tag_q);
    }
    for (auto it = levels.rbegin(); it != levels.rend(); ++it) {
      apply_q(it->w.data(), it->t, 2 * n, n, c.data(), both.data());
      comm.send(std::span<const double>(both.data() + n * n, n * n), it->partner, tree_tag_q);
      std::memcpy(c.data(), both.data(), n * n * sizeof(double));
    }
    *tree_q = std::move(c);
  }
  return r;
}

}  // namespace slab::linalg

namespace slab::linalg {

std::vector<double> tsqr(const Comm& comm, const double* a, std::size_t rows, std::size_t n, double* q) {
  const auto total = comm.allreduce(static_cast<std::uint64_t>(rows), ReduceOp::sum);
  SLAB_EXPECTS(total >= n && n > 0, ShapeError,
               "linalg::tsqr: the matrix (" + std::to_string(total) + ", " + std::to_string(n) +
                   ") is not tall-skinny (rows must be >= cols >= 1)");
  std::vector<double> r(n * n), w, t;
  const bool factored = rows >= n;
  if (factored) {
    w.resize(rows * n);
    to_colmajor(a, rows, n, w.data());
    geqrt(w.data(), rows, n, t);
    extract_r(w.data(), rows, n, r.data());
  } else {
    local_qr_r(a, rows, n, r.data());
  }
  std::vector<double> c;
  r = tree_r(comm, std::move(r), n, q ? &c : nullptr);
  if (q) {
    if (factored)
      apply_q(w.data(), t, rows, n, c.data(), q);
    else  // Q_local = [I 0] C: the first rows of C
      std::memcpy(q, c.data(), rows * n * sizeof(double));
  }
  return r;
}

SmallSvd small_svd(const double* m, std::size_t rows, std::size_t cols) {
  const std::size_t k = std::min(rows, cols);
  SmallSvd out{std::vector<double>(rows * k), std::vector<double>(k), std::vector<double>(k * cols)};
  if (k == 0) return out;
  // Row-major M is column-major M^T = U' S VT', so M = VT'^T S U'^T: column-major VT' (k x rows) is M's U
  // in row-major, and column-major U' (cols x k) is M's VT in row-major.
  std::vector<double> a(m, m + rows * cols);
  const int r = int(cols), c = int(rows), ki = int(k);
  std::vector<int> iwork(8 * k);
  int info = 0, lwork = -1;
  double query = 0;
  dgesdd_("S", &r, &c, a.data(), &r, out.s.data(), out.vt.data(), &r, out.u.data(), &ki, &query, &lwork, iwork.data(),
          &info, 1);
  lwork = int(query);
  std::vector<double> work(std::size_t(std::max(1, lwork)));
  dgesdd_("S", &r, &c, a.data(), &r, out.s.data(), out.vt.data(), &r, out.u.data(), &ki, work.data(), &lwork,
          iwork.data(), &info, 1);
  lapack_try(info, "dgesdd");
  return out;
}

SmallSvd small_svd_bcast(const Comm& comm, const double* m, std::size_t rows, std::size_t cols) {
  const std::size_t k = std::min(rows, cols);
  SmallSvd out;
  std::exception_ptr error;
  if (comm.rank() == 0) {
    try {
      const Tracer::Scope traced(comm.tracer(), "small_svd", TraceKind::compute);  // rank 0's own step
      out = small_svd(m, rows, cols);
    } catch (...) {
      error = std::current_exception();
    }
  }
  comm.agree(error);
  out.u.resize(rows * k);
  out.s.resize(k);
  out.vt.resize(k * cols);
  comm.bcast(std::span<double>(out.s), 0);
  comm.bcast(std::span<double>(out.u), 0);
  comm.bcast(std::span<double>(out.vt), 0);
  return out;
}

bool cholesky_r(double* g, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)  // the row-major upper triangle holds the Gram: mirror it
    for (std::size_t j = 0; j < i; ++j) g[i * n + j] = g[j * n + i];
  // Row-major G is column-major G (symmetric): column-major lower L with G = L L^T is, read row-major, R = L^T.
  const int ni = int(n);
  int info = 0;
  dpotrf_("L", &ni, g, &ni, &info, 1);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < i; ++j) g[i * n + j] = 0.0;
  return info == 0;
}

void local_gram(const double* a, std::size_t m, std::size_t n, double* g, bool accumulate) {
  if (m == 0) {
    if (!accumulate) std::fill(g, g + n * n, 0.0);
    return;
  }
  cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, int(n), int(m), 1.0, a, int(n), accumulate ? 1.0 : 0.0, g, int(n));
}

void local_orthonormalize(double* a, std::size_t m, std::size_t n) {
  if (m == 0 || n == 0) return;
  std::vector<double> w(m * n), tau(n);
  to_colmajor(a, m, n, w.data());
  const int mi = int(m), ni = int(n);
  int info = 0, lwork = -1;
  double query = 0;
  dgeqrf_(&mi, &ni, w.data(), &mi, tau.data(), &query, &lwork, &info);
  lwork = std::max<int>(int(query), int(n));
  std::vector<double> work(static_cast<std::size_t>(lwork));
  dgeqrf_(&mi, &ni, w.data(), &mi, tau.data(), work.data(), &lwork, &info);
  lapack_try(info, "dgeqrf");
  dorgqr_(&mi, &ni, &ni, w.data(), &mi, tau.data(), work.data(), &lwork, &info);
  lapack_try(info, "dorgqr");
  to_rowmajor(w.data(), m, n, a);
}

void solve_upper(const double* r, std::size_t n, double* y) {
  if (n == 0) return;
  cblas_dtrsv(CblasRowMajor, CblasUpper, CblasNoTrans, CblasNonUnit, int(n), r, int(n), y, 1);
}

}  // namespace slab::linalg
