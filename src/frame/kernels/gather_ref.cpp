// The reference instantiation of gather.inl: Thrust's serial CPU backend (docs/ARCHITECTURE.md, "Kernels").
#include "core/kernels/reference_backend.hpp"
#include "frame/kernels/gather.inl"

namespace slab::frame::kernels {
template struct GatherKernels<slab::kernels::Reference>;
}  // namespace slab::frame::kernels
