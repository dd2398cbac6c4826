// Gram matrices: X X^T out of core from HDF5 (streamed dsyrk into one accumulator per rank, fixed-tree
// reduction, atomic write next to X) and A^T A of a row-split Array.
#include "slab/linalg/gram.hpp"

#include <cblas.h>
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "linalg/cuda/gram_kernels.hpp"
#include "slab/core/units.hpp"
#include "slab/memory/memory_manager.hpp"

namespace slab::linalg {
namespace {

// C (n x n row-major, upper) += A A^T (A n x k, lda) or A^T A (A k x n, lda), on the tier's memory.
void syrk(bool use_gpu, void* stream, std::uint64_t n, std::uint64_t k, const double* a, std::uint64_t lda, double* c,
          bool trans) {
  if (n == 0 || k == 0) return;
  if (use_gpu) {
    detail::gram_syrk_device(n, k, a, lda, c, n, trans, stream);
    return;
  }
  cblas_dsyrk(CblasRowMajor, CblasUpper, trans ? CblasTrans : CblasNoTrans, static_cast<int>(n), static_cast<int>(k),
              1.0, a, static_cast<int>(lda), 1.0, c, static_cast<int>(n));
}

void zero(bool use_gpu, void* stream, void* p, std::uint64_t bytes) {
  if (use_gpu)
    detail::gram_zero_device(p, bytes, stream);
  else
    std::memset(p, 0, bytes);
}

// Mirror the upper triangle into the lower one.
void symmetrize(double* y, std::uint64_t n) {
  const std::uint64_t tile = 64;
  for (std::uint64_t i0 = 0; i0 < n; i0 += tile)
    for (std::uint64_t j0 = i0; j0 < n; j0 += tile)
      for (std::uint64_t i = i0; i < std::min(n, i0 + tile); ++i)
        for (std::uint64_t j = std::max(j0, i + 1); j < std::min(n, j0 + tile); ++j) y[j * n + i] = y[i * n + j];
}

// Pin the final accumulator, bring it to host memory, reduce it over the fixed tree to `root`, mirror it.
// Returns the host copy (empty when the accumulator could be reduced in place; then `pin` holds the data).
void reduce_accumulator(const Comm& comm, Chunk& acc, std::uint64_t n, const ExecutionContext& exec,
                        std::vector<double>& host, Pin& pin, double*& y, int root) {
  pin = acc.buffer()->pin();
  const std::size_t count = static_cast<std::size_t>(n * n);
  if (exec.on_device()) {
    host.resize(count);
    slab::copy(host.data(), pin.data(), count * sizeof(double), exec);
    pin.reset();
    acc = Chunk();
    y = host.data();
  } else {
    y = reinterpret_cast<double*>(pin.data());
  }
  std::span<const double> in(y, count);
  std::span<double> out = comm.rank() == root ? std::span<double>(y, count) : std::span<double>();
  comm.reduce(in, out, ReduceOp::sum, root);
  if (comm.rank() == root) symmetrize(y, n);
}

}  // namespace

std::uint64_t gram_block_cols(std::uint64_t n, std::uint64_t m, std::uint64_t device_bytes, std::uint64_t chunk_cols,
                              int ranks) {
  const std::uint64_t device_limit = device_bytes;
  const std::uint64_t acc = n * n * sizeof(double);
  const std::uint64_t column = n * sizeof(double);
  if (acc + column > device_limit || n == 0)
    SLAB_EXPECTS(n == 0, OutOfMemory,
                 "gram: Y = X X^T for X with n = " + std::to_string(n) + " rows needs an n x n accumulator of " +
                     format_bytes(acc) + " plus a block of at least one column (" + format_bytes(column) +
                     "), more than the memory limit of " + format_bytes(device_limit) + "; raise --memory-limit");
  if (n == 0) return std::max<std::uint64_t>(1, m);
  std::uint64_t k = (device_limit - acc) / (2 * column);
  if (k == 0) k = 1;  // acc + one column fits; two do not
  const std::uint64_t share = (m + static_cast<std::uint64_t>(std::max(ranks, 1)) - 1) / std::max(ranks, 1);
  k = std::min({k, std::max<std::uint64_t>(m, 1), std::max<std::uint64_t>(share, 1)});
  if (chunk_cols > 0 && k >= chunk_cols) k = k / chunk_cols * chunk_cols;
  return std::max<std::uint64_t>(k, 1);
}

std::vector<double> gram_xxt(Engine& engine, const io::DatasetInfo& x, const std::string& out_file,
                             const std::string& out_dataset, const GramOptions& options, GramReport* report,
                             bool keep_result) {
  TaskQueue& tasks = engine.tasks();
  Comm& comm = engine.comm();
  MemoryManager& memory = engine.memory();
  const bool use_gpu = memory.execution().on_device();
  void* stream = memory.execution().stream();
  const std::uint64_t n = x.rows();
  const std::uint64_t m = x.cols();
  auto rep = std::make_shared<GramReport>();
  rep->n = n;
  rep->m = m;
  // The accumulator and two column blocks (one being read, one multiplied in) share what the device tier has
  // besides what is pinned or reserved; every rank uses the smallest rank's share, so the blocks agree.
  const std::uint64_t device_bytes = comm.allreduce(memory.budget(1), ReduceOp::min);
  comm.run_collectively([&] {
    const std::uint64_t chunk_cols = x.chunk.size() == 2 ? x.chunk[1] : 0;
    rep->block_cols =
        options.block_cols > 0 ? options.block_cols : gram_block_cols(n, m, device_bytes, chunk_cols, comm.size());
  });
  const std::uint64_t k = rep->block_cols;
  rep->blocks = m == 0 ? 0 : (m + k - 1) / k;

  // The accumulator lives for the whole pass: reserve it now, so the blocks are read into what is left.
  auto acc_room = std::make_shared<Reservation>();
  comm.run_collectively([&] { *acc_room = memory.reserve("gram accumulator", n * n * sizeof(double)); });
  Chunk acc = tasks.submit("gram.zero", {}, [n, use_gpu, stream, acc_room](TaskContext& ctx) {
    BufferPtr out = acc_room->allocate(n * n * sizeof(double), "gram accumulator");
    Pin pin = out->pin();
    zero(use_gpu, stream, pin.data(), pin.size());
    ctx.set_output(std::move(out));
  });
  for (std::uint64_t b = static_cast<std::uint64_t>(comm.rank()); b < rep->blocks; b += comm.size()) {
    const std::uint64_t j0 = b * k;
    const std::uint64_t w = std::min(k, m - j0);
    ++rep->local_blocks;
    Chunk block = tasks.submit("gram.read", {},
                               [x, n, j0, w, use_gpu, stream, rep](TaskContext& ctx) {
                                 const double t0 = MPI_Wtime();
                                 auto out = ctx.output(n * w * sizeof(double));
                                 if (use_gpu) {
                                   std::vector<double> host(n * w);
                                   slab::io::read_block(x, 0, n, j0, w, ElementType::float64, host.data());
                                   slab::copy(out.data(), host.data(), out.size(), ctx.execution());
                                 } else {
                                   slab::io::read_block(x, 0, n, j0, w, ElementType::float64, out.data());
                                 }
                                 rep->read_seconds += MPI_Wtime() - t0;
                               },
                               {TraceKind::io, false});
    acc = tasks.submit("gram.syrk", {std::move(acc), std::move(block)}, [n, w, use_gpu, stream, rep](TaskContext& ctx) {
      Pin& a = ctx.input_pin(0);
      auto blk = ctx.input_as<double>(1);
      const double t0 = MPI_Wtime();
      syrk(use_gpu, stream, n, w, blk.data(), w, reinterpret_cast<double*>(a.data()), false);
      rep->syrk_seconds += MPI_Wtime() - t0;
      rep->syrk_flops += static_cast<double>(n) * static_cast<double>(n + 1) * static_cast<double>(w);
      ctx.set_output(a.buffer());  // fold in place: the accumulator moves on, no copy
    });
  }
  tasks.persist(acc);

  const double t0 = MPI_Wtime();
  std::vector<double> host;
  Pin pin;
  double* y = nullptr;
  reduce_accumulator(comm, acc, n, memory.execution(), host, pin, y, 0);
  rep->reduce_seconds = MPI_Wtime() - t0;

  if (!out_file.empty()) {
    const double t1 = MPI_Wtime();
    slab::io::DatasetWriter writer(comm, out_file, out_dataset, ElementType::float64, {n, n});
    const bool root = comm.rank() == 0;
    writer.write_collective(0, root ? n : 0, 0, n, y);
    writer.commit();
    rep->write_seconds = MPI_Wtime() - t1;
  }
  std::vector<double> result;
  if (keep_result && comm.rank() == 0) {
    if (!host.empty())
      result = std::move(host);
    else
      result.assign(y, y + n * n);
  }
  if (report) *report = *rep;
  return result;
}

std::vector<double> gram_ata(const Array<double>& a) {
  Engine& engine = a.engine();
  TaskQueue& tasks = engine.tasks();
  Comm& comm = engine.comm();
  comm.run_collectively([&] {
    if (a.split() != Split::rows)
      SLAB_FAIL(ShapeError, std::string("gram_ata: A must be split by rows, not ") + to_string(a.split()));
  });
  const bool use_gpu = tasks.memory().execution().on_device();
  void* stream = tasks.memory().execution().stream();
  const std::uint64_t m = static_cast<std::uint64_t>(a.cols());
  Chunk acc = tasks.submit("gram.zero", {}, [m, use_gpu, stream](TaskContext& ctx) {
    auto out = ctx.output(m * m * sizeof(double));
    zero(use_gpu, stream, out.data(), out.size());
  });
  for (std::size_t i = 0; i < a.num_local_chunks(); ++i) {
    const std::uint64_t r = static_cast<std::uint64_t>(a.local_extent(i).rows);
    acc = tasks.submit("gram.ata_syrk", {std::move(acc), a.local_chunk(i)}, [m, r, use_gpu, stream](TaskContext& ctx) {
      Pin& p = ctx.input_pin(0);
      auto blk = ctx.input_as<double>(1);
      syrk(use_gpu, stream, m, r, blk.data(), m, reinterpret_cast<double*>(p.data()), true);
      ctx.set_output(p.buffer());
    });
  }
  tasks.persist(acc);
  std::vector<double> host;
  Pin pin;
  double* y = nullptr;
  reduce_accumulator(comm, acc, m, tasks.memory().execution(), host, pin, y, 0);
  std::vector<double> result(m * m);
  if (comm.rank() == 0) std::copy(y, y + m * m, result.begin());
  comm.bcast(std::span<double>(result), 0);
  return result;
}

}  // namespace slab::linalg
