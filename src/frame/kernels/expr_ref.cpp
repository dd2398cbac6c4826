// The reference instantiation of expr.inl: Thrust's serial CPU backend (docs/ARCHITECTURE.md, "Kernels").
#include "core/kernels/reference_backend.hpp"
#include "frame/kernels/expr.inl"

namespace slab::frame::kernels {
template struct ExprKernels<slab::kernels::Reference>;
}  // namespace slab::frame::kernels
