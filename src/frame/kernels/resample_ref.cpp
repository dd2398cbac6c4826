// The reference instantiation of resample.inl: Thrust's serial CPU backend (docs/ARCHITECTURE.md, "Kernels").
#include "core/kernels/reference_backend.hpp"
#include "frame/kernels/resample.inl"

namespace slab::frame::kernels {
template struct ResampleKernels<slab::kernels::Reference>;
}  // namespace slab::frame::kernels
