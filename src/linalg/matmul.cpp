// C = A B of two distributed arrays. A product whose accumulator is no larger than the operands a rank holds is a
// contraction: every rank folds its slab of the shared dimension into a full-size accumulator (dgemm, or dsyrk for
// a Gram) and a reduce-scatter leaves each rank its rows. Any other product streams B past every rank's rows of A,
// one broadcast chunk at a time. X X^T of an array read from HDF5 is gram_xxt's out-of-core pass over the file.
#include "slab/linalg/matmul.hpp"

#include <cblas.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "linalg/cuda/linalg_cuda.hpp"
#include "linalg/device.hpp"
#include "linalg/gram_detail.hpp"
#include "slab/array/creation.hpp"
#include "slab/array/slicing.hpp"
#include "slab/io/array_io.hpp"
#include "slab/io/hdf5.hpp"

namespace slab::linalg {
namespace {

using detail::Device;
using detail::device_of;
using detail::from_host;
using detail::to_host;

// C (m x n, rows ldc apart) += op(A) op(B), op(A) m x k read with rows lda apart, op(B) k x n with rows ldb apart.
void gemm_acc(const Device& d, bool ta, bool tb, std::size_t m, std::size_t n, std::size_t k, const double* a,
              std::size_t lda, const double* b, std::size_t ldb, double* c, std::size_t ldc) {
  if (m == 0 || n == 0 || k == 0) return;
  if (d.gpu()) {
    detail::gpu_dgemm_ld(ta, tb, m, n, k, 1.0, a, lda, b, ldb, 1.0, c, ldc, *d.exec);
    return;
  }
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, int(m), int(n), int(k),
              1.0, a, int(lda), b, int(ldb), 1.0, c, int(ldc));
}

// The boundaries of a layout's rank blocks along its split axis (nranks + 1 entries).
std::vector<std::int64_t> block_bounds(const Layout& l) {
  std::vector<std::int64_t> b;
  for (int r = 0; r < l.nranks; ++r) b.push_back(l.block_begin(r));
  b.push_back(l.split_extent());
  return b;
}

// A lazy read of the extent `e` of the float64 dataset `info`, not tied to any array.
Chunk read_chunk(TaskQueue& q, const io::DatasetInfo& info, const ChunkExtent& e) {
  return q.submit(
      "hdf5.read", {},
      [info, e](TaskContext& ctx) {
        const auto count = static_cast<std::size_t>(e.size());
        auto out = ctx.output_as<double>(count);
        const auto r0 = static_cast<std::uint64_t>(e.row0), nr = static_cast<std::uint64_t>(e.rows);
        const auto c0 = static_cast<std::uint64_t>(e.col0), nc = static_cast<std::uint64_t>(e.cols);
        io::read_block_to(info, r0, nr, c0, nc, ElementType::float64, out.data(), ctx.memory());
      },
      device_task(TraceKind::io, false));
}

// An array read afresh from its dataset in `layout`.
Array<double> reread(Engine& engine, const io::DatasetInfo& info, Layout layout) {
  const int rank = engine.comm().rank();
  std::vector<Chunk> chunks;
  for (std::int64_t i = 0; i < layout.num_chunks(rank); ++i)
    chunks.push_back(read_chunk(engine.tasks(), info, layout.chunk_extent(rank, i)));
  return Array<double>(engine, std::move(layout), std::move(chunks));
}

// `a` with the blocks of `target` (its chunking may differ): `a` itself when it has them; an array read from HDF5
// is read again in that layout (no communication); anything else is redistributed (one alltoallv).
Array<double> in_layout(const Array<double>& a, const Layout& target) {
  if (a.layout().same_blocks(target)) return a;
  if (const io::DatasetInfo* info = io::source_dataset(a)) return reread(a.engine(), *info, target);
  return redistribute(a, target);
}
Array<double> in_split(const Array<double>& a, Split split) {
  if (a.split() == split) return a;
  return in_layout(a, Layout::make(a.shape(), split, a.layout().nranks));
}

// The chunks a product reads of `a`: its own where they are computed already or `a` is not from a file, a fresh
// read of the same extent for an array read from HDF5 (so the product leaves nothing behind in `a`).
std::vector<Chunk> chunks_of(const Array<double>& a) {
  const io::DatasetInfo* info = io::source_dataset(a);
  std::vector<Chunk> out;
  for (std::size_t i = 0; i < a.num_local_chunks(); ++i) {
    const Chunk& c = a.local_chunk(i);
    out.push_back(info && !c.ready() ? read_chunk(a.engine().tasks(), *info, a.local_extent(i)) : c);
  }
  return out;
}

// An operand as the array its chunks are read from: the operand itself, or the array a transpose view transposes.
struct Operand {
  Array<double> storage;
  bool trans = false;  // the operand is storage^T
};
Operand operand_of(const Array<double>& x) {
  Array<double> source = x.transpose_of();
  if (source.valid()) return {source, true};
  return {x, false};
}

// One side of a contraction: its storage, split along the shared dimension k (rows or columns of the storage).
struct KSide {
  Array<double> storage;
  bool k_rows = true;  // k runs along the storage's rows (chunks kc x w) or along its columns (w x kc)
  [[nodiscard]] std::pair<std::int64_t, std::int64_t> k_range(std::size_t i) const {
    const ChunkExtent e = storage.local_extent(i);
    return k_rows ? std::pair{e.row0, e.rows} : std::pair{e.col0, e.cols};
  }
};

// Sum over k: each rank folds its k-slab into an m x n accumulator, then reduce-scatters it into `target`.
Array<double> contract(Engine& engine, KSide a, KSide b, bool gram, std::int64_t m, std::int64_t n, Layout target) {
  TaskQueue& q = engine.tasks();
  const Device d = device_of(q);
  const int p = engine.comm().size();
  a.storage = in_split(a.storage, a.k_rows ? Split::rows : Split::cols);
  if (gram) {
    b.storage = a.storage;
  } else {
    b.storage = in_split(b.storage, b.k_rows ? Split::rows : Split::cols);
    if (block_bounds(a.storage.layout()) != block_bounds(b.storage.layout())) {  // B's k-blocks follow A's
      Layout aligned = Layout::make(b.storage.shape(), b.storage.split(), p);
      aligned.bounds = block_bounds(a.storage.layout());
      b.storage = in_layout(b.storage, aligned);
    }
  }
  const auto mm = static_cast<std::size_t>(m), nn = static_cast<std::size_t>(n);
  Chunk acc = detail::zero_accumulator(q, mm * nn, gram ? "gram accumulator" : "matmul accumulator");
  std::vector<Chunk> achunks = chunks_of(a.storage);
  std::vector<Chunk> bchunks = gram ? std::vector<Chunk>{} : chunks_of(b.storage);
  for (std::size_t i = 0; i < achunks.size(); ++i) {
    const auto k_range = a.k_range(i);  // not a structured binding: clang 14 cannot capture one
    const auto ka0 = k_range.first;
    const auto kan = k_range.second;
    const auto lda = static_cast<std::size_t>(a.storage.local_extent(i).cols);
    if (gram) {  // X X^T of column blocks (n x kc), or A^T A of row blocks (kc x n): dsyrk, upper triangle
      const bool trans = a.k_rows;
      acc = q.submit(
          "gram.syrk", {std::move(acc), std::move(achunks[i])},
          [mm, kan, lda, trans](TaskContext& ctx) {
            Pin& c = ctx.input_pin(0);
            detail::gram_syrk(ctx.execution(), mm, static_cast<std::uint64_t>(kan), ctx.input_as<double>(1).data(), lda,
                              reinterpret_cast<double*>(c.data()), trans);
            ctx.set_output(c.buffer());  // fold in place
          },
          device_task());
      continue;
    }
    struct Piece {
      std::size_t lo, hi, ka0, kb0, ldb;  // k range [lo, hi); where the two chunks start in k; B's row stride
    };
    std::vector<Piece> pieces;
    std::vector<Chunk> inputs{std::move(acc), std::move(achunks[i])};
    for (std::size_t j = 0; j < bchunks.size(); ++j) {
      const auto [kb0, kbn] = b.k_range(j);
      const std::int64_t lo = std::max(ka0, kb0), hi = std::min(ka0 + kan, kb0 + kbn);
      if (lo >= hi) continue;
      pieces.push_back({std::size_t(lo), std::size_t(hi), std::size_t(ka0), std::size_t(kb0),
                        std::size_t(b.storage.local_extent(j).cols)});
      inputs.push_back(bchunks[j]);
    }
    const bool ta = a.k_rows, tb = !b.k_rows;
    acc = q.submit(
        "matmul.contract", std::move(inputs),
        [mm, nn, lda, ta, tb, pieces, d](TaskContext& ctx) {
          Pin& c = ctx.input_pin(0);
          const double* ap = ctx.input_as<double>(1).data();
          for (std::size_t t = 0; t < pieces.size(); ++t) {
            const Piece& pc = pieces[t];
            const double* bp = ctx.input_as<double>(t + 2).data();
            // op(A)[:, lo:hi]: A's chunk is m x kc (columns are k) or, transposed, kc x m (rows are k); likewise B.
            const double* a0 = ap + (pc.lo - pc.ka0) * (ta ? lda : 1);
            const double* b0 = bp + (pc.lo - pc.kb0) * (tb ? 1 : pc.ldb);
            gemm_acc(d, ta, tb, mm, nn, pc.hi - pc.lo, a0, lda, b0, pc.ldb, reinterpret_cast<double*>(c.data()), nn);
          }
          ctx.set_output(c.buffer());
        },
        device_task());
  }
  return detail::reduce_scatter_rows(engine, std::move(acc), std::uint64_t(m), std::uint64_t(n), gram,
                                     std::move(target), gram ? "gram" : "matmul");
}

// C_i[:, n0:n0+nc] += op(A_i)[:, k0:k0+kc] op(P) for a chunk P of B's storage (kc x nc, or nc x kc transposed).
struct Piece {
  std::size_t k0, kc, n0, nc;
};

// Each rank's rows of C = A B, B streamed past. This rank's chunks of A (and the rows of C they give) are taken in
// groups that fit the smallest rank's budget together with one chunk of B; every chunk of B is folded into each
// group once: broadcast from its owner (a collective task, in rank order), or read where it is when B is
// replicated. Collective at the call (the budgets are agreed).
Array<double> stream(Engine& engine, const Array<double>& a, const Array<double>& b, Shape shape) {
  TaskQueue& q = engine.tasks();
  const Device d = device_of(q);
  const int p = engine.comm().size(), rank = engine.comm().rank();
  Operand A = operand_of(a), B = operand_of(b);
  A.storage = in_split(A.storage, A.trans ? Split::cols : Split::rows);  // A's rows are this rank's rows of C
  const Layout& al = A.storage.layout();
  Layout cl = Layout::make(shape, Split::rows, p, al.chunk);
  if (!al.balanced()) cl.bounds = al.bounds;
  const auto K = static_cast<std::size_t>(A.trans ? al.rows : al.cols), N = static_cast<std::size_t>(shape.cols);
  const bool ta = A.trans, tb = B.trans;
  auto rows_of_chunk = [&](const ChunkExtent& e) { return std::size_t(ta ? e.cols : e.rows); };

  // The chunks of B in the order every rank folds them: rank by rank (a replicated B: this rank's own, the same
  // list on every rank).
  const Layout& bl = B.storage.layout();
  const bool local = bl.split == Split::none;
  struct Source {
    int owner;
    std::size_t j;
    Piece piece;
    std::size_t count;
  };
  std::vector<Source> sources;
  std::uint64_t piece_bytes = 0;
  for (int owner = 0; owner < p; ++owner) {
    if (local && owner != rank) continue;
    for (std::int64_t j = 0; j < bl.num_chunks(owner); ++j) {
      const ChunkExtent e = bl.chunk_extent(owner, j);
      const Piece pc = tb ? Piece{std::size_t(e.col0), std::size_t(e.cols), std::size_t(e.row0), std::size_t(e.rows)}
                          : Piece{std::size_t(e.row0), std::size_t(e.rows), std::size_t(e.col0), std::size_t(e.cols)};
      sources.push_back({owner, std::size_t(j), pc, std::size_t(e.size())});
      piece_bytes = std::max<std::uint64_t>(piece_bytes, std::uint64_t(e.size()) * sizeof(double));
    }
  }
  // Groups: pinned at once are a group's chunks of A and C, the chunk of B and, on its owner, the one it came from.
  const std::uint64_t budget = engine.comm().allreduce(engine.memory().budget(1), ReduceOp::min);
  const std::uint64_t cap = budget > 2 * piece_bytes ? budget - 2 * piece_bytes : 0;
  auto group_starts = [&](int r) {  // group g is chunks [starts[g], starts[g + 1]) of rank r
    std::vector<std::size_t> starts{0};
    std::uint64_t held = 0;
    for (std::int64_t i = 0; i < al.num_chunks(r); ++i) {
      const ChunkExtent e = al.chunk_extent(r, i);
      const std::uint64_t bytes = (std::uint64_t(e.size()) + rows_of_chunk(e) * N) * sizeof(double);
      if (held > 0 && held + bytes > cap) {
        starts.push_back(std::size_t(i));
        held = 0;
      }
      held += bytes;
    }
    starts.push_back(std::size_t(al.num_chunks(r)));
    return starts;
  };
  std::size_t groups = 1;
  for (int r = 0; r < p; ++r) groups = std::max(groups, group_starts(r).size() - 1);
  const std::vector<std::size_t> starts = group_starts(rank);

  const std::vector<Chunk> achunks = chunks_of(A.storage), bchunks = chunks_of(B.storage);
  std::vector<Chunk> result;
  for (std::size_t g = 0; g < groups; ++g) {
    const std::size_t g0 = g + 1 < starts.size() ? starts[g] : 0, g1 = g + 1 < starts.size() ? starts[g + 1] : 0;
    const std::size_t nci = g1 - g0;  // a rank without (more) rows of A only passes B's chunks on
    std::vector<std::size_t> rows;
    std::vector<Chunk> c;
    for (std::size_t i = g0; i < g1; ++i) {
      rows.push_back(rows_of_chunk(A.storage.local_extent(i)));
      const std::size_t count = rows.back() * N;
      c.push_back(q.submit(
          "matmul.zero", {},
          [count, d](TaskContext& ctx) {
            std::vector<double> z(count, 0.0);
            from_host(ctx.output_as<double>(count).data(), z.data(), count, d);
          },
          device_task()));
    }
    for (const Source& src : sources) {
      Chunk piece;
      if (local) {
        piece = bchunks[src.j];
      } else {
        std::vector<Chunk> from;
        if (src.owner == rank) from.push_back(bchunks[src.j]);
        const bool wanted = nci > 0;
        piece = q.submit(
            "matmul.bcast", std::move(from),
            [owner = src.owner, count = src.count, wanted, d](TaskContext& ctx) {
              std::vector<double> host =
                  ctx.num_inputs() > 0 ? to_host(ctx.input_as<double>(0).data(), count, d) : std::vector<double>(count);
              ctx.comm().bcast(std::span<double>(host), owner);
              if (wanted) from_host(ctx.output_as<double>(count).data(), host.data(), count, d);
            },
            device_task(TraceKind::comm, true));
      }
      if (nci == 0) continue;
      std::vector<Chunk> inputs = std::move(c);
      inputs.insert(inputs.end(), achunks.begin() + std::ptrdiff_t(g0), achunks.begin() + std::ptrdiff_t(g1));
      inputs.push_back(std::move(piece));
      c = q.submit_multi(
          "matmul.update", std::move(inputs), nci,
          [nci, rows, pc = src.piece, K, N, ta, tb, d](TaskContext& ctx) {
            const double* bp = ctx.input_as<double>(2 * nci).data();
            const std::size_t ldb = tb ? pc.kc : pc.nc;
            for (std::size_t i = 0; i < nci; ++i) {
              const double* ap = ctx.input_as<double>(nci + i).data();
              const std::size_t lda = ta ? rows[i] : K;  // A_i: rows x K, or transposed K x rows
              double* ci = reinterpret_cast<double*>(ctx.input_pin(i).data()) + pc.n0;
              gemm_acc(d, ta, tb, rows[i], pc.nc, pc.kc, ap + pc.k0 * (ta ? lda : 1), lda, bp, ldb, ci, N);
            }
            for (std::size_t i = 0; i < nci; ++i) ctx.set_output(ctx.input_pin(i).buffer(), i);
          },
          device_task());
    }
    result.insert(result.end(), c.begin(), c.end());
  }
  return Array<double>(engine, std::move(cl), std::move(result));
}

std::string shape_of(const Array<double>& x) { return to_string(x.shape()); }

}  // namespace

Array<double> matmul(const Array<double>& a, const Array<double>& b) {
  SLAB_EXPECTS(a.valid() && b.valid(), InvalidArgument, "linalg::matmul: an operand is an empty array handle");
  SLAB_EXPECTS(&a.engine() == &b.engine(), InvalidArgument,
               "linalg::matmul: A " + shape_of(a) + " and B " + shape_of(b) + " belong to different engines");
  SLAB_EXPECTS(a.ndim() == 2 || b.ndim() == 2, ShapeError,
               "linalg::matmul: A " + shape_of(a) + " and B " + shape_of(b) +
                   " are both 1-D: their product is a scalar (use slab::sum(a * b))");
  Engine& engine = a.engine();
  const int p = engine.comm().size();
  const std::int64_t m = a.ndim() == 1 ? 1 : a.rows(), k = a.ndim() == 1 ? a.rows() : a.cols();
  const std::int64_t n = b.ndim() == 1 ? 1 : b.cols();
  SLAB_EXPECTS(b.rows() == k, ShapeError,
               "linalg::matmul: A " + shape_of(a) + " and B " + shape_of(b) + " do not align: A has " +
                   std::to_string(k) + (a.ndim() == 1 ? " elements" : " columns") + ", B has " +
                   std::to_string(b.rows()) + (b.ndim() == 1 ? " elements" : " rows"));
  const Shape shape = a.ndim() == 1 ? Shape{n} : b.ndim() == 1 ? Shape{m} : Shape{m, n};
  if (m == 0 || n == 0 || k == 0) return zeros<double>(engine, shape, Split::rows);  // an empty sum is 0

  const bool xxt = a.ndim() == 2 && b.transpose_of().is_same(a);  // X X^T
  const bool ata = b.ndim() == 2 && a.transpose_of().is_same(b);  // A^T A
  if (xxt)
    if (const io::DatasetInfo* x = io::source_dataset(a)) return detail::gram_xxt_lazy(engine, *x);
  // Contract over k when C is no larger than the operands a rank holds (and than B, which streaming would send).
  const double dm = double(m), dn = double(n), dk = double(k);
  const bool contraction = a.ndim() == 1 || (m <= k && dm * dn * p <= dk * (dm + dn));
  if (!contraction) return stream(engine, a, b, shape);
  const Layout target = Layout::make(shape, Split::rows, p);
  const Operand A = operand_of(a), B = operand_of(b);
  // k along the storage's rows: a 1-D a, A = S^T, natural B; along its columns: natural A, B = T^T.
  const KSide ka{A.storage, a.ndim() == 1 || A.trans}, kb{B.storage, !B.trans};
  return contract(engine, ka, kb, xxt || ata, m, n, target);
}

}  // namespace slab::linalg
