// argmax / argmin along an axis: local per chunk along the axis a rank holds whole, otherwise a streaming
// reduction of per-chunk candidates on each rank and a merge over the comm's fixed tree. The arithmetic is
// kernels::arg_fold_one / arg_merge (array/kernels/reduction_hd.hpp), which the device path's
// ReductionKernels::arg_lines shares: the first extreme along the axis, or the first NaN.
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "array/device_paths.hpp"
#include "array/expr.hpp"
#include "array/kernels/reduction_hd.hpp"
#include "slab/array/reduction.hpp"
#include "slab/comm/comm.hpp"
#include "slab/core/error.hpp"
#include "slab/engine/host_fallback.hpp"
#include "slab/runtime/execution_context.hpp"
#include "slab/task/task_context.hpp"
#include "slab/task/task_queue.hpp"

namespace slab {
namespace {

template <class T>
using ArgP = kernels::ArgPartial<T>;

template <bool Max, class T>
std::int64_t index_of(const ArgP<T>& p) {
  return p.inan >= 0 ? p.inan : Max ? p.imax : p.imin;
}

// The partials of chunk `e` (values x) along `axis`, one per line of the kept axis within the chunk (its rows for
// axis 1, its columns for axis 0), with global indices along the reduced axis: on the device kernels where
// `device`, else the host loop.
template <bool Max, class T>
void line_partials(TaskContext& ctx, bool device, const T* x, const ChunkExtent& e, int axis, ArgP<T>* out) {
  const std::int64_t index0 = axis == 0 ? e.row0 : e.col0;
  if (device) {
    if constexpr (detail::kernel_element_v<T>) {
      detail::with_device_backend(ctx.execution(), [&](auto tag) {
        using B = typename decltype(tag)::type;
        detail::KernelScratch scratch(ctx.memory());
        kernels::ReductionKernels<B, T>::arg_lines(scratch.exec(ctx.execution()), x, e.rows, e.cols, axis, Max, index0,
                                                   out);
      });
      return;
    }
  }
  for (std::int64_t r = 0; r < e.rows; ++r)
    for (std::int64_t c = 0; c < e.cols; ++c) {
      if (axis == 0)
        kernels::arg_fold_one<Max>(out[c], x[r * e.cols + c], index0 + r);
      else
        kernels::arg_fold_one<Max>(out[r], x[r * e.cols + c], index0 + c);
    }
}

TaskOptions place_of(bool device) { return device ? device_task() : TaskOptions{}; }

template <bool Max, class T>
Array<std::int64_t> arg_axis(const Array<T>& a, int axis, const char* op) {
  const Layout& l = a.layout();
  const int nd = l.ndim;
  SLAB_EXPECTS(axis >= -nd && axis < nd, ShapeError,
               std::string(op) + ": axis " + std::to_string(axis) + " is out of bounds for array of dimension " +
                   std::to_string(nd));
  if (axis < 0) axis += nd;
  SLAB_EXPECTS((axis == 0 ? l.rows : l.cols) > 0, ShapeError,
               std::string(op) + ": attempt to get " + op + " of an empty sequence (axis " + std::to_string(axis) +
                   " of shape " + to_string(l.shape()) + ")");
  Engine& engine = a.engine();
  TaskQueue& q = engine.tasks();
  // The device kernels (float, double, int64) where the rank takes device paths; int32 stays on the host.
  const bool device = detail::kernel_element_v<T> && detail::has_device_backend(q.memory().execution());
  if (!device) note_host_fallback(engine, op);
  const int me = q.comm().rank();
  const std::int64_t m = axis == 0 ? l.cols : l.rows;  // the result's length
  const auto& chunks = a.local_chunks();

  if (l.split == Split::none && axis == 0) {  // replicated, per column: one task over the rank's copy
    Layout out = Layout::make(Shape{m}, Split::none, l.nranks, std::max<std::int64_t>(1, m));
    std::vector<Chunk> res;
    if (m > 0)
      res.push_back(q.submit(
          op, chunks,
          [l, m, me, device](TaskContext& ctx) {
            std::vector<ArgP<T>> acc(static_cast<std::size_t>(m)), part(static_cast<std::size_t>(m));
            for (std::int64_t i = 0; i < l.num_chunks(me); ++i) {  // row blocks of every column, in order
              std::fill(part.begin(), part.end(), ArgP<T>{});
              line_partials<Max>(ctx, device, ctx.input_as<T>(static_cast<std::size_t>(i)).data(),
                                 l.chunk_extent(me, i), 0, part.data());
              for (std::size_t c = 0; c < part.size(); ++c) kernels::arg_merge(acc[c], part[c]);
            }
            std::vector<std::int64_t> o(static_cast<std::size_t>(m));
            for (std::int64_t c = 0; c < m; ++c) o[c] = index_of<Max>(acc[static_cast<std::size_t>(c)]);
            auto dst = ctx.output(o.size() * sizeof(std::int64_t));
            slab::copy(dst.data(), o.data(), dst.size(), ctx.execution());
          },
          place_of(device)));
    return Array<std::int64_t>(engine, std::move(out), std::move(res));
  }
  const bool local =
      l.split == Split::none || (axis == 1 && l.split == Split::rows) || (axis == 0 && l.split == Split::cols);
  if (local) {  // every value from one chunk: the result is split like the kept axis
    Layout out = Layout::make(Shape{m}, l.split == Split::none ? Split::none : Split::rows, l.nranks, l.chunk);
    out.bounds = l.bounds;
    std::vector<Chunk> res;
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      const ChunkExtent e = a.local_extent(i);
      res.push_back(q.submit(
          op, {chunks[i]},
          [e, axis, device](TaskContext& ctx) {
            const std::int64_t k = axis == 0 ? e.cols : e.rows;
            std::vector<ArgP<T>> part(static_cast<std::size_t>(k));
            line_partials<Max>(ctx, device, ctx.input_as<T>(0).data(), e, axis, part.data());
            std::vector<std::int64_t> o(static_cast<std::size_t>(k));
            for (std::int64_t t = 0; t < k; ++t) o[t] = index_of<Max>(part[static_cast<std::size_t>(t)]);
            auto dst = ctx.output(o.size() * sizeof(std::int64_t));
            if (k > 0) slab::copy(dst.data(), o.data(), dst.size(), ctx.execution());
          },
          place_of(device)));
    }
    return Array<std::int64_t>(engine, std::move(out), std::move(res));
  }

  // Along the split axis: every chunk's m partials (indexed by the kept axis's global position), folded as they
  // come (one accumulator and one input at a time), then merged across ranks.
  const std::size_t bytes = static_cast<std::size_t>(m) * sizeof(ArgP<T>);
  std::vector<ArgP<T>> acc(static_cast<std::size_t>(m));
  std::vector<Chunk> partials;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const ChunkExtent e = a.local_extent(i);
    partials.push_back(q.submit(
        std::string(op) + ".chunk", {chunks[i]},
        [e, axis, m, bytes, device](TaskContext& ctx) {
          std::vector<ArgP<T>> all(static_cast<std::size_t>(m));
          const std::int64_t first = axis == 0 ? e.col0 : e.row0;
          line_partials<Max>(ctx, device, ctx.input_as<T>(0).data(), e, axis, all.data() + first);
          auto dst = ctx.output(bytes);
          if (bytes > 0) slab::copy(dst.data(), all.data(), bytes, ctx.execution());
        },
        place_of(device)));
  }
  const auto merge_all = [](std::span<std::byte> into, std::span<const std::byte> in) {
    auto* c = reinterpret_cast<ArgP<T>*>(into.data());
    const auto* d = reinterpret_cast<const ArgP<T>*>(in.data());
    for (std::size_t k = 0; k < into.size() / sizeof(ArgP<T>); ++k) kernels::arg_merge(c[k], d[k]);
  };
  Chunk folded;
  if (!partials.empty()) folded = q.reduce(std::string(op) + ".fold", std::move(partials), merge_all);
  q.persist(folded ? std::span<const Chunk>(&folded, 1) : std::span<const Chunk>());
  if (folded && bytes > 0) {
    Pin pin = folded.buffer()->pin();
    slab::copy(acc.data(), pin.data(), bytes, engine.execution());
  }
  std::vector<std::byte> wire(bytes);
  if (bytes > 0) std::memcpy(wire.data(), acc.data(), bytes);  // no rows on this axis: both may be null
  q.comm().tree_allreduce_bytes(wire, [&](std::vector<std::byte>& x, const std::vector<std::byte>& y) {
    merge_all(std::span<std::byte>(x), std::span<const std::byte>(y));
  });
  if (bytes > 0) std::memcpy(acc.data(), wire.data(), bytes);
  std::vector<std::int64_t> res(acc.size());
  for (std::size_t k = 0; k < acc.size(); ++k) res[k] = index_of<Max>(acc[k]);
  return detail::from_block<std::int64_t>(engine, Layout::make(Shape{m}, Split::none, l.nranks),
                                          std::make_shared<const std::vector<std::int64_t>>(std::move(res)));
}

}  // namespace

template <class T>
Array<std::int64_t> argmax(const Array<T>& a, int axis) {
  return arg_axis<true>(a, axis, "argmax");
}
template <class T>
Array<std::int64_t> argmin(const Array<T>& a, int axis) {
  return arg_axis<false>(a, axis, "argmin");
}

#define SLAB_INSTANTIATE(T)                                  \
  template Array<std::int64_t> argmax(const Array<T>&, int); \
  template Array<std::int64_t> argmin(const Array<T>&, int);
SLAB_INSTANTIATE(float)
SLAB_INSTANTIATE(double)
SLAB_INSTANTIATE(std::int32_t)
SLAB_INSTANTIATE(std::int64_t)
#undef SLAB_INSTANTIATE

}  // namespace slab
