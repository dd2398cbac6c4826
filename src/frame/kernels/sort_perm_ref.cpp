// The reference instantiation of sort_perm.inl: Thrust's serial CPU backend (docs/ARCHITECTURE.md, "Kernels").
#include "core/kernels/reference_backend.hpp"
#include "frame/kernels/sort_perm.inl"

namespace slab::frame::kernels {
template struct SortKernels<slab::kernels::Reference>;
}  // namespace slab::frame::kernels
