// argmax / argmin along an axis: local per chunk along the axis a rank holds whole, otherwise a streaming
// reduction of per-chunk candidates on each rank and a merge over the comm's fixed tree.
#include <cmath>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>

#include "array/expr.hpp"
#include "slab/array/reduction.hpp"
#include "slab/comm/comm.hpp"
#include "slab/core/error.hpp"
#include "slab/engine/host_fallback.hpp"
#include "slab/runtime/execution_context.hpp"
#include "slab/task/task_context.hpp"
#include "slab/task/task_queue.hpp"

namespace slab {
namespace {

// The first extreme's value and index along the axis, and the first NaN's index (-1: none yet).
template <class T>
struct Cand {
  T v{};
  std::int64_t i = -1;
  std::int64_t nan = -1;
};

template <bool Max, class T>
void offer(Cand<T>& c, T v, std::int64_t i) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(v)) {
      if (c.nan < 0 || i < c.nan) c.nan = i;
      return;
    }
  }
  const bool better = Max ? c.v < v : v < c.v;
  if (c.i < 0 || better || (v == c.v && i < c.i)) c.v = v, c.i = i;
}

template <bool Max, class T>
void merge(Cand<T>& c, const Cand<T>& d) {
  if (d.nan >= 0 && (c.nan < 0 || d.nan < c.nan)) c.nan = d.nan;
  if (d.i >= 0) offer<Max>(c, d.v, d.i);
}

template <class T>
std::int64_t index_of(const Cand<T>& c) {
  return c.nan >= 0 ? c.nan : c.i;
}

// Candidates of chunk `e` (values x): per column over its rows (axis 0) or per row over its columns (axis 1),
// indexed by the kept axis's position within the chunk, with global indices along the reduced axis.
template <bool Max, class T>
void chunk_candidates(const T* x, const ChunkExtent& e, int axis, Cand<T>* out) {
  for (std::int64_t r = 0; r < e.rows; ++r)
    for (std::int64_t c = 0; c < e.cols; ++c) {
      if (axis == 0)
        offer<Max>(out[c], x[r * e.cols + c], e.row0 + r);
      else
        offer<Max>(out[r], x[r * e.cols + c], e.col0 + c);
    }
}

template <bool Max, class T>
Array<std::int64_t> arg_axis(const Array<T>& a, int axis, const char* op) {
  note_host_fallback(a.engine(), op);
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
  const int me = q.comm().rank();
  const std::int64_t m = axis == 0 ? l.cols : l.rows;  // the result's length
  const auto& chunks = a.local_chunks();

  if (l.split == Split::none && axis == 0) {  // replicated, per column: one task over the rank's copy
    Layout out = Layout::make(Shape{m}, Split::none, l.nranks, std::max<std::int64_t>(1, m));
    std::vector<Chunk> res;
    if (m > 0)
      res.push_back(q.submit(op, chunks, [l, m, me](TaskContext& ctx) {
        std::vector<Cand<T>> cand(static_cast<std::size_t>(m));
        for (std::int64_t i = 0; i < l.num_chunks(me); ++i)
          chunk_candidates<Max>(ctx.input_as<T>(static_cast<std::size_t>(i)).data(), l.chunk_extent(me, i), 0,
                                cand.data());
        auto o = ctx.output_as<std::int64_t>(static_cast<std::size_t>(m));
        for (std::int64_t c = 0; c < m; ++c) o[c] = index_of(cand[static_cast<std::size_t>(c)]);
      }));
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
      res.push_back(q.submit(op, {chunks[i]}, [e, axis](TaskContext& ctx) {
        const std::int64_t k = axis == 0 ? e.cols : e.rows;
        std::vector<Cand<T>> cand(static_cast<std::size_t>(k));
        chunk_candidates<Max>(ctx.input_as<T>(0).data(), e, axis, cand.data());
        auto o = ctx.output_as<std::int64_t>(static_cast<std::size_t>(k));
        for (std::int64_t t = 0; t < k; ++t) o[t] = index_of(cand[static_cast<std::size_t>(t)]);
      }));
    }
    return Array<std::int64_t>(engine, std::move(out), std::move(res));
  }

  // Along the split axis: every chunk's m candidates, folded as they come (one accumulator and one input at a
  // time), then merged across ranks.
  const std::size_t bytes = static_cast<std::size_t>(m) * sizeof(Cand<T>);
  std::vector<Cand<T>> acc(static_cast<std::size_t>(m));
  std::vector<Chunk> partials;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const ChunkExtent e = a.local_extent(i);
    partials.push_back(q.submit(std::string(op) + ".chunk", {chunks[i]}, [e, axis, m, bytes](TaskContext& ctx) {
      std::vector<Cand<T>> cand(static_cast<std::size_t>(m));  // indexed by the kept axis's global position
      const T* v = ctx.input_as<T>(0).data();
      for (std::int64_t r = 0; r < e.rows; ++r)
        for (std::int64_t c = 0; c < e.cols; ++c) {
          if (axis == 0)
            offer<Max>(cand[static_cast<std::size_t>(e.col0 + c)], v[r * e.cols + c], e.row0 + r);
          else
            offer<Max>(cand[static_cast<std::size_t>(e.row0 + r)], v[r * e.cols + c], e.col0 + c);
        }
      if (bytes > 0) std::memcpy(ctx.output(bytes).data(), cand.data(), bytes);
    }));
  }
  Chunk folded;
  if (!partials.empty())
    folded = q.reduce(std::string(op) + ".fold", std::move(partials),
                      [](std::span<std::byte> into, std::span<const std::byte> in) {
                        auto* c = reinterpret_cast<Cand<T>*>(into.data());
                        const auto* d = reinterpret_cast<const Cand<T>*>(in.data());
                        for (std::size_t k = 0; k < into.size() / sizeof(Cand<T>); ++k) merge<Max>(c[k], d[k]);
                      });
  q.persist(folded ? std::span<const Chunk>(&folded, 1) : std::span<const Chunk>());
  if (folded && bytes > 0) {
    Pin pin = folded.buffer()->pin();
    slab::copy(acc.data(), pin.data(), bytes, engine.execution());
  }
  std::vector<std::byte> wire(bytes);
  if (bytes > 0) std::memcpy(wire.data(), acc.data(), bytes);  // no rows on this axis: both may be null
  q.comm().tree_allreduce_bytes(wire, [](std::vector<std::byte>& x, const std::vector<std::byte>& y) {
    auto* c = reinterpret_cast<Cand<T>*>(x.data());
    const auto* d = reinterpret_cast<const Cand<T>*>(y.data());
    for (std::size_t k = 0; k < x.size() / sizeof(Cand<T>); ++k) merge<Max>(c[k], d[k]);
  });
  if (bytes > 0) std::memcpy(acc.data(), wire.data(), bytes);
  std::vector<std::int64_t> res(acc.size());
  for (std::size_t k = 0; k < acc.size(); ++k) res[k] = index_of(acc[k]);
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
