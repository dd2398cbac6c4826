#pragma once
// Private to slab: which backend of the device kernels (core/kernels/exec.hpp) a rank's execution context runs:
// kernels::Cuda on a CUDA context, kernels::Reference on the reference place (the same compositions on the CPU),
// none on the host. The one switch every device path of the array and frame layers goes through.
#include "core/kernels/exec.hpp"
#include "slab/core/fault.hpp"
#include "slab/core/version.hpp"
#include "slab/runtime/execution_context.hpp"

namespace slab::detail {

template <class B>
struct BackendTag {
  using type = B;
};

/// Whether `context` has a device backend in this build.
inline bool has_device_backend(const ExecutionContext& context) {
  return (context.place() == ExecutionPlace::cuda && built_with_cuda) ||
         (context.place() == ExecutionPlace::reference && built_with_kernel_reference);
}

/// Call f(BackendTag<B>{}) with the backend of `context`'s device kernels (kernels::Cuda on a CUDA context,
/// kernels::Reference on the reference place) and return true; false on a host context or where this build has
/// no such backend.
/// Every device kernel call of the array and frame layers passes here, so a kernel's failure can be injected once for
/// all of them: SLAB_FAULT=device_kernel:R:S:cuda (tests/reliability_faults) throws CudaError as a failed launch.
template <class F>
bool with_device_backend(const ExecutionContext& context, F&& f) {
  if (!has_device_backend(context)) return false;
  SLAB_FAULT_POINT("device_kernel");
  if (context.place() == ExecutionPlace::cuda) {
    if constexpr (built_with_cuda) f(BackendTag<kernels::Cuda>{});
  } else {
    if constexpr (built_with_kernel_reference) f(BackendTag<kernels::Reference>{});
  }
  return true;
}

}  // namespace slab::detail
