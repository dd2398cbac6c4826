// The task-queue layer of linalg: per-chunk tasks (dgemm, local QR) on whatever tier the chunks live in
// (host BLAS/LAPACK, or cuBLAS/cuSOLVER when the device tier is a GPU), streamed reductions over a rank's
// chunks, and one collective task per operation for the cross-rank step.
#include "slab/linalg/linalg.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <numbers>
#include <string>

#include "linalg/cuda/linalg_cuda.hpp"
#include "linalg/device.hpp"
#include "memory/kernel_scratch.hpp"
#include "slab/array/slicing.hpp"
#include "slab/core/counter_rng.hpp"
#include "slab/core/error.hpp"
#include "slab/memory/memory_manager.hpp"

namespace slab::linalg {
namespace {

std::string shape_str(std::int64_t r, std::int64_t c) {
  return "(" + std::to_string(r) + ", " + std::to_string(c) + ")";
}
std::string shape_str(const Layout& l) { return shape_str(l.rows, l.cols); }

using detail::Device;
using detail::device_of;
using detail::from_host;
using detail::to_host;

// A replicated matrix made resident where the chunks are (device tier on GPU builds), for one task.
struct Resident {
  BufferPtr buffer;
  Pin pin;
  const double* data = nullptr;
};
Resident resident(TaskContext& ctx, const std::vector<double>& host, const Device& d) {
  Resident r;
  if (!d.gpu()) {
    r.data = host.data();
    return r;
  }
  r.buffer = ctx.memory().allocate(std::max<std::size_t>(1, host.size()) * sizeof(double), "linalg_operand");
  r.pin = r.buffer->pin();
  slab::copy(r.pin.data(), host.data(), host.size() * sizeof(double), *d.exec);
  r.data = reinterpret_cast<const double*>(r.pin.data());
  return r;
}

void check_row_split(const Layout& l, const char* op, const char* name) {
  SLAB_EXPECTS(l.split == Split::rows, ShapeError,
               std::string("linalg::") + op + ": " + name + " " + l.to_string() + " must be split by rows");
}

bool same_row_blocks(const Layout& a, const Layout& b) {
  if (a.rows != b.rows || a.nranks != b.nranks) return false;
  for (int r = 0; r < a.nranks; ++r)
    if (a.block_begin(r) != b.block_begin(r) || a.block_end(r) != b.block_end(r)) return false;
  return true;
}

// The pieces of b's local chunks covering global rows [row0, row0 + rows) (same rank, same row blocks).
struct Piece {
  std::size_t chunk, first_row, rows;
};
std::vector<Piece> overlapping(const Layout& b, int rank, std::int64_t row0, std::int64_t rows) {
  std::vector<Piece> out;
  const std::int64_t end = row0 + rows;
  for (std::int64_t j = 0; j < b.num_chunks(rank); ++j) {
    const auto e = b.chunk_extent(rank, j);
    const std::int64_t lo = std::max(row0, e.row0), hi = std::min(end, e.row0 + e.rows);
    if (lo < hi) out.push_back({std::size_t(j), std::size_t(lo - e.row0), std::size_t(hi - lo)});
  }
  return out;
}

Chunk zeros(Engine& engine, std::size_t count, const char* name) {
  TaskQueue& q = engine.tasks();
  const Device d = device_of(q);
  return q.submit(
      name, {},
      [count, d](TaskContext& ctx) {
        auto out = ctx.output_as<double>(count);
        std::vector<double> z(count, 0.0);
        from_host(out.data(), z.data(), count, d);
      },
      device_task());
}

TaskQueue::CombineFn add_combine(const Device& d) {
  return [d](std::span<std::byte> acc, std::span<const std::byte> in) {
    auto* a = reinterpret_cast<double*>(acc.data());
    const auto* b = reinterpret_cast<const double*>(in.data());
    const std::size_t count = acc.size() / sizeof(double);
    if (d.gpu())
      detail::gpu_axpy(count, 1.0, b, a, *d.exec);
    else
      cblas_daxpy(int(count), 1.0, b, 1, a, 1);
  };
}

// Fixed-tree sum over ranks of a rank-local chunk of `count` doubles: reduce to 0 (binomial tree), bcast.
Chunk allreduce_sum(Engine& engine, Chunk local, std::size_t count, const char* name) {
  TaskQueue& q = engine.tasks();
  const Device d = device_of(q);
  return q.submit(
      name, {std::move(local)},
      [count, d](TaskContext& ctx) {
        auto in = ctx.input_as<double>(0);
        auto host = to_host(in.data(), count, d);
        std::vector<double> sum(count);
        ctx.comm().reduce(std::span<const double>(host), std::span<double>(sum), ReduceOp::sum, 0);
        ctx.comm().bcast(std::span<double>(sum), 0);
        from_host(ctx.output_as<double>(count).data(), sum.data(), count, d);
      },
      device_task(TraceKind::compute, true));
}

// R of a RowSource: local QR per chunk, streamed combine over the rank's chunks, tree across ranks.
std::vector<double> tsqr_r_impl(Engine& engine, const RowSource& src) {
  TaskQueue& q = engine.tasks();
  const Device d = device_of(q);
  const int rank = q.comm().rank();
  const std::size_t n = std::size_t(src.layout.cols);
  std::vector<Chunk> rs;
  for (std::int64_t i = 0; i < src.layout.num_chunks(rank); ++i) {
    const std::size_t rows = std::size_t(src.layout.chunk_extent(rank, i).rows);
    rs.push_back(q.submit(
        "tsqr_local", {src.chunk(std::size_t(i))},
        [rows, n, d](TaskContext& ctx) {
          auto in = ctx.input_as<double>(0);
          auto out = ctx.output_as<double>(n * n);
          if (d.gpu() && rows >= n) {
            slab::detail::KernelScratch scratch(ctx.memory(), "tsqr workspace");
            detail::gpu_qr_r(in.data(), rows, n, out.data(), scratch.exec(*d.exec).scratch, *d.exec);
          } else if (d.gpu()) {  // fewer rows than columns: [A; 0] is the factor, made where it is
            slab::fill(out.data(), 0, n * n * sizeof(double), *d.exec);
            slab::copy(out.data(), in.data(), rows * n * sizeof(double), *d.exec);
          } else {
            local_qr_r(in.data(), rows, n, out.data());
          }
        },
        device_task()));
  }
  if (rs.empty()) rs.push_back(zeros(engine, n * n, "tsqr_empty"));
  Chunk local = rs.size() == 1
                    ? rs[0]
                    : q.reduce(
                          "tsqr_combine", std::move(rs),
                          [n, d, memory = &q.memory()](std::span<std::byte> acc, std::span<const std::byte> in) {
                            auto* a = reinterpret_cast<double*>(acc.data());
                            const auto* b = reinterpret_cast<const double*>(in.data());
                            if (d.gpu()) {
                              slab::detail::KernelScratch scratch(*memory, "tsqr workspace");
                              return detail::gpu_combine_r(a, b, n, scratch.exec(*d.exec).scratch, *d.exec);
                            }
                            combine_r(a, b, n);
                          },
                          TaskPlace::device);
  rs.clear();
  Chunk r = q.submit(
      "tsqr_tree", {std::move(local)},
      [n, d](TaskContext& ctx) {
        auto in = ctx.input_as<double>(0);
        auto r = tree_r(ctx.comm(), to_host(in.data(), n * n, d), n);
        from_host(ctx.output_as<double>(n * n).data(), r.data(), n * n, d);
      },
      device_task(TraceKind::compute, true));
  auto out = q.compute<double>(r);
  if (d.gpu()) out = to_host(out.data(), out.size(), Device{});  // compute() copied the pinned bytes out
  return out;
}

// R by Cholesky of the Gram: dsyrk per chunk (dgemm speed), streamed sum over the rank's chunks, Cholesky per
// rank, then the same TSQR tree of triangles across ranks. Returns an empty vector on every rank when some
// rank's Gram is not positive definite (the caller falls back to Householder).
std::vector<double> cholesky_r_impl(Engine& engine, const RowSource& src) {
  TaskQueue& q = engine.tasks();
  const Device d = device_of(q);
  const int rank = q.comm().rank();
  const std::size_t n = std::size_t(src.layout.cols);
  std::vector<Chunk> gs;
  for (std::int64_t i = 0; i < src.layout.num_chunks(rank); ++i) {
    const std::size_t rows = std::size_t(src.layout.chunk_extent(rank, i).rows);
    gs.push_back(q.submit(
        "gram_local", {src.chunk(std::size_t(i))},
        [rows, n, d](TaskContext& ctx) {
          auto in = ctx.input_as<double>(0);
          auto out = ctx.output_as<double>(n * n);
          if (d.gpu())
            detail::gpu_dsyrk_ata(in.data(), rows, n, out.data(), *d.exec);
          else
            local_gram(in.data(), rows, n, out.data(), false);
        },
        device_task()));
  }
  if (gs.empty()) gs.push_back(zeros(engine, n * n, "gram_empty"));
  Chunk local = gs.size() == 1 ? gs[0] : q.reduce("gram_sum", std::move(gs), add_combine(d), TaskPlace::device);
  gs.clear();
  Chunk r = q.submit(
      "cholesky_tree", {std::move(local)},
      [n, d](TaskContext& ctx) {
        auto g = to_host(ctx.input_as<double>(0).data(), n * n, d);
        const int ok = cholesky_r(g.data(), n) ? 1 : 0;
        auto out = ctx.output_as<double>(n * n);
        if (ctx.comm().allreduce(ok, ReduceOp::min) == 0) {
          std::vector<double> nan(n * n, std::nan(""));
          from_host(out.data(), nan.data(), n * n, d);
          return;
        }
        auto rr = tree_r(ctx.comm(), std::move(g), n);
        from_host(out.data(), rr.data(), n * n, d);
      },
      device_task(TraceKind::compute, true));
  auto out = q.compute<double>(r);
  if (d.gpu()) out = to_host(out.data(), out.size(), Device{});
  if (out.empty() || std::isnan(out[0])) return {};
  return out;
}

void check_tall_skinny(const Layout& l, const char* op) {
  check_row_split(l, op, "A");
  SLAB_EXPECTS(l.cols >= 1 && l.rows >= l.cols, ShapeError,
               std::string("linalg::") + op + ": A " + shape_str(l) + " is not tall-skinny (need rows >= cols >= 1)");
}

// The device composition of explicit TSQR, on the rank's rows stacked in `a` (rows x n, the task's memory): a
// local QR with explicit Q_i (cuSOLVER on a GPU, LAPACK on the reference place), the tree of the n x n factors on
// the host (small), then Q = Q_i C (cuBLAS or BLAS dgemm) into `q`. Returns R. Collective.
std::vector<double> tsqr_explicit_steps(TaskContext& ctx, const double* a, std::size_t rows, std::size_t n, double* q,
                                        const Device& d) {
  std::vector<double> r_local(n * n, 0.0);
  BufferPtr qi_buffer;
  Pin qi;
  std::exception_ptr error;
  try {
    if (rows >= n) {
      qi_buffer = ctx.memory().allocate(rows * n * sizeof(double), "tsqr local q");
      qi = qi_buffer->pin();
      auto* qi_data = reinterpret_cast<double*>(qi.data());
      if (d.gpu()) {
        BufferPtr r_buffer = ctx.memory().allocate(n * n * sizeof(double), "tsqr local r");
        const Pin r_dev = r_buffer->pin();
        slab::detail::KernelScratch scratch(ctx.memory(), "tsqr workspace");
        detail::gpu_qr(a, rows, n, reinterpret_cast<double*>(r_dev.data()), qi_data, scratch.exec(*d.exec).scratch,
                       *d.exec);
        r_local = to_host(reinterpret_cast<const double*>(r_dev.data()), n * n, d);
      } else {
        local_qr_explicit(a, rows, n, r_local.data(), qi_data);
      }
    } else if (rows > 0) {  // fewer rows than columns: [A; 0] is the factor and Q_i the identity's first rows
      const auto top = to_host(a, rows * n, d);
      std::copy(top.begin(), top.end(), r_local.begin());
    }
  } catch (...) {
    error = std::current_exception();
  }
  ctx.comm().agree(error);  // no rank enters the tree while another failed before it
  std::vector<double> c;
  auto r = tree_r(ctx.comm(), std::move(r_local), n, &c);
  if (rows >= n) {
    const Resident c_dev = resident(ctx, c, d);
    const auto* qi_data = reinterpret_cast<const double*>(qi.data());
    if (d.gpu())
      detail::gpu_dgemm(false, false, rows, n, n, 1.0, qi_data, c_dev.data, 0.0, q, *d.exec);
    else
      local_matmul(qi_data, rows, n, c_dev.data, n, q);
  } else {
    from_host(q, c.data(), rows * n, d);  // Q = [I 0] C: C's first rows
  }
  return r;
}

// Explicit TSQR of a RowSource: the rank's chunks stacked into one block (collective task), Q sliced back. Where
// operations take device paths (a GPU, or the reference place) the block stays in the task's memory and the
// device composition above runs; on the host, tsqr() (Householder reflectors applied to C).
QrResult tsqr_explicit(Engine& engine, const RowSource& src) {
  TaskQueue& q = engine.tasks();
  const Device d = device_of(q);
  const bool device_steps = d.exec->device_kernels();
  const int rank = q.comm().rank();
  const std::size_t n = std::size_t(src.layout.cols);
  const std::int64_t nchunks = src.layout.num_chunks(rank);
  const std::size_t local_rows = std::size_t(src.layout.local_rows(rank));
  std::vector<Chunk> inputs;
  for (std::int64_t i = 0; i < nchunks; ++i) inputs.push_back(src.chunk(std::size_t(i)));
  Chunk both = q.submit(
      "tsqr_explicit", std::move(inputs),
      [n, local_rows, d, device_steps](TaskContext& ctx) {
        // The rank's rows stacked in one block: in the task's memory for the device steps, a host vector otherwise.
        BufferPtr stack_buffer;
        Pin stack;
        std::vector<double> host_stack;
        double* a = nullptr;
        if (device_steps) {
          stack_buffer = ctx.memory().allocate(std::max<std::size_t>(1, local_rows * n) * sizeof(double), "tsqr stack");
          stack = stack_buffer->pin();
          a = reinterpret_cast<double*>(stack.data());
        } else {
          host_stack.resize(local_rows * n);
          a = host_stack.data();
        }
        std::size_t off = 0;
        for (std::size_t i = 0; i < ctx.num_inputs(); ++i) {
          auto in = ctx.input_as<double>(i);
          slab::copy(a + off, in.data(), in.size() * sizeof(double), *d.exec);
          off += in.size();
        }
        auto out = ctx.output_as<double>(n * n + local_rows * n);
        const auto r = device_steps ? tsqr_explicit_steps(ctx, a, local_rows, n, out.data() + n * n, d)
                                    : tsqr(ctx.comm(), a, local_rows, n, out.data() + n * n);
        from_host(out.data(), r.data(), n * n, d);
      },
      device_task(TraceKind::compute, true));
  std::vector<Chunk> qchunks;
  std::size_t off = n * n;
  for (std::int64_t i = 0; i < nchunks; ++i) {
    const std::size_t count = std::size_t(src.layout.chunk_extent(rank, i).rows) * n;
    qchunks.push_back(q.submit(
        "tsqr_q_slice", {both},
        [off, count, d](TaskContext& ctx) {
          auto in = ctx.input_as<double>(0);
          auto out = ctx.output_as<double>(count);
          if (d.gpu())
            slab::copy(out.data(), in.data() + off, count * sizeof(double), *d.exec);
          else
            std::memcpy(out.data(), in.data() + off, count * sizeof(double));
        },
        device_task()));
    off += count;
  }
  Chunk rchunk = q.submit(
      "tsqr_r_slice", {both},
      [n, d](TaskContext& ctx) {
        auto in = ctx.input_as<double>(0);
        from_host(ctx.output_as<double>(n * n).data(), to_host(in.data(), n * n, d).data(), n * n, d);
      },
      device_task());
  both = Chunk();
  auto r = q.compute<double>(rchunk);
  if (d.gpu()) r = to_host(r.data(), r.size(), Device{});
  Layout ql = src.layout;
  ql.ndim = 2;
  return {Array<double>(engine, ql, std::move(qchunks)), std::move(r)};
}

// C = A B per chunk of a source; B replicated k x n host.
Array<double> matmul_source(Engine& engine, const RowSource& src, std::vector<double> b, std::size_t n, int ndim = 2) {
  TaskQueue& q = engine.tasks();
  const Device d = device_of(q);
  const int rank = q.comm().rank();
  const std::size_t k = std::size_t(src.layout.cols);
  auto bp = std::make_shared<const std::vector<double>>(std::move(b));
  std::vector<Chunk> out;
  for (std::int64_t i = 0; i < src.layout.num_chunks(rank); ++i) {
    const std::size_t rows = std::size_t(src.layout.chunk_extent(rank, i).rows);
    out.push_back(q.submit(
        "matmul", {src.chunk(std::size_t(i))},
        [rows, k, n, bp, d](TaskContext& ctx) {
          auto in = ctx.input_as<double>(0);
          auto c = ctx.output_as<double>(rows * n);
          if (d.gpu()) {
            auto b_dev = resident(ctx, *bp, d);
            detail::gpu_dgemm(false, false, rows, n, k, 1.0, in.data(), b_dev.data, 0.0, c.data(), *d.exec);
          } else {
            local_matmul(in.data(), rows, k, bp->data(), n, c.data());
          }
        },
        device_task()));
  }
  Layout l = src.layout;
  l.cols = std::int64_t(n);
  l.ndim = ndim;
  return Array<double>(engine, l, std::move(out));
}

std::vector<double> columns(const std::vector<double>& m, std::size_t rows, std::size_t cols, std::size_t k) {
  std::vector<double> out(rows * k);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < k; ++j) out[i * k + j] = m[i * cols + j];
  return out;
}

SvdResult svd_impl(Engine& engine, const RowSource& src, std::int64_t k_in, QrMethod method) {
  TaskQueue& q = engine.tasks();
  check_tall_skinny(src.layout, "svd");
  const std::size_t n = std::size_t(src.layout.cols);
  SLAB_EXPECTS(k_in >= 0 && k_in <= std::int64_t(n), InvalidArgument,
               "linalg::svd: k = " + std::to_string(k_in) + " is out of range for A " + shape_str(src.layout) +
                   " (need 0 <= k <= " + std::to_string(n) + "; 0 keeps all)");
  const std::size_t k = k_in == 0 ? n : std::size_t(k_in);
  // The Cholesky R (Gram at dgemm speed) serves when every rank has >= n rows and A is well conditioned: its
  // singular values then carry relative errors ~ eps * cond(A) (vs s_1) and U = A V S^-1 stays orthonormal to
  // ~ eps * cond^2; beyond cond 1e5 (or a Gram that is not positive definite) Householder TSQR decides.
  std::vector<double> r;
  SmallSvd small;
  bool every_rank_tall = true;
  for (int p = 0; p < src.layout.nranks; ++p)
    every_rank_tall = every_rank_tall && src.layout.local_rows(p) >= std::int64_t(n);
  if (method != QrMethod::householder && every_rank_tall) {
    r = cholesky_r_impl(engine, src);
    if (!r.empty()) {
      small = small_svd_bcast(q.comm(), r.data(), n, n);
      if (method == QrMethod::automatic && !(small.s[n - 1] >= 1e-5 * small.s[0])) r.clear();
    }
  }
  if (r.empty()) {
    r = tsqr_r_impl(engine, src);
    small = small_svd_bcast(q.comm(), r.data(), n, n);
  }
  SvdResult out;
  out.s.assign(small.s.begin(), small.s.begin() + std::ptrdiff_t(k));
  out.vt.assign(small.vt.begin(), small.vt.begin() + std::ptrdiff_t(k * n));
  // U = A V_k S_k^-1 has error ~ eps * s_1 / s_k; beyond 1e4 the explicit Q keeps U orthonormal.
  if (small.s[0] > 0 && small.s[k - 1] >= 1e-4 * small.s[0]) {
    std::vector<double> w(n * k);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < k; ++j) w[i * k + j] = small.vt[j * n + i] / small.s[j];
    out.u = matmul_source(engine, src, std::move(w), k);
    return out;
  }
  auto qr = tsqr_explicit(engine, src);
  small = small_svd_bcast(q.comm(), qr.r.data(), n, n);
  out.s.assign(small.s.begin(), small.s.begin() + std::ptrdiff_t(k));
  out.vt.assign(small.vt.begin(), small.vt.begin() + std::ptrdiff_t(k * n));
  out.u = matmul_source(engine, row_source(qr.q, "svd"), columns(small.u, n, n, k), k);
  out.explicit_q = true;
  return out;
}

// rows >= cols >= 1, whatever the split (a column-split or replicated A is resplit by rows).
void check_tall_shape(const Layout& l, const char* op) {
  SLAB_EXPECTS(l.cols >= 1 && l.rows >= l.cols, ShapeError,
               std::string("linalg::") + op + ": A " + shape_str(l) + " is not tall-skinny (need rows >= cols >= 1)");
}
Array<double> by_rows(const Array<double>& a) { return a.split() == Split::rows ? a : resplit(a, Split::rows); }
bool wide(const Layout& l) { return l.ndim == 2 && l.rows < l.cols; }

// A row-split array of `layout` (cols = q's columns) whose chunks are the rows of the replicated row-major q.
Array<double> rows_of(Engine& engine, Layout layout, std::vector<double> q) {
  const int rank = engine.comm().rank();
  const Device d = device_of(engine.tasks());
  auto data = std::make_shared<const std::vector<double>>(std::move(q));
  std::vector<Chunk> chunks;
  for (std::int64_t i = 0; i < layout.num_chunks(rank); ++i) {
    const ChunkExtent e = layout.chunk_extent(rank, i);
    chunks.push_back(engine.tasks().submit(
        "replicated_rows", {},
        [data, e, d](TaskContext& ctx) {
          const auto count = static_cast<std::size_t>(e.size());
          from_host(ctx.output_as<double>(count).data(), data->data() + e.row0 * e.cols, count, d);
        },
        device_task()));
  }
  return Array<double>(engine, std::move(layout), std::move(chunks));
}

// QR of a wide A (m < n): Q is the m x m orthogonal factor of A's first m columns (rank 0's Householder QR,
// broadcast, columns signed so that diag(R) >= 0), R = Q^T A (m x n, upper trapezoidal) by at_b, as LAPACK's
// Householder QR of the whole A finds the same Q from those columns.
QrResult qr_wide(const Array<double>& a) {
  const Layout& l = a.layout();
  SLAB_EXPECTS(l.rows >= 1, ShapeError, "linalg::tsqr: A " + shape_str(l) + " has no rows");
  Engine& engine = a.engine();
  const Comm& comm = engine.comm();
  const auto m = static_cast<std::size_t>(l.rows), n = static_cast<std::size_t>(l.cols);
  const Array<double> ar = by_rows(a);
  const std::vector<double> a1 = col_range(ar, 0, l.rows).gather_all();  // m x m, small: m is the short side
  std::vector<double> q(m * m);
  std::exception_ptr error;
  if (comm.rank() == 0) {
    try {
      q = a1;
      local_orthonormalize(q.data(), m, m);
      for (std::size_t i = 0; i < m; ++i) {  // R1(i, i) = Q[:, i] . A1[:, i] >= 0
        double rii = 0;
        for (std::size_t r = 0; r < m; ++r) rii += q[r * m + i] * a1[r * m + i];
        if (rii < 0)
          for (std::size_t r = 0; r < m; ++r) q[r * m + i] = -q[r * m + i];
      }
    } catch (...) {
      error = std::current_exception();
    }
  }
  comm.agree(error);
  comm.bcast(std::span<double>(q), 0);
  Layout ql = ar.layout();
  ql.cols = l.rows;
  Array<double> qa = rows_of(engine, std::move(ql), std::move(q));
  std::vector<double> r = at_b(qa, ar);  // Q^T A, m x n, replicated
  for (std::size_t i = 1; i < m; ++i)
    for (std::size_t j = 0; j < std::min(i, n); ++j) r[i * n + j] = 0.0;  // what rounding left below R1's diagonal
  return {std::move(qa), std::move(r)};
}

// SVD of a wide A (m < n) through its transpose, as Dask's svd for short-and-fat arrays: A^T (n x m, tall) =
// U' S V'^T, so A = V' S U'^T: U = V' (m x k, small), V = U' (n x k, split by rows), V^T gathered.
SvdResult svd_wide(const Array<double>& a, std::int64_t k, QrMethod method) {
  const Layout& l = a.layout();
  SLAB_EXPECTS(l.rows >= 1, ShapeError, "linalg::svd: A " + shape_str(l) + " has no rows");
  SLAB_EXPECTS(k >= 0 && k <= l.rows, InvalidArgument,
               "linalg::svd: k = " + std::to_string(k) + " is out of range for A " + shape_str(l) +
                   " (need 0 <= k <= " + std::to_string(l.rows) + "; 0 keeps all)");
  Engine& engine = a.engine();
  const Array<double> t = by_rows(transpose(a));  // a column-split A transposes with no communication
  SvdResult tr = svd_impl(engine, row_source(t, "svd"), k, method);
  const std::size_t m = std::size_t(l.rows), n = std::size_t(l.cols), kk = tr.s.size();
  std::vector<double> u(m * kk);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < kk; ++j) u[i * kk + j] = tr.vt[j * m + i];
  SvdResult out;
  out.u = rows_of(engine, Layout::make(Shape{l.rows, std::int64_t(kk)}, Split::rows, l.nranks), std::move(u));
  out.s = std::move(tr.s);
  const std::vector<double> v = tr.u.gather_all();  // n x k
  out.vt.resize(kk * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < kk; ++j) out.vt[j * n + i] = v[i * kk + j];
  out.v = std::move(tr.u);
  out.explicit_q = tr.explicit_q;
  return out;
}

}  // namespace

RowSource row_source(const Array<double>& a, const char* op) {
  check_row_split(a.layout(), op, "A");
  return {a.layout(), [a](std::size_t i) { return a.local_chunk(i); }};
}

Array<double> matmul(const Array<double>& a, std::span<const double> b, std::int64_t n) {
  check_row_split(a.layout(), "matmul", "A");
  SLAB_EXPECTS(n >= 1 && b.size() == std::size_t(a.cols() * n), ShapeError,
               "linalg::matmul: A " + shape_str(a.layout()) + " times B with " + std::to_string(b.size()) +
                   " values as (" + std::to_string(a.cols()) + ", " + std::to_string(n) + "): shapes do not match");
  return matmul_source(a.engine(), row_source(a, "matmul"), std::vector<double>(b.begin(), b.end()), std::size_t(n));
}

Array<double> matvec(const Array<double>& a, std::span<const double> x) {
  check_row_split(a.layout(), "matvec", "A");
  SLAB_EXPECTS(x.size() == std::size_t(a.cols()), ShapeError,
               "linalg::matvec: A " + shape_str(a.layout()) + " times x of length " + std::to_string(x.size()) +
                   ": shapes do not match");
  return matmul_source(a.engine(), row_source(a, "matvec"), std::vector<double>(x.begin(), x.end()), 1, 1);
}

std::vector<double> at_b(const Array<double>& a, const Array<double>& b) {
  check_row_split(a.layout(), "at_b", "A");
  check_row_split(b.layout(), "at_b", "B");
  SLAB_EXPECTS(same_row_blocks(a.layout(), b.layout()), ShapeError,
               "linalg::at_b: A " + shape_str(a.layout()) + " and B " + shape_str(b.layout()) +
                   " must have the same rows, split the same way");
  Engine& engine = a.engine();
  TaskQueue& q = engine.tasks();
  const Device d = device_of(q);
  const int rank = q.comm().rank();
  const std::size_t na = std::size_t(a.cols()), nb = std::size_t(b.cols());
  std::vector<Chunk> parts;
  for (std::size_t i = 0; i < a.num_local_chunks(); ++i) {
    const auto e = a.local_extent(i);
    auto pieces = overlapping(b.layout(), rank, e.row0, e.rows);
    std::vector<Chunk> inputs{a.local_chunk(i)};
    for (auto& p : pieces) inputs.push_back(b.local_chunk(p.chunk));
    parts.push_back(q.submit(
        "at_b_partial", std::move(inputs),
        [na, nb, pieces, d](TaskContext& ctx) {
          auto in = ctx.input_as<double>(0);
          auto c = ctx.output_as<double>(na * nb);
          std::size_t row = 0;
          for (std::size_t p = 0; p < pieces.size(); ++p) {
            const double* bp = ctx.input_as<double>(p + 1).data() + pieces[p].first_row * nb;
            const double* ap = in.data() + row * na;
            const double beta = p == 0 ? 0.0 : 1.0;
            if (d.gpu())
              detail::gpu_dgemm(true, false, na, nb, pieces[p].rows, 1.0, ap, bp, beta, c.data(), *d.exec);
            else
              cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, int(na), int(nb), int(pieces[p].rows), 1.0, ap,
                          int(na), bp, int(nb), beta, c.data(), int(nb));
            row += pieces[p].rows;
          }
          if (pieces.empty()) {
            std::vector<double> z(na * nb, 0.0);
            from_host(c.data(), z.data(), z.size(), d);
          }
        },
        device_task()));
  }
  if (parts.empty()) parts.push_back(zeros(engine, na * nb, "at_b_empty"));
  Chunk local =
      parts.size() == 1 ? parts[0] : q.reduce("at_b_sum", std::move(parts), add_combine(d), TaskPlace::device);
  parts.clear();
  auto out = q.compute<double>(allreduce_sum(engine, std::move(local), na * nb, "at_b_allreduce"));
  if (d.gpu()) out = to_host(out.data(), out.size(), Device{});
  return out;
}

std::vector<double> tsqr_r(const Array<double>& a) {
  if (wide(a.layout())) return qr_wide(a).r;
  check_tall_shape(a.layout(), "tsqr_r");
  return tsqr_r_impl(a.engine(), row_source(by_rows(a), "tsqr_r"));
}

std::vector<double> tsqr_r(Engine& engine, const RowSource& a) {
  check_tall_skinny(a.layout, "tsqr_r");
  return tsqr_r_impl(engine, a);
}

QrResult tsqr(const Array<double>& a) {
  if (wide(a.layout())) return qr_wide(a);
  check_tall_shape(a.layout(), "tsqr");
  return tsqr_explicit(a.engine(), row_source(by_rows(a), "tsqr"));
}

SvdResult svd(const Array<double>& a, std::int64_t k, QrMethod method) {
  if (wide(a.layout())) return svd_wide(a, k, method);
  check_tall_shape(a.layout(), "svd");
  return svd_impl(a.engine(), row_source(by_rows(a), "svd"), k, method);
}

SvdResult svd(Engine& engine, const RowSource& a, std::int64_t k, QrMethod method) {
  return svd_impl(engine, a, k, method);
}

SvdResult randomized_svd(const Array<double>& a, const RandomizedOptions& o) {
  check_row_split(a.layout(), "randomized_svd", "A");
  const std::int64_t m = a.rows(), n = a.cols(), l = o.k + o.oversample;
  SLAB_EXPECTS(o.k >= 1 && o.oversample >= 0 && o.power_iters >= 0 && l <= std::min(m, n), InvalidArgument,
               "linalg::randomized_svd: k = " + std::to_string(o.k) + " with oversampling " +
                   std::to_string(o.oversample) + " does not fit A " + shape_str(a.layout()) +
                   " (need k >= 1 and k + p <= min(rows, cols))");
  Engine& engine = a.engine();
  TaskQueue& q = engine.tasks();
  const std::size_t L = std::size_t(l), N = std::size_t(n), K = std::size_t(o.k);
  std::vector<double> omega(N * L);
  for (std::size_t i = 0; i < omega.size(); ++i) {
    const double u1 = counter_uniform(o.seed, i), u2 = counter_uniform(o.seed ^ 0x80000u, i);
    omega[i] = std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }
  auto src = row_source(a, "randomized_svd");
  Array<double> y = matmul_source(engine, src, std::move(omega), L);
  for (int it = 0; it < o.power_iters; ++it) {
    auto qy = tsqr_explicit(engine, row_source(y, "randomized_svd")).q;
    auto z = at_b(a, qy);  // n x l, replicated
    // Orthonormalise Z locally (identical on every rank: same input, broadcast from rank 0 for safety).
    if (q.comm().rank() == 0) {
      local_orthonormalize(z.data(), N, L);
    }
    q.comm().bcast(std::span<double>(z), 0);
    y = matmul_source(engine, src, std::move(z), L);
  }
  auto qq = tsqr_explicit(engine, row_source(y, "randomized_svd")).q;
  auto bt = at_b(a, qq);  // n x l = (Q^T A)^T
  std::vector<double> bm(L * N);
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t j = 0; j < L; ++j) bm[j * N + i] = bt[i * L + j];
  auto small = small_svd_bcast(q.comm(), bm.data(), L, N);  // u: l x l, s: l, vt: l x n
  SvdResult out;
  out.s.assign(small.s.begin(), small.s.begin() + std::ptrdiff_t(K));
  out.vt.assign(small.vt.begin(), small.vt.begin() + std::ptrdiff_t(K * N));
  out.u = matmul_source(engine, row_source(qq, "randomized_svd"), columns(small.u, L, L, K), K);
  out.explicit_q = true;
  return out;
}

std::vector<double> lstsq(const Array<double>& a, const Array<double>& b) {
  check_tall_skinny(a.layout(), "lstsq");
  check_row_split(b.layout(), "lstsq", "b");
  SLAB_EXPECTS(b.cols() == 1 && same_row_blocks(a.layout(), b.layout()), ShapeError,
               "linalg::lstsq: A " + shape_str(a.layout()) + " and b " + shape_str(b.layout()) +
                   " must have the same rows, split the same way, and b one column");
  Engine& engine = a.engine();
  TaskQueue& q = engine.tasks();
  const Device d = device_of(q);
  const int rank = q.comm().rank();
  const std::size_t n = std::size_t(a.cols());
  // TSQR of [A b] = [R r; 0 rho]: x solves R x = r = (Q^T b)[0:n], and |rho| is the residual norm.
  RowSource aug{a.layout(), {}};
  aug.layout.cols = a.cols() + 1;
  aug.chunk = [a, b, rank, n, d, &q](std::size_t i) {
    const auto e = a.local_extent(i);
    auto pieces = overlapping(b.layout(), rank, e.row0, e.rows);
    std::vector<Chunk> inputs{a.local_chunk(i)};
    for (auto& p : pieces) inputs.push_back(b.local_chunk(p.chunk));
    const std::size_t rows = std::size_t(e.rows);
    return q.submit(
        "lstsq_augment", std::move(inputs),
        [rows, n, pieces, d](TaskContext& ctx) {
          auto ah = to_host(ctx.input_as<double>(0).data(), rows * n, d);
          std::vector<double> out(rows * (n + 1));
          std::size_t row = 0;
          for (std::size_t p = 0; p < pieces.size(); ++p) {
            auto bh = ctx.input_as<double>(p + 1);
            auto bv = to_host(bh.data() + pieces[p].first_row, pieces[p].rows, d);
            for (std::size_t r = 0; r < pieces[p].rows; ++r, ++row) {
              std::memcpy(out.data() + row * (n + 1), ah.data() + row * n, n * sizeof(double));
              out[row * (n + 1) + n] = bv[r];
            }
          }
          from_host(ctx.output_as<double>(out.size()).data(), out.data(), out.size(), d);
        },
        device_task());
  };
  auto r = tsqr_r_impl(engine, aug);
  const std::size_t n1 = n + 1;
  std::vector<double> rr(n * n), x(n);
  double dmax = 0;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) rr[i * n + j] = r[i * n1 + j];
    x[i] = r[i * n1 + n];
    dmax = std::max(dmax, std::abs(r[i * n1 + i]));
  }
  for (std::size_t i = 0; i < n; ++i)
    SLAB_EXPECTS(std::abs(rr[i * n + i]) > dmax * 1e-14 * double(n) && dmax > 0, InvalidArgument,
                 "linalg::lstsq: A " + shape_str(a.layout()) + " is rank deficient (R(" + std::to_string(i) + ", " +
                     std::to_string(i) + ") = " + std::to_string(rr[i * n + i]) + ")");
  solve_upper(rr.data(), n, x.data());
  return x;
}

}  // namespace slab::linalg
