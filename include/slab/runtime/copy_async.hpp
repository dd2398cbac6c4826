#pragma once
/// @file copy_async.hpp
/// @brief slab::copy_async: slab::copy (execution_context.hpp) without the wait, for pipelines that overlap a copy
/// between host and device memory with the host's next piece of work (the staged HDF5 reads).

#include <cstddef>

#include "slab/runtime/execution_context.hpp"

namespace slab {

/**
 * @brief As copy, but only enqueued on the context's stream: complete after context.synchronize() (a host context
 * copies at once). `src` must stay as it is until then, and be page-locked host memory or device memory for the
 * copy to overlap the caller's work (pageable memory makes CUDA copy it first). Not collective.
 * @throws CudaError when CUDA fails to enqueue it.
 */
void copy_async(void* dst, const void* src, std::size_t bytes, const ExecutionContext& context);

}  // namespace slab
