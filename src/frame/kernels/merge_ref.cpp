// The reference instantiation of merge.inl: Thrust's serial CPU backend (docs/ARCHITECTURE.md, "Kernels").
#include "core/kernels/reference_backend.hpp"
#include "frame/kernels/merge.inl"

namespace slab::frame::kernels {
template struct JoinKernels<slab::kernels::Reference>;
}  // namespace slab::frame::kernels
