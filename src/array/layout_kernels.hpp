#pragma once
// Private to the array layer: the layout kernels (array/kernels/layout.hpp) on a task's device backend, for the
// operations that move chunks' bits (slicing, redistribution, compress): element types move as a 4- or 8-byte
// type of the same size.
#include <cstdint>
#include <type_traits>

#include "array/kernels/layout.hpp"
#include "memory/kernel_scratch.hpp"
#include "runtime/device_backend.hpp"
#include "slab/task/task_context.hpp"

namespace slab::detail {

/// The type LayoutKernels moves T's bits as (any 4- or 8-byte type moves as such).
template <class T>
using MoveAs =
    std::conditional_t<std::is_same_v<T, double>, double, std::conditional_t<sizeof(T) == 4, float, std::int64_t>>;
static_assert(sizeof(MoveAs<std::int32_t>) == 4 && sizeof(MoveAs<std::int64_t>) == 8);

/// Run f(exec, LayoutKernels<B, MoveAs<T>>{}) on the task's device backend; false where it has none (the host
/// loop runs instead).
template <class T, class F>
bool on_layout_kernels(TaskContext& ctx, F&& f) {
  return detail::with_device_backend(ctx.execution(), [&](auto tag) {
    using B = typename decltype(tag)::type;
    detail::KernelScratch scratch(ctx.memory());
    f(scratch.exec(ctx.execution()), kernels::LayoutKernels<B, MoveAs<T>>{});
  });
}

template <class T>
MoveAs<T>* move_ptr(T* p) {
  return reinterpret_cast<MoveAs<T>*>(p);
}
template <class T>
const MoveAs<T>* move_ptr(const T* p) {
  return reinterpret_cast<const MoveAs<T>*>(p);
}

}  // namespace slab::detail
