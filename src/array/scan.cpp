// cumsum: a local scan per chunk, the chunks' totals combined in global order, then an offset per chunk; on the
// device kernels of array/kernels/scan.hpp where the rank takes device paths.
#include "slab/array/scan.hpp"

#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "array/kernels/scan.hpp"
#include "memory/kernel_scratch.hpp"
#include "runtime/device_backend.hpp"
#include "slab/comm/comm.hpp"
#include "slab/core/error.hpp"
#include "slab/engine/engine.hpp"
#include "slab/engine/host_fallback.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/task/task_queue.hpp"

namespace slab {
namespace {

// a + b as NumPy adds: int64 wraps (two's complement) instead of overflowing into undefined behaviour.
TaskOptions place_of(bool device) { return device ? device_task() : TaskOptions{}; }

template <class T>
T add(T a, T b) {
  if constexpr (std::is_same_v<T, std::int64_t>)
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
  else
    return a + b;
}

// The device kernels of the two scan steps where `device`, else the host loops (S = sum_t<T>).
template <class T, class S>
void prefix_sums(TaskContext& ctx, bool device, std::span<const T> x, std::span<S> out) {
  if (device) {
    detail::with_device_backend(ctx.execution(), [&](auto tag) {
      using B = typename decltype(tag)::type;
      detail::KernelScratch scratch(ctx.memory());  // the scan's temporary storage, counted against the limit
      kernels::ScanKernels<B, T, S>::prefix(scratch.exec(ctx.execution()), x.data(),
                                            static_cast<std::int64_t>(x.size()), out.data());
    });
    return;
  }
  S run{};
  for (std::size_t k = 0; k < x.size(); ++k) out[k] = run = add(run, static_cast<S>(x[k]));
}
template <class T, class S>
void offset_sums(TaskContext& ctx, bool device, S offset, std::span<const S> p, std::span<S> out) {
  if (device) {
    detail::with_device_backend(ctx.execution(), [&](auto tag) {
      using B = typename decltype(tag)::type;
      detail::KernelScratch scratch(ctx.memory());
      kernels::ScanKernels<B, T, S>::add_offset(scratch.exec(ctx.execution()), p.data(),
                                                static_cast<std::int64_t>(p.size()), offset, out.data());
    });
    return;
  }
  for (std::size_t k = 0; k < p.size(); ++k) out[k] = add(offset, p[k]);
}

}  // namespace

template <ArrayElement T>
Array<sum_t<T>> cumsum(const Array<T>& in) {
  using S = sum_t<T>;  // int32 sums are int64, as NumPy's
  // Device tasks (ScanKernels) where the rank takes device paths; the chunk totals and offsets are a value per
  // chunk, read and added up on the host.
  const bool device = detail::has_device_backend(in.engine().tasks().memory().execution());
  if (!device) note_host_fallback(in.engine(), "cumsum");
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
    prefix[i] = tasks.submit(
        "cumsum.local", {a.local_chunk(i)},
        [device](TaskContext& ctx) {
          const auto x = ctx.input_as<T>(0);
          prefix_sums<T, S>(ctx, device, x, ctx.output_as<S>(x.size()));
        },
        place_of(device));
    totals[i] = tasks.submit(
        "cumsum.total", {prefix[i]},
        [](TaskContext& ctx) {  // the last running sum (0 for an empty chunk), where the chunk is
          const auto p = ctx.input_as<S>(0);
          auto out = ctx.output(sizeof(S));
          if (p.empty())
            slab::fill(out.data(), 0, sizeof(S), ctx.execution());
          else
            slab::copy(out.data(), &p.back(), sizeof(S), ctx.execution());
        },
        place_of(device));
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
    out[i] = tasks.submit(
        "cumsum.offset", {prefix[i]},
        [offset, device](TaskContext& ctx) {
          const auto p = ctx.input_as<S>(0);
          offset_sums<T, S>(ctx, device, offset, p, ctx.output_as<S>(p.size()));
        },
        place_of(device));
    offset = add(offset, chunk_total[i]);
  }
  return Array<S>(engine, a.layout(), std::move(out));
}

template Array<double> cumsum(const Array<double>&);
template Array<float> cumsum(const Array<float>&);
template Array<std::int64_t> cumsum(const Array<std::int32_t>&);
template Array<std::int64_t> cumsum(const Array<std::int64_t>&);

}  // namespace slab
