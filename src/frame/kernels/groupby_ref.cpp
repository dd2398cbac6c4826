// The reference instantiation of groupby.inl: Thrust's serial CPU backend (docs/ARCHITECTURE.md, "Kernels").
#include "core/kernels/reference_backend.hpp"
#include "frame/kernels/groupby.inl"

namespace slab::frame::kernels {
template struct GroupbyKernels<slab::kernels::Reference>;
}  // namespace slab::frame::kernels
