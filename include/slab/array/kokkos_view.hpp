#pragma once
/// @file kokkos_view.hpp
/// @brief The local block of a computed chunk as an unmanaged Kokkos::View, for user kernels next to
/// slab's. Kept apart from array.hpp so that only code that wants Kokkos includes Kokkos.

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>

#include "slab/array/array.hpp"
#include "slab/engine/host_fallback.hpp"
#include "slab/memory/buffer.hpp"
#include "slab/memory/host_view.hpp"
#include "slab/runtime/execution_context.hpp"

namespace slab {

/// A pinned chunk and its view: the view is valid while this object lives (the Pin keeps the bytes on the
/// device tier and unspillable). Where the chunk is in GPU memory and Kokkos computes in host memory, the view is
/// on a host copy (`edit.staged()`), written back to the chunk when this object goes (or at `edit.commit()`).
template <class T>
struct ChunkView {
  Pin pin;
  HostEdit edit;       ///< declared after the pin: the copy is written back before the pin goes
  ChunkExtent extent;  ///< global indices of element (0, 0) and the extents
  Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::MemoryTraits<Kokkos::Unmanaged>> view;
};

/**
 * @brief Pin local chunk `i` of `a` and view it as extent.rows x extent.cols (row-major). The chunk must
 * have been computed (call a.persist() first, which is collective). Writing through the view changes the
 * chunk in place for every array sharing it. Not collective.
 * A chunk in GPU memory seen by a Kokkos that computes in host memory (built without CUDA) is viewed through a
 * host copy that is written back when the ChunkView goes, and recorded as a host fallback "local_view" (on the
 * reference place too, as on a GPU).
 * @throws InvalidArgument when the chunk has not run yet; as Buffer::pin when reloading fails; CudaError when a
 * copy fails.
 */
template <class T>
[[nodiscard]] ChunkView<T> local_view(const Array<T>& a, std::size_t i) {
  const Chunk& c = a.local_chunk(i);
  SLAB_EXPECTS(c.ready() && c.buffer(), InvalidArgument,
               std::string("local_view: chunk '") + c.name() + "' has not been computed (call persist())");
  constexpr bool host_kokkos = std::is_same_v<Kokkos::DefaultExecutionSpace::memory_space, Kokkos::HostSpace>;
  ChunkView<T> out;
  out.extent = a.local_extent(i);
  out.pin = c.buffer()->pin();
  std::byte* bytes = out.pin.data();
  if (host_kokkos && c.buffer()->execution().device_kernels()) {  // the reference place too: CI runs it
    note_host_fallback(a.engine(), "local_view");
    out.edit = HostEdit(out.pin);
    bytes = out.edit.bytes().data();
  }
  out.view = decltype(out.view)(reinterpret_cast<T*>(bytes), static_cast<std::size_t>(out.extent.rows),
                                static_cast<std::size_t>(out.extent.cols));
  return out;
}

}  // namespace slab
