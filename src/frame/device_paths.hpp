#pragma once
// Private to the frame layer: the one switch of the frame operations' device paths (frame/kernels/): whether a
// frame takes them, a batch column as the kernels see it, and a task body run on its context's device backend
// with scratch from its memory manager.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "frame/kernels/columns.hpp"
#include "frame/kernels/gather.hpp"
#include "memory/kernel_scratch.hpp"
#include "runtime/device_backend.hpp"
#include "slab/core/error.hpp"
#include "slab/frame/batch.hpp"
#include "slab/frame/frame.hpp"
#include "slab/memory/memory_manager.hpp"
#include "slab/task/task_context.hpp"

namespace slab::frame::detail {

/// Whether the frame's operations take their device paths (a GPU, or the reference place).
inline bool takes_device_paths(const Frame& f) {
  return slab::detail::has_device_backend(f.engine().tasks().memory().execution());
}

// view_chunk_in_place (a partition viewed where it lies) is declared in slab/frame/frame.hpp, for io to call too.

/**
 * Rows [begin, end) of `in`, a batch in `where`'s memory (host or device), as a new batch in host memory held by
 * `storage`: only those rows' bytes are copied. Masks are kept where the input column has one. Not collective.
 */
void copy_rows_to_host(const BatchView& in, std::int64_t begin, std::int64_t end, const ExecutionContext& where,
                       std::vector<std::byte>& storage);

/// Column c of a batch as the kernels see it.
/// (Unused in a build without device backends, where no device path is instantiated.)
[[maybe_unused]] inline kernels::ColumnView column_view(const BatchView& b, std::size_t c) {
  return {b.type(c), b.data(c), b.valid(c)};
}

/// Call f(slab::detail::BackendTag<B>{}) with `context`'s device backend B. Only for work planned by an operation
/// that saw takes_device_paths(): a context without one here is an internal error.
template <class F>
void with_planned_backend(const ExecutionContext& context, F&& f) {
  const bool ran = slab::detail::with_device_backend(context, std::forward<F>(f));
  SLAB_EXPECTS(ran, Error,
               "frame kernels: no device backend at run time although there was one when planned (internal)");
}

/// Run f(exec, slab::detail::BackendTag<B>{}) on the task's device backend B, with scratch from its memory
/// manager (with_planned_backend).
template <class F>
void on_device_backend(TaskContext& ctx, F&& f) {
  with_planned_backend(ctx.execution(), [&](auto tag) {
    slab::detail::KernelScratch scratch(ctx.memory());
    f(scratch.exec(ctx.execution()), tag);
  });
}

/// take_rows(in, rows, ctx) for k rows of in (backend memory, none -1) on backend B: one gather per column (the
/// same masks as take_rows: where in's column has one).
template <class B>
void take_rows_on(TaskContext& ctx, const kernels::Exec& exec, const BatchView& in, const std::int64_t* rows,
                  std::int64_t k) {
  std::vector<ElementType> types;
  std::vector<bool> masks;
  for (std::size_t c = 0; c < in.ncols(); ++c) {
    types.push_back(in.type(c));
    masks.push_back(in.valid(c) != nullptr);
  }
  BatchBuilder b(ctx, k, types, masks);
  for (std::size_t c = 0; c < in.ncols(); ++c)
    kernels::GatherKernels<B>::column(exec, column_view(in, c), rows, k, b.data(c), b.valid(c));
}

}  // namespace slab::frame::detail
