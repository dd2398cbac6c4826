// Gram matrices: X X^T out of core from HDF5 (reads overlapped with a streamed dsyrk into one accumulator per
// rank, a reduce-scatter of the sums into each rank's rows of Y, one collective atomic write next to X) and A^T A
// of a row-split Array.
#include "slab/linalg/gram.hpp"

#include <cblas.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <thread>
#include <tuple>

#include "core/kernels/device.hpp"
#include "linalg/cuda/gram_kernels.hpp"
#include "linalg/gram_detail.hpp"
#include "linalg/gram_tiles.hpp"
#include "slab/core/units.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/trace/tracer.hpp"

namespace slab::linalg {
namespace {

// C (n x n row-major, upper) += A A^T (A n x k, lda) or A^T A (A k x n, lda), on the tier's memory: cuBLAS dgemm
// over C's upper tiles on a GPU (enqueued only: the caller waits with exec.synchronize()); the same tiles on the
// host's dgemm on the reference place (so CI runs the device's composition, gram_tiles.hpp); dsyrk on the host, the
// fastest there.
void syrk(const ExecutionContext& exec, std::uint64_t n, std::uint64_t k, const double* a, std::uint64_t lda, double* c,
          bool trans) {
  if (n == 0 || k == 0) return;
  if (exec.place() == ExecutionPlace::cuda) {
    slab::detail::gram_syrk_device_async(exec, n, k, a, lda, c, n, trans);
    return;
  }
  if (exec.place() == ExecutionPlace::reference) {
    detail::gram_by_tiles(n, k, a, lda, c, n, trans, 1.0,
                          [](const detail::GramTileProduct& p, std::uint64_t ld_a, std::uint64_t ld_c, double beta) {
                            cblas_dgemm(CblasRowMajor, p.a_trans ? CblasTrans : CblasNoTrans,
                                        p.b_trans ? CblasTrans : CblasNoTrans, static_cast<int>(p.m),
                                        static_cast<int>(p.n), static_cast<int>(p.k), 1.0, p.a, static_cast<int>(ld_a),
                                        p.b, static_cast<int>(ld_a), beta, p.c, static_cast<int>(ld_c));
                          });
    return;
  }
  cblas_dsyrk(CblasRowMajor, CblasUpper, trans ? CblasTrans : CblasNoTrans, static_cast<int>(n), static_cast<int>(k),
              1.0, a, static_cast<int>(lda), 1.0, c, static_cast<int>(n));
}

// Mirror the upper triangle into the lower one.
void symmetrize(double* y, std::uint64_t n) {
  const std::uint64_t tile = 64;
  for (std::uint64_t i0 = 0; i0 < n; i0 += tile)
    for (std::uint64_t j0 = i0; j0 < n; j0 += tile)
      for (std::uint64_t i = i0; i < std::min(n, i0 + tile); ++i)
        for (std::uint64_t j = std::max(j0, i + 1); j < std::min(n, j0 + tile); ++j) y[j * n + i] = y[i * n + j];
}

// Pin the final accumulator (copied to host memory on the GPU path, and the device copy released), mirror its upper
// triangle and reduce-scatter it in place into row blocks (gram_row_block): every rank then holds its rows of the
// sum, bitwise those of a tree reduce of the whole matrix. Returns this rank's rows; `host` and `pin` keep them.
std::span<double> reduce_scatter_rows(const Comm& comm, Tracer& tracer, Chunk& acc, std::uint64_t n,
                                      const ExecutionContext& exec, std::vector<double>& host, Pin& pin) {
  pin = acc.buffer()->pin();
  auto* y = reinterpret_cast<double*>(pin.data());
  const auto count = static_cast<std::size_t>(n * n);
  if (exec.on_device()) {
    host.resize(count);
    slab::copy(host.data(), pin.data(), count * sizeof(double), exec);
    pin.reset();
    acc = Chunk();  // the device tier's copy goes now
    y = host.data();
  }
  {
    const Tracer::Scope traced(tracer, "gram.symmetrize", TraceKind::compute, count * sizeof(double));
    symmetrize(y, n);  // every rank: then each row block of the sum is whole, and summed in one order
  }
  std::vector<std::size_t> counts(static_cast<std::size_t>(comm.size()));
  for (int r = 0; r < comm.size(); ++r)
    counts[static_cast<std::size_t>(r)] = static_cast<std::size_t>(gram_row_block(n, comm.size(), r).second * n);
  return comm.reduce_scatter(std::span<double>(y, count), counts, ReduceOp::sum);
}

// Read `w` columns of X from column j0 into `out` (n x w row-major; device memory on the GPU path).
void read_columns(const io::DatasetInfo& x, std::uint64_t n, std::uint64_t j0, std::uint64_t w, MemoryManager& memory,
                  std::byte* out) {
  slab::io::read_block_to(x, 0, n, j0, w, ElementType::float64, out, memory);
}

// The streaming pass of gram_xxt, recorded (the caller persists `acc`): this rank's blocks b = rank, rank + p, ...
// The first block is read by a task
// of its own; then each task "gram.syrk" folds block i into the accumulator (input 0, passed on as output 0)
// while it reads block i + 1 (output 1) on this thread: the dsyrk runs on a worker thread (host) or is only
// enqueued on the stream (GPU). HDF5 is called from this thread alone (Debian's parallel HDF5 is not built
// thread-safe) and so is the memory manager; the worker touches only the two pinned buffers. Each read is
// recorded as a "gram.read" io event inside its "gram.syrk" task, so the trace shows the overlap.
void pass(TaskQueue& tasks, const io::DatasetInfo& x, const std::shared_ptr<GramReport>& rep, bool overlap,
          Chunk& acc) {
  const Comm& comm = tasks.comm();
  const std::uint64_t n = rep->n, m = rep->m, k = rep->block_cols;
  std::vector<std::uint64_t> mine;
  for (std::uint64_t b = static_cast<std::uint64_t>(comm.rank()); b < rep->blocks; b += comm.size()) mine.push_back(b);
  rep->local_blocks = mine.size();
  auto width = [=](std::uint64_t b) { return std::min(k, m - b * k); };
  Chunk block;
  if (!mine.empty()) {
    const std::uint64_t j0 = mine[0] * k, w = width(mine[0]);
    block = tasks.submit(
        "gram.read", {},
        [x, n, j0, w, rep](TaskContext& ctx) {
          const double t0 = MPI_Wtime();
          auto out = ctx.output(n * w * sizeof(double));
          read_columns(x, n, j0, w, ctx.memory(), out.data());
          rep->read_seconds += MPI_Wtime() - t0;
        },
        device_task(TraceKind::io, false));
  }
  for (std::size_t i = 0; i < mine.size(); ++i) {
    const std::uint64_t w = width(mine[i]);
    const bool more = i + 1 < mine.size();
    const std::uint64_t next_j0 = more ? mine[i + 1] * k : 0, next_w = more ? width(mine[i + 1]) : 0;
    auto step = [x, n, w, next_j0, next_w, more, overlap, rep](TaskContext& ctx) {
      const ExecutionContext& exec = ctx.execution();
      const bool use_gpu = exec.on_device();
      Pin& a = ctx.input_pin(0);
      auto* c = reinterpret_cast<double*>(a.data());
      const double* blk = ctx.input_as<double>(1).data();
      std::exception_ptr worker_error;
      double syrk_seconds = 0;
      auto fold = [&] {
        try {
          const auto s0 = std::chrono::steady_clock::now();
          syrk(exec, n, w, blk, w, c, false);  // host or reference: GPUs enqueue below
          syrk_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count();
        } catch (...) {
          worker_error = std::current_exception();
        }
      };
      std::thread worker;
      std::optional<kernels::CudaTimer> timer;  // the GPU time of the dgemm, from events around it on the stream
      if (use_gpu) {
        timer.emplace(exec.stream());
        timer->start();
        syrk(exec, n, w, blk, w, c, false);  // the GPU runs it while we read
        timer->stop_async();
        if (!overlap) {
          exec.synchronize();
          syrk_seconds += timer->seconds();
          timer.reset();
        }
      } else if (more && overlap) {
        worker = std::thread(fold);
      } else {
        fold();  // nothing to overlap with (or asked not to)
      }
      std::exception_ptr read_error;
      if (more) {
        try {
          const double t0 = ctx.tracer().now();
          // The one block read ahead is reserved first (spilling others if it must), then made from the
          // reservation, so the trace and the report show it as "gram prefetch".
          const std::uint64_t bytes = n * next_w * sizeof(double);
          Reservation room = ctx.memory().reserve("gram prefetch", bytes);
          BufferPtr next = room.allocate(bytes, "gram block");
          {
            Pin pinned = next->pin();
            read_columns(x, n, next_j0, next_w, ctx.memory(), pinned.data());  // GPU: copies wait for the dgemm
          }
          ctx.set_output(std::move(next), 1);
          const double t1 = ctx.tracer().now();
          ctx.tracer().record("gram.read", TraceKind::io, t0, t1 - t0, n * next_w * sizeof(double));
          rep->read_seconds += t1 - t0;
        } catch (...) {
          read_error = std::current_exception();
        }
      }
      if (worker.joinable()) worker.join();
      if (timer) {
        try {
          exec.synchronize();  // the buffers stay pinned until the GPU is done
          syrk_seconds += timer->seconds();
        } catch (...) {
          worker_error = std::current_exception();
        }
      }
      if (worker_error) std::rethrow_exception(worker_error);
      if (read_error) std::rethrow_exception(read_error);
      rep->syrk_seconds += syrk_seconds;
      rep->syrk_flops += static_cast<double>(n) * static_cast<double>(n + 1) * static_cast<double>(w);
      ctx.set_output(a.buffer(), 0);  // fold in place: the accumulator moves on, no copy
    };
    std::vector<Chunk> inputs{std::move(acc), std::move(block)};
    if (more) {
      std::vector<Chunk> out = tasks.submit_multi("gram.syrk", std::move(inputs), 2, step, device_task());
      acc = std::move(out[0]);
      block = std::move(out[1]);
    } else {
      acc = tasks.submit("gram.syrk", std::move(inputs), step, device_task());
      block = Chunk();
    }
  }
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
  // At least kMinBlocksPerRank blocks per rank where the share allows: with one block, its read cannot overlap a dsyrk.
  constexpr std::uint64_t kMinBlocksPerRank = 4;
  const std::uint64_t per_block = (share + kMinBlocksPerRank - 1) / kMinBlocksPerRank;
  k = std::min({k, std::max<std::uint64_t>(m, 1), std::max<std::uint64_t>(per_block, 1)});
  if (chunk_cols > 0 && k >= chunk_cols) k = k / chunk_cols * chunk_cols;
  return std::max<std::uint64_t>(k, 1);
}

std::pair<std::uint64_t, std::uint64_t> gram_row_block(std::uint64_t n, int ranks, int rank) {
  const auto p = static_cast<std::uint64_t>(std::max(ranks, 1));
  const auto r = static_cast<std::uint64_t>(std::clamp(rank, 0, std::max(ranks, 1) - 1));
  const std::uint64_t base = n / p, extra = n % p;
  return {r * base + std::min(r, extra), base + (r < extra ? 1 : 0)};
}

namespace {
// X's column blocks for the pass (rep.block_cols, rep.blocks; rep.n and rep.m set): the accumulator and two
// column blocks (one being read, one multiplied in) share what the device tier has besides what is pinned or
// reserved; every rank uses the smallest rank's share, so the blocks agree. Collective.
void plan_column_blocks(const Comm& comm, const MemoryManager& memory, const io::DatasetInfo& x,
                        const GramOptions& options, GramReport& rep) {
  const std::uint64_t device_bytes = comm.allreduce(memory.budget(1), ReduceOp::min);
  comm.run_collectively([&] {
    const std::uint64_t chunk_cols = x.chunk.size() == 2 ? x.chunk[1] : 0;
    rep.block_cols = options.block_cols > 0 ? options.block_cols
                                            : gram_block_cols(rep.n, rep.m, device_bytes, chunk_cols, comm.size());
  });
  rep.blocks = rep.m == 0 ? 0 : (rep.m + rep.block_cols - 1) / rep.block_cols;
}
}  // namespace

std::vector<double> gram_xxt(Engine& engine, const io::DatasetInfo& x, const std::string& out_file,
                             const std::string& out_dataset, const GramOptions& options, GramReport* report,
                             bool keep_result) {
  TaskQueue& tasks = engine.tasks();
  Comm& comm = engine.comm();
  MemoryManager& memory = engine.memory();
  const std::uint64_t n = x.rows();
  const std::uint64_t m = x.cols();
  auto rep = std::make_shared<GramReport>();
  rep->n = n;
  rep->m = m;
  std::tie(rep->row0, rep->rows) = gram_row_block(n, comm.size(), comm.rank());
  plan_column_blocks(comm, memory, x, options, *rep);

  // The accumulator lives for the whole pass: reserve it now, so the blocks are read into what is left.
  auto acc_room = std::make_shared<Reservation>();
  comm.run_collectively([&] { *acc_room = memory.reserve("gram accumulator", n * n * sizeof(double)); });
  Chunk acc = tasks.submit(
      "gram.zero", {},
      [n, acc_room](TaskContext& ctx) {
        BufferPtr out = acc_room->allocate(n * n * sizeof(double), "gram accumulator");
        Pin pin = out->pin();
        slab::fill(pin.data(), 0, pin.size(), ctx.execution());
        ctx.set_output(std::move(out));
      },
      device_task());
  const double tp = MPI_Wtime();
  pass(tasks, x, rep, options.overlap, acc);
  tasks.persist(acc);
  rep->pass_seconds = MPI_Wtime() - tp;

  // Reduce-scatter in place: rank r's rows of the accumulator become rows [row0, row0 + rows) of Y.
  const double t0 = MPI_Wtime();
  std::vector<double> host;  // the GPU path's host copy of the accumulator
  Pin pin;
  const std::span<double> mine = reduce_scatter_rows(comm, engine.tracer(), acc, n, memory.execution(), host, pin);
  rep->reduce_seconds = MPI_Wtime() - t0;

  if (!out_file.empty()) {
    const double t1 = MPI_Wtime();
    slab::io::DatasetWriter writer(comm, out_file, out_dataset, ElementType::float64, {n, n});
    // Every rank writes its rows in the same number of collective calls, each at most ~256 MiB per rank.
    const std::uint64_t rows_per_write =
        std::max<std::uint64_t>(1, (std::uint64_t{256} << 20) / std::max<std::uint64_t>(n * sizeof(double), 1));
    const std::uint64_t most_rows = gram_row_block(n, comm.size(), 0).second;
    const std::uint64_t writes = std::max<std::uint64_t>(1, (most_rows + rows_per_write - 1) / rows_per_write);
    for (std::uint64_t w = 0; w < writes; ++w) {
      const std::uint64_t r0 = std::min(rep->rows, w * rows_per_write);
      const std::uint64_t nr = std::min(rep->rows - r0, rows_per_write);
      writer.write_collective(rep->row0 + r0, nr, 0, n, nr > 0 ? mine.data() + r0 * n : nullptr);
    }
    writer.commit();
    rep->write_seconds = MPI_Wtime() - t1;
  }
  std::vector<double> result;
  if (keep_result) comm.gatherv(std::span<const double>(mine.data(), mine.size()), result, 0);
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
  const std::uint64_t m = static_cast<std::uint64_t>(a.cols());
  Chunk acc = tasks.submit(
      "gram.zero", {},
      [m](TaskContext& ctx) {
        auto out = ctx.output(m * m * sizeof(double));
        slab::fill(out.data(), 0, out.size(), ctx.execution());
      },
      device_task());
  for (std::size_t i = 0; i < a.num_local_chunks(); ++i) {
    const std::uint64_t r = static_cast<std::uint64_t>(a.local_extent(i).rows);
    acc = tasks.submit(
        "gram.ata_syrk", {std::move(acc), a.local_chunk(i)},
        [m, r](TaskContext& ctx) {
          Pin& p = ctx.input_pin(0);
          auto blk = ctx.input_as<double>(1);
          syrk(ctx.execution(), m, r, blk.data(), m, reinterpret_cast<double*>(p.data()), true);
          ctx.execution().synchronize();
          ctx.set_output(p.buffer());
        },
        device_task());
  }
  tasks.persist(acc);
  // Each rank's rows of the sum, then every rank gathers all of them (the result is wanted whole everywhere).
  std::vector<double> host;
  Pin pin;
  const std::span<double> mine =
      reduce_scatter_rows(comm, engine.tracer(), acc, m, tasks.memory().execution(), host, pin);
  std::vector<double> result;
  comm.allgatherv(std::span<const double>(mine.data(), mine.size()), result);
  return result;
}

namespace detail {

void gram_syrk(const ExecutionContext& exec, std::uint64_t n, std::uint64_t k, const double* a, std::uint64_t lda,
               double* c, bool trans) {
  syrk(exec, n, k, a, lda, c, trans);
  exec.synchronize();
}

Chunk zero_accumulator(TaskQueue& tasks, std::uint64_t count, const char* purpose) {
  return tasks.submit(
      "gram.zero", {},
      [count, purpose = std::string(purpose)](TaskContext& ctx) {
        const std::uint64_t bytes = count * sizeof(double);
        Reservation room = ctx.memory().reserve(purpose, bytes);
        BufferPtr out = room.allocate(bytes, purpose);
        Pin pin = out->pin();
        slab::fill(pin.data(), 0, pin.size(), ctx.execution());
        ctx.set_output(std::move(out));
      },
      device_task());
}

Array<double> reduce_scatter_rows(Engine& engine, Chunk acc, std::uint64_t rows, std::uint64_t cols, bool symmetric,
                                  Layout target, const std::string& name) {
  TaskQueue& tasks = engine.tasks();
  const int p = engine.comm().size(), rank = engine.comm().rank();
  SLAB_EXPECTS(target.split == Split::rows && static_cast<std::uint64_t>(target.size()) == rows * cols &&
                   (!symmetric || rows == cols),
               InvalidArgument,
               name + ": a " + std::to_string(rows) + " x " + std::to_string(cols) + " sum cannot be scattered into " +
                   target.to_string());
  std::vector<std::size_t> counts(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r)
    counts[static_cast<std::size_t>(r)] = static_cast<std::size_t>(target.local_rows(r) * target.cols);
  auto offset = std::make_shared<std::size_t>(0);  // where this rank's rows start in the reduced accumulator
  Chunk reduced = tasks.submit(
      name + ".reduce_scatter", {std::move(acc)},
      [rows, cols, symmetric, counts, offset](TaskContext& ctx) {
        Pin& pin = ctx.input_pin(0);
        const ExecutionContext& exec = ctx.execution();
        const auto count = static_cast<std::size_t>(rows * cols);
        auto* y = reinterpret_cast<double*>(pin.data());
        std::vector<double> host;  // the GPU path reduces a host copy (Comm reduces host memory)
        if (exec.on_device()) {
          host.resize(count);
          slab::copy(host.data(), y, count * sizeof(double), exec);
          y = host.data();
        }
        if (symmetric) {
          const Tracer::Scope traced(ctx.tracer(), "gram.symmetrize", TraceKind::compute, count * sizeof(double));
          symmetrize(y, rows);
        }
        const std::span<double> mine = ctx.comm().reduce_scatter(std::span<double>(y, count), counts, ReduceOp::sum);
        *offset = static_cast<std::size_t>(mine.data() - y);
        if (exec.on_device() && !mine.empty())
          slab::copy(reinterpret_cast<double*>(pin.data()) + *offset, mine.data(), mine.size() * sizeof(double), exec);
        ctx.set_output(pin.buffer());  // in place: the accumulator holds this rank's rows now
      },
      device_task(TraceKind::comm, true));
  std::vector<Chunk> chunks;
  const ChunkExtent block = target.block_extent(rank);
  for (std::int64_t i = 0; i < target.num_chunks(rank); ++i) {
    const ChunkExtent e = target.chunk_extent(rank, i);
    const auto off = static_cast<std::size_t>((e.row0 - block.row0) * target.cols);
    const auto count = static_cast<std::size_t>(e.size());
    chunks.push_back(tasks.submit(
        name + ".rows", {reduced},
        [offset, off, count](TaskContext& ctx) {
          const double* in = ctx.input_as<double>(0).data();
          double* out = ctx.output_as<double>(count).data();
          slab::copy(out, in + *offset + off, count * sizeof(double), ctx.execution());
        },
        device_task()));
  }
  return Array<double>(engine, std::move(target), std::move(chunks));
}

Array<double> gram_xxt_lazy(Engine& engine, const io::DatasetInfo& x, const GramOptions& options) {
  TaskQueue& tasks = engine.tasks();
  Comm& comm = engine.comm();
  MemoryManager& memory = engine.memory();
  const std::uint64_t n = x.rows(), m = x.cols();
  auto rep = std::make_shared<GramReport>();
  rep->n = n;
  rep->m = m;
  plan_column_blocks(comm, memory, x, options, *rep);
  Chunk acc = zero_accumulator(tasks, n * n, "gram accumulator");
  pass(tasks, x, rep, options.overlap, acc);
  const auto rows = static_cast<std::int64_t>(n);
  const std::int64_t chunk_rows = std::clamp<std::int64_t>(static_cast<std::int64_t>(rep->block_cols), 1,
                                                           Layout::default_chunk(rows, rows, Split::rows));
  return reduce_scatter_rows(engine, std::move(acc), n, n, true,
                             Layout::make(Shape{rows, rows}, Split::rows, comm.size(), chunk_rows), "gram");
}

}  // namespace detail
}  // namespace slab::linalg
