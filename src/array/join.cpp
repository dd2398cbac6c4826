// concatenate, stack, vstack, hstack, column_stack: along axis 0 a flat assembly (assemble.cpp), along axis 1
// the inputs' rows side by side, local once the row blocks line up.
#include "slab/array/join.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "array/assemble.hpp"
#include "array/layout_kernels.hpp"
#include "runtime/device_backend.hpp"
#include "slab/array/slicing.hpp"
#include "slab/core/error.hpp"
#include "slab/engine/host_fallback.hpp"
#include "slab/task/task_context.hpp"
#include "slab/task/task_queue.hpp"

namespace slab {
namespace {

template <class T>
void expect_some(const std::vector<Array<T>>& arrays, const char* op) {
  SLAB_EXPECTS(!arrays.empty(), InvalidArgument, std::string(op) + ": need at least one array to join");
}

template <class T>
void expect_same_ndim(const std::vector<Array<T>>& arrays, const char* op) {
  for (std::size_t k = 1; k < arrays.size(); ++k)
    SLAB_EXPECTS(arrays[k].ndim() == arrays[0].ndim(), ShapeError,
                 std::string(op) + ": all the input arrays must have the same number of dimensions, but the array " +
                     "at index 0 has " + std::to_string(arrays[0].ndim()) + " dimension(s) and the array at index " +
                     std::to_string(k) + " has " + std::to_string(arrays[k].ndim()) + " dimension(s)");
}

// Extent `dim` (0: rows, 1: cols) must agree across the arrays.
template <class T>
void expect_same_extent(const std::vector<Array<T>>& arrays, int dim, const char* op) {
  auto extent = [dim](const Array<T>& a) { return dim == 0 ? a.rows() : a.cols(); };
  for (std::size_t k = 1; k < arrays.size(); ++k)
    SLAB_EXPECTS(extent(arrays[k]) == extent(arrays[0]), ShapeError,
                 std::string(op) + ": all the input array dimensions except for the concatenation axis must match " +
                     "exactly, but along dimension " + std::to_string(dim) + ", the array at index 0 has size " +
                     std::to_string(extent(arrays[0])) + " and the array at index " + std::to_string(k) + " has size " +
                     std::to_string(extent(arrays[k])));
}

template <class T>
bool all_replicated(const std::vector<Array<T>>& arrays) {
  return std::all_of(arrays.begin(), arrays.end(), [](const Array<T>& a) { return a.split() == Split::none; });
}

// Axis 0: the arrays' elements one after another in C order, as an array of shape `out`.
template <class T>
Array<T> join_flat(const std::vector<Array<T>>& arrays, Shape out, const char* name) {
  std::vector<detail::FlatSource<T>> sources;
  std::int64_t offset = 0, elements = std::numeric_limits<std::int64_t>::max();
  for (const auto& a : arrays) {
    if (a.size() > 0) {
      sources.push_back({a, offset});
      elements = std::min(elements, detail::chunk_elements(a.layout()));
    }
    offset += a.size();
  }
  if (sources.empty()) elements = 1;
  const Split split = all_replicated(arrays) ? Split::none : Split::rows;
  const std::int64_t chunk_rows = std::max<std::int64_t>(1, elements / std::max<std::int64_t>(1, out.cols));
  const Layout target = Layout::make(out, split, arrays[0].layout().nranks, chunk_rows, sizeof(T));
  return detail::assemble_flat<T>(arrays[0].engine(), sources, target, name);
}

// Axis 1 of 2-D arrays (1-D ones seen as columns) with the same rows: side by side.
template <class T>
Array<T> join_cols(const std::vector<Array<T>>& in, const char* name) {
  std::vector<Array<T>> arrays;
  for (const auto& a : in) arrays.push_back(detail::as_2d(a));
  Engine& engine = arrays[0].engine();
  const bool device = detail::has_device_backend(engine.tasks().memory().execution());
  if (!device) note_host_fallback(engine, name);
  const std::int64_t rows = arrays[0].rows();
  std::int64_t cols = 0, elements = std::numeric_limits<std::int64_t>::max();
  const Layout* ref = nullptr;  // the row blocks to keep: the first input split by rows
  for (const auto& a : arrays) {
    cols += a.cols();
    if (a.size() > 0) elements = std::min(elements, detail::chunk_elements(a.layout()));
    if (!ref && a.split() == Split::rows) ref = &a.layout();
  }
  if (elements == std::numeric_limits<std::int64_t>::max()) elements = 1;
  const Split split = all_replicated(arrays) ? Split::none : Split::rows;
  const int p = arrays[0].layout().nranks;
  const std::int64_t chunk_rows = std::max<std::int64_t>(1, elements / std::max<std::int64_t>(1, cols));
  Layout target = Layout::make(Shape{rows, cols}, split, p, chunk_rows, sizeof(T));
  if (ref) target.bounds = ref->bounds;
  // Every input on the result's row blocks (a replicated input is cut locally by redistribute).
  for (auto& a : arrays) {
    Layout want = Layout::make(Shape{rows, a.cols()}, split, p, chunk_rows, sizeof(T));
    want.bounds = target.bounds;
    if (!a.layout().same_blocks(want)) a = redistribute(a, want);
  }
  const int me = engine.comm().rank();
  std::vector<Chunk> out;
  for (std::int64_t j = 0; j < target.num_chunks(me); ++j) {
    const ChunkExtent e = target.chunk_extent(me, j);
    std::vector<Chunk> inputs;
    std::vector<ChunkExtent> extents;  // of each input chunk, in input order
    std::vector<std::int64_t> col0;    // the result column of each input chunk's column 0
    std::int64_t c0 = 0;
    for (const auto& a : arrays) {
      const Layout& l = a.layout();
      const ChunkExtent b = l.block_extent(me);
      if (l.num_chunks(me) > 0) {
        const auto& chunks = a.local_chunks();
        for (std::int64_t i = (e.row0 - b.row0) / l.chunk; i <= (e.row0 + e.rows - 1 - b.row0) / l.chunk; ++i) {
          inputs.push_back(chunks[static_cast<std::size_t>(i)]);
          extents.push_back(l.chunk_extent(me, i));
          col0.push_back(c0);
        }
      }
      c0 += a.cols();
    }
    out.push_back(engine.tasks().submit(
        name, std::move(inputs),
        [e, extents, col0, device](TaskContext& ctx) {
          T* o = ctx.output_as<T>(static_cast<std::size_t>(e.size())).data();
          // Each input chunk's rows that fall in this chunk, at their columns: one strided copy on the device.
          if (device && detail::on_layout_kernels<T>(ctx, [&](const kernels::Exec& exec, auto layout) {
                for (std::size_t k = 0; k < extents.size(); ++k) {
                  const ChunkExtent& x = extents[k];
                  const std::int64_t r0 = std::max(x.row0, e.row0), r1 = std::min(x.row0 + x.rows, e.row0 + e.rows);
                  if (r1 <= r0 || x.cols == 0) continue;  // an input with no columns has no storage
                  layout.copy_2d(exec, detail::move_ptr(ctx.input_as<T>(k).data()) + (r0 - x.row0) * x.cols, x.cols,
                                 r1 - r0, x.cols, detail::move_ptr(o) + (r0 - e.row0) * e.cols + col0[k], e.cols);
                }
              }))
            return;
          for (std::size_t k = 0; k < extents.size(); ++k) {
            const ChunkExtent& x = extents[k];
            const T* src = ctx.input_as<T>(k).data();
            const std::int64_t r0 = std::max(x.row0, e.row0), r1 = std::min(x.row0 + x.rows, e.row0 + e.rows);
            for (std::int64_t r = r0; r < r1 && x.cols > 0; ++r)  // an input with no columns has no storage
              std::memcpy(o + (r - e.row0) * e.cols + col0[k], src + (r - x.row0) * x.cols,
                          static_cast<std::size_t>(x.cols) * sizeof(T));
          }
        },
        device ? device_task() : TaskOptions{}));
  }
  return Array<T>(engine, std::move(target), std::move(out));
}

}  // namespace

template <class T>
Array<T> concatenate(const std::vector<Array<T>>& arrays, int axis) {
  expect_some(arrays, "concatenate");
  expect_same_ndim(arrays, "concatenate");
  const int ndim = arrays[0].ndim();
  SLAB_EXPECTS(
      axis >= -ndim && axis < ndim, ShapeError,
      "concatenate: axis " + std::to_string(axis) + " is out of bounds for array of dimension " + std::to_string(ndim));
  if (axis < 0) axis += ndim;
  if (axis == 1) {
    expect_same_extent(arrays, 0, "concatenate");
    return join_cols(arrays, "concatenate");
  }
  std::int64_t rows = 0;
  for (const auto& a : arrays) rows += a.rows();
  if (ndim == 1) return join_flat(arrays, Shape{rows}, "concatenate");
  expect_same_extent(arrays, 1, "concatenate");
  return join_flat(arrays, Shape{rows, arrays[0].cols()}, "concatenate");
}

template <class T>
Array<T> stack(const std::vector<Array<T>>& arrays, int axis) {
  expect_some(arrays, "stack");
  for (std::size_t k = 0; k < arrays.size(); ++k) {
    SLAB_EXPECTS(arrays[k].ndim() == 1, ShapeError,
                 "stack: the array at index " + std::to_string(k) + " is 2-D " + to_string(arrays[k].shape()) +
                     ", so the result would be 3-D; slab arrays have 1 or 2 dimensions (stack takes 1-D arrays)");
    SLAB_EXPECTS(arrays[k].shape() == arrays[0].shape(), ShapeError,
                 "stack: all input arrays must have the same shape, but the array at index 0 is " +
                     to_string(arrays[0].shape()) + " and the array at index " + std::to_string(k) + " is " +
                     to_string(arrays[k].shape()));
  }
  SLAB_EXPECTS(axis >= -2 && axis < 2, ShapeError,
               "stack: axis " + std::to_string(axis) + " is out of bounds for the result's 2 dimensions");
  if (axis < 0) axis += 2;
  const auto k = static_cast<std::int64_t>(arrays.size());
  if (axis == 0) return join_flat(arrays, Shape{k, arrays[0].rows()}, "stack");
  return join_cols(arrays, "stack");
}

template <class T>
Array<T> vstack(const std::vector<Array<T>>& arrays) {
  expect_some(arrays, "vstack");
  // A 1-D array of length n is the row 1 x n: its elements follow the previous rows in C order as they are.
  auto cols = [](const Array<T>& a) { return a.ndim() == 1 ? a.rows() : a.cols(); };
  std::int64_t rows = 0;
  for (std::size_t k = 0; k < arrays.size(); ++k) {
    SLAB_EXPECTS(cols(arrays[k]) == cols(arrays[0]), ShapeError,
                 "vstack: all the input array dimensions except for the concatenation axis must match exactly, but " +
                     std::string("along dimension 1, the array at index 0 has size ") +
                     std::to_string(cols(arrays[0])) + " and the array at index " + std::to_string(k) + " has size " +
                     std::to_string(cols(arrays[k])));
    rows += arrays[k].ndim() == 1 ? 1 : arrays[k].rows();
  }
  return join_flat(arrays, Shape{rows, cols(arrays[0])}, "vstack");
}

template <class T>
Array<T> hstack(const std::vector<Array<T>>& arrays) {
  expect_some(arrays, "hstack");
  expect_same_ndim(arrays, "hstack");
  return concatenate(arrays, arrays[0].ndim() == 1 ? 0 : 1);
}

template <class T>
Array<T> column_stack(const std::vector<Array<T>>& arrays) {
  expect_some(arrays, "column_stack");
  expect_same_extent(arrays, 0, "column_stack");
  return join_cols(arrays, "column_stack");
}

#define SLAB_INSTANTIATE(T)                                         \
  template Array<T> concatenate(const std::vector<Array<T>>&, int); \
  template Array<T> stack(const std::vector<Array<T>>&, int);       \
  template Array<T> vstack(const std::vector<Array<T>>&);           \
  template Array<T> hstack(const std::vector<Array<T>>&);           \
  template Array<T> column_stack(const std::vector<Array<T>>&);
SLAB_INSTANTIATE(float)
SLAB_INSTANTIATE(double)
SLAB_INSTANTIATE(std::int32_t)
SLAB_INSTANTIATE(std::int64_t)
#undef SLAB_INSTANTIATE

}  // namespace slab
