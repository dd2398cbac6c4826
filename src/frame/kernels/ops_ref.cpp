// The reference instantiation of ops.inl: Thrust's serial CPU backend (docs/ARCHITECTURE.md, "Kernels").
#include "core/kernels/reference_backend.hpp"
#include "frame/kernels/ops.inl"

namespace slab::frame::kernels {
template struct OpsKernels<slab::kernels::Reference>;
}  // namespace slab::frame::kernels
