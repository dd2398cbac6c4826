// a[mask]: one selection task per chunk into a piece, the pieces' sizes as the result's blocks, then one task
// per result chunk copying the pieces it overlaps.
#include "slab/array/compress.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>

#include "array/assemble.hpp"
#include "array/layout_kernels.hpp"
#include "slab/array/reduction.hpp"
#include "slab/array/slicing.hpp"
#include "slab/comm/comm.hpp"
#include "slab/core/error.hpp"
#include "slab/engine/host_fallback.hpp"
#include "slab/task/task_context.hpp"
#include "slab/task/task_queue.hpp"

namespace slab {

template <class T>
Array<T> compress(const Array<T>& a_in, const Array<std::int64_t>& mask_in) {
  const bool device = detail::has_device_backend(a_in.engine().tasks().memory().execution());
  if (!device) note_host_fallback(a_in.engine(), "compress");
  const Layout& la = a_in.layout();
  const Layout& lm = mask_in.layout();
  const bool by_rows = la.ndim == 2 && lm.ndim == 1 && lm.rows == la.rows;
  const bool by_elements = !by_rows && lm.ndim == la.ndim && lm.rows == la.rows && lm.cols == la.cols;
  SLAB_EXPECTS(by_rows || by_elements, ShapeError,
               "compress: the boolean mask of shape " + to_string(lm.shape()) + " does not match the array of shape " +
                   to_string(la.shape()) + " (a mask has the array's shape, or selects rows: (" +
                   std::to_string(la.rows) + ",) for a 2-D array)");
  Engine& engine = a_in.engine();
  TaskQueue& q = engine.tasks();
  const Comm& comm = engine.comm();
  const int me = comm.rank();

  const Array<T> a = a_in.split() == Split::cols ? resplit(a_in, Split::rows) : a_in;
  const Layout& l = a.layout();
  if (by_rows && l.cols == 0) {  // rows of nothing: only their number is known
    const std::int64_t k = count_nonzero(mask_in);
    return Array<T>(engine, Layout::make(Shape{k, 0}, l.split, l.nranks, 1, sizeof(T)), std::vector<Chunk>{});
  }
  // The mask on a's blocks and chunks, so that chunk i of each covers the same rows.
  Layout want = Layout::make(by_rows ? Shape{l.rows} : l.shape(), l.split, l.nranks, l.chunk, sizeof(T));
  want.bounds = l.bounds;
  Array<std::int64_t> mask = mask_in.layout().same_blocks(want) ? mask_in : redistribute(mask_in, want);
  if (mask.layout().chunk != l.chunk) mask = rechunk(mask, l.chunk);
  const std::int64_t unit = by_rows ? l.cols : 1;  // elements per selected item

  // 1. One piece per chunk: its selected items in order (no output when it selects nothing).
  const auto& ac = a.local_chunks();
  const auto& mc = mask.local_chunks();
  std::vector<Chunk> pieces;
  for (std::size_t i = 0; i < ac.size(); ++i) {
    const ChunkExtent e = a.local_extent(i);
    pieces.push_back(q.submit(
        "compress.select", {ac[i], mc[i]},
        [e, unit, by_rows, device](TaskContext& ctx) {
          const T* x = ctx.input_as<T>(0).data();
          const std::int64_t* m = ctx.input_as<std::int64_t>(1).data();
          const std::int64_t items = by_rows ? e.rows : e.size();
          // On the device: count, then the selected items copied in order (LayoutKernels::select).
          if (device && detail::on_layout_kernels<T>(ctx, [&](const kernels::Exec& exec, auto layout) {
                const std::int64_t k = layout.count_selected(exec, m, items);
                if (k == 0) return;
                T* o = ctx.output_as<T>(static_cast<std::size_t>(k * unit)).data();
                layout.select(exec, detail::move_ptr(x), m, items, unit, detail::move_ptr(o));
              }))
            return;
          const auto k = static_cast<std::int64_t>(std::count_if(m, m + items, [](std::int64_t v) { return v != 0; }));
          if (k == 0) return;
          T* o = ctx.output_as<T>(static_cast<std::size_t>(k * unit)).data();
          for (std::int64_t t = 0; t < items; ++t)
            if (m[t] != 0) {
              if (unit > 0) std::memcpy(o, x + t * unit, static_cast<std::size_t>(unit) * sizeof(T));
              o += unit;
            }
        },
        device ? device_task() : TaskOptions{}));
  }
  q.persist(std::span<const Chunk>(pieces));
  std::vector<std::int64_t> start{0};  // each piece's first item in this rank's selection
  for (const Chunk& c : pieces) {
    const BufferPtr b = c.buffer();
    start.push_back(start.back() + (b ? static_cast<std::int64_t>(b->size() / sizeof(T)) / unit : 0));
  }
  const std::int64_t mine = start.back();

  // 2. The result's blocks: this rank's selection after the lower ranks' (replicated: every rank has it all).
  std::vector<std::int64_t> bounds;
  std::int64_t total = mine;
  if (l.split != Split::none) {
    std::vector<std::int64_t> all(static_cast<std::size_t>(comm.size()));
    comm.allgather(std::span<const std::int64_t>(&mine, 1), std::span<std::int64_t>(all));
    bounds.push_back(0);
    for (const std::int64_t n : all) bounds.push_back(bounds.back() + n);
    total = bounds.back();
  }
  const std::int64_t chunk = by_rows ? l.chunk : detail::chunk_elements(l);
  Layout out = Layout::make(by_rows ? Shape{total, l.cols} : Shape{total}, l.split, l.nranks, chunk, sizeof(T));
  out.bounds = std::move(bounds);

  // 3. Each result chunk from the pieces it overlaps.
  const std::int64_t base = out.block_begin(me);
  std::vector<Chunk> res;
  for (std::int64_t j = 0; j < out.num_chunks(me); ++j) {
    const ChunkExtent e = out.chunk_extent(me, j);
    const std::int64_t u0 = e.row0 - base, u1 = u0 + e.rows;  // items of this rank's selection
    std::vector<Chunk> inputs;
    std::vector<std::int64_t> from;  // the first item of each input piece
    for (std::size_t i = 0; i < pieces.size(); ++i)
      if (start[i] < u1 && start[i + 1] > u0) {
        inputs.push_back(pieces[i]);
        from.push_back(start[i]);
      }
    res.push_back(q.submit(
        "compress.gather", std::move(inputs),
        [u0, u1, unit, from](TaskContext& ctx) {  // slab::copy: host or device memory alike
          T* o = ctx.output_as<T>(static_cast<std::size_t>((u1 - u0) * unit)).data();
          for (std::size_t k = 0; k < from.size(); ++k) {
            const auto x = ctx.input_as<T>(k);
            const std::int64_t n = static_cast<std::int64_t>(x.size()) / unit;
            const std::int64_t s0 = std::max(u0, from[k]), s1 = std::min(u1, from[k] + n);
            if (s1 > s0 && unit > 0)  // an empty piece may have no storage at all
              slab::copy(o + (s0 - u0) * unit, x.data() + (s0 - from[k]) * unit,
                         static_cast<std::size_t>((s1 - s0) * unit) * sizeof(T), ctx.execution());
          }
        },
        device ? device_task() : TaskOptions{}));
  }
  return Array<T>(engine, std::move(out), std::move(res));
}

template Array<float> compress(const Array<float>&, const Array<std::int64_t>&);
template Array<double> compress(const Array<double>&, const Array<std::int64_t>&);
template Array<std::int32_t> compress(const Array<std::int32_t>&, const Array<std::int64_t>&);
template Array<std::int64_t> compress(const Array<std::int64_t>&, const Array<std::int64_t>&);

}  // namespace slab
