// The reference instantiation of generate.inl: Thrust's serial CPU backend (docs/ARCHITECTURE.md, "Kernels").
#include "core/kernels/reference_backend.hpp"
#include "frame/kernels/generate.inl"

namespace slab::frame::kernels {
template struct GenerateKernels<slab::kernels::Reference>;
}  // namespace slab::frame::kernels
