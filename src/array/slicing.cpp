// Slicing (lazy views through leaf offsets), transpose (local), and redistribution (one alltoallv).
#include <algorithm>
#include <optional>
#include <span>
#include <type_traits>

#include "array/device_paths.hpp"
#include "array/expr.hpp"
#include "array/kernels/layout.hpp"
#include "array/layout_kernels.hpp"
#include "slab/array/array.hpp"
#include "slab/array/creation.hpp"
#include "slab/array/elementwise.hpp"
#include "slab/array/reduction.hpp"
#include "slab/array/slicing.hpp"
#include "slab/comm/comm.hpp"

namespace slab {

using detail::intersect;
using detail::move_ptr;
using detail::MoveAs;
using detail::on_layout_kernels;

namespace {
// Blocks of a slice [begin, end) of the split axis: each rank keeps what it had of the range.
std::vector<std::int64_t> sliced_bounds(const Layout& l, std::int64_t begin, std::int64_t end) {
  std::vector<std::int64_t> b(static_cast<std::size_t>(l.nranks) + 1);
  for (int r = 0; r <= l.nranks; ++r) {
    const std::int64_t x = r < l.nranks ? l.block_begin(r) : l.split_extent();
    b[static_cast<std::size_t>(r)] = std::clamp(x, begin, end) - begin;
  }
  return b;
}
}  // namespace

template <class T>
Array<T> row_range(const Array<T>& a, std::int64_t begin, std::int64_t end) {
  const Layout& l = a.layout();
  SLAB_EXPECTS(0 <= begin && begin <= end && end <= l.rows, ShapeError,
               "row_range [" + std::to_string(begin) + ", " + std::to_string(end) + ") of " + l.to_string());
  Layout out = l;
  out.rows = end - begin;
  if (l.split == Split::rows) out.bounds = sliced_bounds(l, begin, end);
  return Array<T>(a.engine(), std::move(out), detail::leaf_of(a, begin, 0, false, false));
}

template <class T>
Array<T> col_range(const Array<T>& a, std::int64_t begin, std::int64_t end) {
  const Layout& l = a.layout();
  SLAB_EXPECTS(l.ndim == 2 && 0 <= begin && begin <= end && end <= l.cols, ShapeError,
               "col_range [" + std::to_string(begin) + ", " + std::to_string(end) + ") of " + l.to_string());
  Layout out = l;
  out.cols = end - begin;
  if (l.split == Split::cols) out.bounds = sliced_bounds(l, begin, end);
  return Array<T>(a.engine(), std::move(out), detail::leaf_of(a, 0, begin, false, false));
}

template <class T>
Array<T> head(const Array<T>& a, std::int64_t n) {
  return row_range(a, 0, std::clamp<std::int64_t>(n, 0, a.rows()));
}

template <class T>
Array<T> select_cols(const Array<T>& a, const std::vector<std::int64_t>& columns) {
  const Layout& l = a.layout();
  for (auto c : columns)
    SLAB_EXPECTS(c >= 0 && c < l.cols, ShapeError,
                 "select_cols: column " + std::to_string(c) + " out of range for " + l.to_string());
  if (l.split == Split::cols) return resplit(select_cols(resplit(a, Split::rows), columns), Split::cols);
  const bool device = detail::has_device_backend(a.engine().tasks().memory().execution());
  if (!device) note_host_fallback(a.engine(), "select_cols");
  Layout out = l;
  out.cols = static_cast<std::int64_t>(columns.size());
  out.ndim = 2;
  const auto& chunks = a.local_chunks();
  std::vector<Chunk> res;
  auto cols = std::make_shared<const std::vector<std::int64_t>>(columns);
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const ChunkExtent e = a.local_extent(i);
    res.push_back(a.engine().tasks().submit(
        "select_cols", {chunks[i]},
        [e, cols, device](TaskContext& ctx) {
          const T* x = ctx.input_as<T>(0).data();
          const auto k = static_cast<std::int64_t>(cols->size());
          T* o = ctx.output_as<T>(static_cast<std::size_t>(e.rows * k)).data();
          if (device && on_layout_kernels<T>(ctx, [&](const kernels::Exec& exec, auto layout) {
                // One strided copy per run of consecutive source columns.
                for (std::int64_t c = 0; c < k;) {
                  std::int64_t run = 1;
                  while (c + run < k && (*cols)[c + run] == (*cols)[c] + run) ++run;
                  layout.copy_2d(exec, move_ptr(x) + (*cols)[c], e.cols, e.rows, run, move_ptr(o) + c, k);
                  c += run;
                }
              }))
            return;
          for (std::int64_t r = 0; r < e.rows; ++r)
            for (std::int64_t c = 0; c < k; ++c) o[r * k + c] = x[r * e.cols + (*cols)[c]];
        },
        device ? device_task() : TaskOptions{}));
  }
  if (out.cols == 0) res.clear();
  return Array<T>(a.engine(), std::move(out), std::move(res));
}

namespace {
template <class T>
void transpose_block(const T* in, std::int64_t rows, std::int64_t cols, T* out) {
  constexpr std::int64_t B = 32;  // blocked, so both sides stay in cache
  for (std::int64_t i0 = 0; i0 < rows; i0 += B)
    for (std::int64_t j0 = 0; j0 < cols; j0 += B)
      for (std::int64_t i = i0; i < std::min(rows, i0 + B); ++i)
        for (std::int64_t j = j0; j < std::min(cols, j0 + B); ++j) out[j * rows + i] = in[i * cols + j];
}
}  // namespace

Layout detail::transposed_layout(const Layout& l) {
  Layout out = l;
  out.rows = l.cols;
  out.cols = l.rows;
  if (l.split == Split::none)
    out.chunk = std::max<std::int64_t>(1, out.rows);  // one chunk holding the whole transpose
  else
    out.split = l.split == Split::rows ? Split::cols : Split::rows;
  return out;
}

template <class T>
std::vector<Chunk> detail::transpose_chunks(const Array<T>& a) {
  const bool device = has_device_backend(a.engine().tasks().memory().execution());
  if (!device) note_host_fallback(a.engine(), "transpose");
  const Layout& l = a.layout();
  const Layout out = transposed_layout(l);
  const auto& chunks = a.local_chunks();
  std::vector<Chunk> res;
  if (l.split == Split::none) {
    if (out.size() > 0)
      res.push_back(a.engine().tasks().submit(
          "transpose", chunks,
          [l, n = chunks.size(), device](TaskContext& ctx) {
            T* o = ctx.output_as<T>(static_cast<std::size_t>(l.size())).data();
            // Chunk i (rows [row0, row0 + rows) of every column) becomes columns [row0, row0 + rows) of the output:
            // transposed into scratch, then one strided copy into place (direct where it is the whole array).
            if (device && on_layout_kernels<T>(ctx, [&](const kernels::Exec& exec, auto layout) {
                  for (std::size_t i = 0; i < n; ++i) {
                    const ChunkExtent e = l.chunk_extent(0, static_cast<std::int64_t>(i));
                    const T* x = ctx.input_as<T>(i).data();
                    if (e.rows == l.rows) {
                      layout.transpose(exec, move_ptr(x), e.rows, e.cols, move_ptr(o));
                      continue;
                    }
                    ScratchBytes t(exec, static_cast<std::size_t>(e.size()) * sizeof(T));
                    auto* tp = static_cast<MoveAs<T>*>(t.get());
                    layout.transpose(exec, move_ptr(x), e.rows, e.cols, tp);
                    layout.copy_2d(exec, tp, e.rows, e.cols, e.rows, move_ptr(o) + e.row0, l.rows);
                  }
                }))
              return;
            for (std::size_t i = 0; i < n; ++i) {
              const ChunkExtent e = l.chunk_extent(0, static_cast<std::int64_t>(i));
              const T* x = ctx.input_as<T>(i).data();
              for (std::int64_t r = 0; r < e.rows; ++r)
                for (std::int64_t c = 0; c < e.cols; ++c) o[c * l.rows + e.row0 + r] = x[r * e.cols + c];
            }
          },
          device ? device_task() : TaskOptions{}));
    return res;
  }
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const ChunkExtent e = a.local_extent(i);
    res.push_back(a.engine().tasks().submit(
        "transpose", {chunks[i]},
        [e, device](TaskContext& ctx) {
          const T* x = ctx.input_as<T>(0).data();
          T* o = ctx.output_as<T>(static_cast<std::size_t>(e.size())).data();
          if (device && on_layout_kernels<T>(ctx, [&](const kernels::Exec& exec, auto layout) {
                layout.transpose(exec, move_ptr(x), e.rows, e.cols, move_ptr(o));
              }))
            return;
          transpose_block(x, e.rows, e.cols, o);
        },
        device ? device_task() : TaskOptions{}));
  }
  return res;
}

template <class T>
Array<T> transpose(const Array<T>& a) {
  return a.transpose();
}

template <class T>
Array<T> rechunk(const Array<T>& a, std::int64_t chunk) {
  Layout out = a.layout();
  out.chunk = chunk > 0 ? chunk : Layout::default_chunk(out.rows, out.cols, out.split, sizeof(T));
  if (out.chunk == a.layout().chunk) return a;
  return Array<T>(a.engine(), std::move(out), a.expr());
}

/// redistribute's exchange on the device kernels: every piece of this rank's chunks that another rank's block
/// takes packed by LayoutKernels::copy_2d into a send buffer of kernel scratch (the host's packing, byte for
/// byte), the buffers exchanged (device memory on a GPU: Comm sends it over NCCL, or stages it where ranks share
/// one), each received piece copied into place. The receive counts follow from the layouts, so no count travels.
namespace {
template <class T, class LayoutK>
void redistribute_on_device(TaskContext& ctx, const kernels::Exec& exec, LayoutK layout, const Layout& src,
                            const Layout& whole, int rank) {
  using M = MoveAs<T>;
  const int p = src.nranks;
  auto sends_to = [&](int from, int to) { return src.split != Split::none || from == to; };
  std::vector<std::size_t> counts(static_cast<std::size_t>(p), 0), rcounts(static_cast<std::size_t>(p), 0);
  const ChunkExtent me = whole.block_extent(rank);
  std::size_t total = 0, rtotal = 0;
  for (int r = 0; r < p; ++r) {
    ChunkExtent x;
    for (std::int64_t i = 0; sends_to(rank, r) && i < src.num_chunks(rank); ++i)
      if (intersect(src.chunk_extent(rank, i), whole.block_extent(r), x))
        counts[static_cast<std::size_t>(r)] += static_cast<std::size_t>(x.size());
    for (std::int64_t i = 0; sends_to(r, rank) && i < src.num_chunks(r); ++i)
      if (intersect(src.chunk_extent(r, i), me, x))
        rcounts[static_cast<std::size_t>(r)] += static_cast<std::size_t>(x.size());
    total += counts[static_cast<std::size_t>(r)];
    rtotal += rcounts[static_cast<std::size_t>(r)];
  }
  std::optional<detail::ScratchBytes> send, recv;
  ctx.comm().run_collectively([&] {  // a failed allocation is every rank's error, never a hang in the exchange
    send.emplace(exec, total * sizeof(T));
    recv.emplace(exec, rtotal * sizeof(T));
    M* out = static_cast<M*>(send->get());
    for (int to = 0; to < p; ++to) {
      if (!sends_to(rank, to)) continue;
      for (std::int64_t i = 0; i < src.num_chunks(rank); ++i) {
        const ChunkExtent e = src.chunk_extent(rank, i);
        ChunkExtent x;
        if (!intersect(e, whole.block_extent(to), x)) continue;
        const M* in = move_ptr(ctx.input_as<T>(static_cast<std::size_t>(i)).data());
        layout.copy_2d(exec, in + (x.row0 - e.row0) * e.cols + (x.col0 - e.col0), e.cols, x.rows, x.cols, out, x.cols);
        out += x.size();
      }
    }
    ctx.execution().synchronize();
  });
  ctx.comm().alltoallv(std::span<const T>(static_cast<const T*>(send->get()), total),
                       std::span<const std::size_t>(counts), std::span<T>(static_cast<T*>(recv->get()), rtotal),
                       std::span<const std::size_t>(rcounts));
  send.reset();
  if (me.size() == 0) return;
  M* o = move_ptr(ctx.output_as<T>(static_cast<std::size_t>(me.size())).data());
  const M* in = static_cast<const M*>(recv->get());
  for (int from = 0; from < p; ++from) {
    if (!sends_to(from, rank)) continue;
    for (std::int64_t i = 0; i < src.num_chunks(from); ++i) {
      ChunkExtent x;
      if (!intersect(src.chunk_extent(from, i), me, x)) continue;
      layout.copy_2d(exec, in, x.cols, x.rows, x.cols, o + (x.row0 - me.row0) * me.cols + (x.col0 - me.col0), me.cols);
      in += x.size();
    }
  }
  ctx.execution().synchronize();  // the receive buffer goes with this scope
}
}  // namespace

template <class T>
Array<T> redistribute(const Array<T>& a, const Layout& target) {
  const Layout src = a.layout();
  SLAB_EXPECTS(target.rows == src.rows && target.cols == src.cols && target.nranks == src.nranks, ShapeError,
               "redistribute: " + src.to_string() + " to " + target.to_string());
  Engine& engine = a.engine();
  const bool device = detail::has_device_backend(engine.tasks().memory().execution());
  if (!device) note_host_fallback(engine, "redistribute");  // packs and unpacks on the host around the exchange
  TaskQueue& q = engine.tasks();
  const int rank = q.comm().rank();
  // The exchange writes each rank's whole block as one buffer; a lazy rechunk then cuts it into chunks.
  Layout whole = target;
  whole.chunk = 1;
  for (int r = 0; r < target.nranks; ++r)
    whole.chunk = std::max(whole.chunk, target.split == Split::cols ? target.local_cols(r) : target.local_rows(r));
  const auto& chunks = a.local_chunks();
  Chunk block = q.submit(
      "redistribute", chunks,
      [src, whole, rank, device](TaskContext& ctx) {
        if (device && on_layout_kernels<T>(ctx, [&](const kernels::Exec& exec, auto layout) {
              redistribute_on_device<T>(ctx, exec, layout, src, whole, rank);
            }))
          return;
        const int p = src.nranks;
        auto sends_to = [&](int from, int to) { return src.split != Split::none || from == to; };
        std::vector<T> send;
        std::vector<std::size_t> counts(static_cast<std::size_t>(p), 0);
        for (int to = 0; to < p; ++to) {
          if (!sends_to(rank, to)) continue;
          const ChunkExtent d = whole.block_extent(to);
          for (std::int64_t i = 0; i < src.num_chunks(rank); ++i) {
            const ChunkExtent e = src.chunk_extent(rank, i);
            ChunkExtent x;
            if (!intersect(e, d, x)) continue;
            const T* in = ctx.input_as<T>(static_cast<std::size_t>(i)).data();
            for (std::int64_t r = 0; r < x.rows; ++r) {
              const T* row = in + (x.row0 - e.row0 + r) * e.cols + (x.col0 - e.col0);
              send.insert(send.end(), row, row + x.cols);
            }
            counts[static_cast<std::size_t>(to)] += static_cast<std::size_t>(x.size());
          }
        }
        std::vector<T> recv;
        std::vector<std::size_t> recv_counts;
        ctx.comm().alltoallv(std::span<const T>(send), std::span<const std::size_t>(counts), recv, recv_counts);
        const ChunkExtent me = whole.block_extent(rank);
        if (me.size() == 0) return;
        T* o = ctx.output_as<T>(static_cast<std::size_t>(me.size())).data();
        const T* in = recv.data();
        for (int from = 0; from < p; ++from) {
          if (!sends_to(from, rank)) continue;
          for (std::int64_t i = 0; i < src.num_chunks(from); ++i) {
            ChunkExtent x;
            if (!intersect(src.chunk_extent(from, i), me, x)) continue;
            for (std::int64_t r = 0; r < x.rows; ++r, in += x.cols)
              std::copy(in, in + x.cols, o + (x.row0 - me.row0 + r) * me.cols + (x.col0 - me.col0));
          }
        }
      },
      device ? device_task(TraceKind::comm, true) : TaskOptions{TraceKind::comm, true});
  std::vector<Chunk> mine;
  if (whole.num_chunks(rank) > 0) mine.push_back(block);
  Array<T> out(engine, whole, std::move(mine));
  return rechunk(out, target.chunk);
}

template <class T>
Array<T> rebalance(const Array<T>& a) {
  const Layout& l = a.layout();
  if (l.balanced()) return a;
  return redistribute(a, Layout::make(l.shape(), l.split, l.nranks, 0, sizeof(T)));
}

template <class T>
Array<T> resplit(const Array<T>& a, Split split) {
  const Layout& l = a.layout();
  if (l.split == split && l.balanced()) return a;
  return redistribute(a, Layout::make(l.shape(), split, l.nranks, 0, sizeof(T)));
}

#define SLAB_INSTANTIATE(T)                                                         \
  template Array<T> row_range(const Array<T>&, std::int64_t, std::int64_t);         \
  template Array<T> col_range(const Array<T>&, std::int64_t, std::int64_t);         \
  template Array<T> head(const Array<T>&, std::int64_t);                            \
  template Array<T> select_cols(const Array<T>&, const std::vector<std::int64_t>&); \
  template Array<T> transpose(const Array<T>&);                                     \
  template std::vector<Chunk> detail::transpose_chunks(const Array<T>&);            \
  template Array<T> rechunk(const Array<T>&, std::int64_t);                         \
  template Array<T> redistribute(const Array<T>&, const Layout&);                   \
  template Array<T> rebalance(const Array<T>&);                                     \
  template Array<T> resplit(const Array<T>&, Split);
SLAB_INSTANTIATE(float)
SLAB_INSTANTIATE(double)
SLAB_INSTANTIATE(std::int32_t)
SLAB_INSTANTIATE(std::int64_t)
#undef SLAB_INSTANTIATE

}  // namespace slab
