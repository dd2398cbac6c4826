#pragma once
/// @file kokkos_view.hpp
/// @brief The local block of a computed chunk as an unmanaged Kokkos::View, for user kernels next to
/// slab's. Kept apart from array.hpp so that only code that wants Kokkos includes Kokkos.

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>

#include "slab/array/array.hpp"
#include "slab/memory/buffer.hpp"
#include "slab/runtime/execution_context.hpp"

namespace slab {

/// A pinned chunk and its view: the view is valid while this object lives (the Pin keeps the bytes on the
/// device tier and unspillable).
template <class T>
struct ChunkView {
  Pin pin;
  ChunkExtent extent;  ///< global indices of element (0, 0) and the extents
  Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::MemoryTraits<Kokkos::Unmanaged>> view;
};

/**
 * @brief Pin local chunk `i` of `a` and view it as extent.rows x extent.cols (row-major). The chunk must
 * have been computed (call a.persist() first, which is collective). Writing through the view changes the
 * chunk in place for every array sharing it. Not collective.
 * @throws InvalidArgument when the chunk has not run yet, or when it is in GPU memory (--device-memory) and
 * Kokkos' default memory space is host memory (a Kokkos without CUDA cannot read it); as Buffer::pin when
 * reloading fails.
 */
template <class T>
[[nodiscard]] ChunkView<T> local_view(const Array<T>& a, std::size_t i) {
  const Chunk& c = a.local_chunk(i);
  SLAB_EXPECTS(c.ready() && c.buffer(), InvalidArgument,
               std::string("local_view: chunk '") + c.name() + "' has not been computed (call persist())");
  constexpr bool host_kokkos = std::is_same_v<Kokkos::DefaultExecutionSpace::memory_space, Kokkos::HostSpace>;
  SLAB_EXPECTS(!(host_kokkos && c.buffer()->execution().on_device()), InvalidArgument,
               std::string("local_view: chunk '") + c.name() +
                   "' is in GPU memory (--device-memory) and this Kokkos computes in host memory: run without "
                   "--device-memory, or use a Kokkos built with CUDA");
  ChunkView<T> out;
  out.extent = a.local_extent(i);
  out.pin = c.buffer()->pin();
  out.view = decltype(out.view)(reinterpret_cast<T*>(out.pin.data()), static_cast<std::size_t>(out.extent.rows),
                                static_cast<std::size_t>(out.extent.cols));
  return out;
}

}  // namespace slab
