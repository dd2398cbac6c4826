// The reference instantiation of transform.inl: Thrust's serial CPU backend (docs/ARCHITECTURE.md, "Kernels").
#include "core/kernels/reference_backend.hpp"
#include "frame/kernels/transform.inl"

namespace slab::frame::kernels {
template struct TransformKernels<slab::kernels::Reference>;
}  // namespace slab::frame::kernels
