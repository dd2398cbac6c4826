// cumsum: a local scan per chunk, the chunks' totals combined in global order, then an offset per chunk.
#include "slab/array/scan.hpp"

#include <cstring>
#include <type_traits>
#include <vector>

#include "slab/comm/comm.hpp"
#include "slab/core/error.hpp"
#include "slab/engine/engine.hpp"
#include "slab/engine/host_fallback.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/task/task_queue.hpp"

namespace slab {
namespace {

// a + b as NumPy adds: int64 wraps (two's complement) instead of overflowing into undefined behaviour.
template <class T>
T add(T a, T b) {
  if constexpr (std::is_same_v<T, std::int64_t>)
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
  else
    return a + b;
}

}  // namespace

template <ArrayElement T>
Array<sum_t<T>> cumsum(const Array<T>& in) {
  using S = sum_t<T>;  // int32 sums are int64, as NumPy's
  note_host_fallback(in.engine(), "cumsum");
  Engine& engine = in.engine();
  Comm& comm = engine.comm();
  comm.run_collectively([&] {
    SLAB_EXPECTS(in.ndim() == 1, ShapeError, "cumsum: a " + in.layout().to_string() + " is 2-D; cumsum takes 1-D");
  });
  const Array<T> a = in.split() == Split::rows ? in : in.resplit(Split::rows);
  TaskQueue& tasks = engine.tasks();

  // 1. Each chunk's local running sums, and a one-value chunk with its total.
  const std::size_t nchunks = a.num_local_chunks();
  std::vector<Chunk> prefix(nchunks), totals(nchunks);
  for (std::size_t i = 0; i < nchunks; ++i) {
    prefix[i] = tasks.submit("cumsum.local", {a.local_chunk(i)}, [](TaskContext& ctx) {
      const auto x = ctx.input_as<T>(0);
      auto out = ctx.output_as<S>(x.size());
      S run{};
      for (std::size_t k = 0; k < x.size(); ++k) out[k] = run = add(run, static_cast<S>(x[k]));
    });
    totals[i] = tasks.submit("cumsum.total", {prefix[i]}, [](TaskContext& ctx) {
      const auto p = ctx.input_as<S>(0);
      ctx.output_as<S>(1)[0] = p.empty() ? S{} : p.back();
    });
  }
  tasks.persist(totals);  // collective: every rank, once

  // 2. This rank's chunk totals in order, then every rank's total: offsets in global order.
  std::vector<S> chunk_total(nchunks);
  for (std::size_t i = 0; i < nchunks; ++i) {
    Pin pin = totals[i].buffer()->pin();
    slab::copy(&chunk_total[i], pin.data(), sizeof(S), engine.execution());
  }
  totals.clear();
  S mine{};
  for (const S t : chunk_total) mine = add(mine, t);
  std::vector<S> rank_total(static_cast<std::size_t>(comm.size()));
  comm.allgather(std::span<const S>(&mine, 1), std::span<S>(rank_total));
  S offset{};
  for (int r = 0; r < comm.rank(); ++r) offset = add(offset, rank_total[static_cast<std::size_t>(r)]);

  // 3. Each chunk adds what came before it (lazy).
  std::vector<Chunk> out(nchunks);
  for (std::size_t i = 0; i < nchunks; ++i) {
    out[i] = tasks.submit("cumsum.offset", {prefix[i]}, [offset](TaskContext& ctx) {
      const auto p = ctx.input_as<S>(0);
      auto o = ctx.output_as<S>(p.size());
      for (std::size_t k = 0; k < p.size(); ++k) o[k] = add(offset, p[k]);
    });
    offset = add(offset, chunk_total[i]);
  }
  return Array<S>(engine, a.layout(), std::move(out));
}

template Array<double> cumsum(const Array<double>&);
template Array<float> cumsum(const Array<float>&);
template Array<std::int64_t> cumsum(const Array<std::int32_t>&);
template Array<std::int64_t> cumsum(const Array<std::int64_t>&);

}  // namespace slab
