// Arrays from and to HDF5.
#include "slab/io/array_io.hpp"

#include <algorithm>
#include <string>

#include "slab/core/error.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/runtime/copy_async.hpp"
#include "slab/runtime/staging_block.hpp"

namespace slab::io {
namespace {

// Whether every value of `from` is a value of `to` (the widenings ReadOptions::widen makes).
bool widens_exactly(ElementType from, ElementType to) {
  if (from == ElementType::int32) return to == ElementType::int64 || to == ElementType::float64;
  return from == ElementType::float32 && to == ElementType::float64;
}

// The dataset's dtype against T's: the same, or widened on request; otherwise a TypeError on every rank.
void check_dtype(const Comm& comm, const DatasetInfo& info, ElementType want, bool widen) {
  comm.run_collectively([&] {
    if (info.type == want) return;
    const std::string stored = to_string(info.type), asked = to_string(want);
    const std::string what = info.name() + " is " + stored + "; expected " + asked;
    if (widens_exactly(info.type, want)) {
      if (widen) return;
      SLAB_FAIL(TypeError, what + " (ReadOptions::widen = true reads " + stored + " as " + asked + ", exactly)");
    }
    SLAB_FAIL(TypeError, what + " (reading " + stored + " as " + asked + " could change values, so it is never " +
                             "done implicitly: read it as " + stored + " and convert with astype())");
  });
}

}  // namespace

template <ArrayElement T>
Array<T> read_hdf5(Engine& engine, const std::string& file, const std::string& dataset, Split split,
                   ReadOptions options) {
  Comm& comm = engine.comm();
  const DatasetInfo info = inspect(comm, file, dataset);
  check_dtype(comm, info, element_type_v<T>, options.widen);
  const Shape shape = info.shape.size() == 1
                          ? Shape{static_cast<std::int64_t>(info.rows())}
                          : Shape{static_cast<std::int64_t>(info.rows()), static_cast<std::int64_t>(info.cols())};
  std::int64_t chunk = options.chunk;
  if (chunk <= 0) {
    chunk = Layout::default_chunk(shape.rows, shape.cols, split, sizeof(T));
    const std::size_t axis = split == Split::cols ? 1 : 0;
    if (axis < info.chunk.size()) {
      const auto fc = static_cast<std::int64_t>(info.chunk[axis]);
      if (fc > 0 && chunk >= fc) chunk = chunk / fc * fc;
    }
  }
  Layout layout;
  comm.run_collectively([&] { layout = Layout::make(shape, split, comm.size(), chunk, sizeof(T)); });
  const int rank = comm.rank();
  std::vector<Chunk> chunks;
  for (std::int64_t i = 0; i < layout.num_chunks(rank); ++i) {
    const ChunkExtent e = layout.chunk_extent(rank, i);
    chunks.push_back(engine.tasks().submit(
        "hdf5.read", {},
        [info, e](TaskContext& ctx) {
          auto out = ctx.output_as<T>(static_cast<std::size_t>(e.size()));
          const auto r0 = static_cast<std::uint64_t>(e.row0), nr = static_cast<std::uint64_t>(e.rows);
          const auto c0 = static_cast<std::uint64_t>(e.col0), nc = static_cast<std::uint64_t>(e.cols);
          // On a GPU through page-locked staging, each slab's copy overlapping the next slab's read.
          read_block_to(info, r0, nr, c0, nc, element_type_v<T>, out.data(), ctx.memory());
        },
        device_task(TraceKind::io)));
  }
  Array<T> out(engine, std::move(layout), std::move(chunks));
  out.set_source(std::make_shared<const DatasetSource>(info));
  return out;
}

template <ArrayElement T>
const DatasetInfo* source_dataset(const Array<T>& array) {
  if (!array.valid()) return nullptr;
  const auto* source = dynamic_cast<const DatasetSource*>(array.source().get());
  return source ? &source->info : nullptr;
}

template <ArrayElement T>
void write_hdf5(const Array<T>& array, const std::string& file, const std::string& dataset,
                std::vector<std::uint64_t> chunk) {
  Engine& engine = array.engine();
  Comm& comm = engine.comm();
  const Layout& layout = array.layout();
  std::vector<std::uint64_t> shape{static_cast<std::uint64_t>(layout.rows)};
  if (layout.ndim == 2) shape.push_back(static_cast<std::uint64_t>(layout.cols));
  if (layout.ndim == 1 && chunk.size() == 2) chunk.resize(1);
  // Split none: every rank holds everything; rank 0 alone writes.
  const bool writes = layout.split != Split::none || comm.rank() == 0;
  const std::int64_t mine = writes ? static_cast<std::int64_t>(array.num_local_chunks()) : 0;
  const std::int64_t rounds = comm.allreduce(mine, ReduceOp::max);
  auto compute_round = [&](std::int64_t r) {
    const bool have = r < mine;
    const Chunk* c = have ? &array.local_chunk(static_cast<std::size_t>(r)) : nullptr;
    engine.tasks().persist(have ? std::span<const Chunk>(c, 1) : std::span<const Chunk>());
    return c;
  };
  // Round 0 (and every collective task recorded before it: persist runs them all) before the file is opened for
  // writing: what it reads from this file is read through a handle of its own while no writer has it open.
  // Where the device tier is GPU memory each round's chunk is copied to a page-locked staging block of the memory
  // manager's pool (held in a host reservation, "hdf5 write staging") and the next round's copy is enqueued before
  // this round's write, so that it runs while the file is written.
  const ExecutionContext& exec = engine.execution();
  MemoryManager& memory = engine.memory();
  struct Round {
    ChunkExtent e{};
    Pin pin;
    Reservation room;
    StagingBlock staged;
    const void* data = nullptr;
  };
  auto stage = [&](std::int64_t r, const Chunk* c) {
    Round out;
    comm.run_collectively([&] {
      if (r >= mine) return;
      out.e = array.local_extent(static_cast<std::size_t>(r));
      out.pin = c->buffer()->pin();
      out.data = out.pin.data();
      if (!exec.device_kernels()) return;
      const std::uint64_t bytes = static_cast<std::uint64_t>(out.e.size()) * sizeof(T);
      out.room = memory.reserve_host("hdf5 write staging", bytes);
      out.staged = memory.staging_block(bytes);
      slab::copy_async(out.staged.data(), out.pin.data(), bytes, exec);
      out.data = out.staged.data();
    });
    return out;
  };
  // One chunk pinned at a time, as on the host: a round's chunk is let go once its bytes are in staging. The
  // reference place stages too (host copies), so CI runs this loop.
  const bool staged = exec.device_kernels();
  Round cur = rounds > 0 ? stage(0, compute_round(0)) : Round{};
  DatasetWriter writer(comm, file, dataset, element_type_v<T>, shape, std::move(chunk));
  for (std::int64_t r = 0; r < rounds; ++r) {
    const bool more = r + 1 < rounds;
    Round next;
    if (staged) {
      comm.run_collectively([&] { exec.synchronize(); });  // this round's copy (enqueued a round ago) is done
      cur.pin.reset();
      if (more) next = stage(r + 1, compute_round(r + 1));  // its copy runs during this round's write
    }
    writer.write_collective(static_cast<std::uint64_t>(cur.e.row0), static_cast<std::uint64_t>(cur.e.rows),
                            static_cast<std::uint64_t>(cur.e.col0), static_cast<std::uint64_t>(cur.e.cols), cur.data);
    if (!staged) {
      cur = Round{};
      if (more) next = stage(r + 1, compute_round(r + 1));
    }
    cur = std::move(next);
  }
  comm.run_collectively([&] { exec.synchronize(); });  // no copy still reads a staging block that goes now
  writer.commit();
}

#define SLAB_IO_INSTANTIATE(T)                                                                                      \
  template Array<T> read_hdf5<T>(Engine&, const std::string&, const std::string&, Split, ReadOptions);              \
  template void write_hdf5<T>(const Array<T>&, const std::string&, const std::string&, std::vector<std::uint64_t>); \
  template const DatasetInfo* source_dataset<T>(const Array<T>&);
SLAB_IO_INSTANTIATE(float)
SLAB_IO_INSTANTIATE(double)
SLAB_IO_INSTANTIATE(std::int32_t)
SLAB_IO_INSTANTIATE(std::int64_t)
#undef SLAB_IO_INSTANTIATE

}  // namespace slab::io
