// The reference instantiation of rolling.inl: Thrust's serial CPU backend (docs/ARCHITECTURE.md, "Kernels").
#include "core/kernels/reference_backend.hpp"
#include "frame/kernels/rolling.inl"

namespace slab::frame::kernels {
template struct RollingKernels<slab::kernels::Reference>;
}  // namespace slab::frame::kernels
