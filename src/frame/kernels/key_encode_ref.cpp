// The reference instantiation of key_encode.inl: Thrust's serial CPU backend (docs/ARCHITECTURE.md, "Kernels").
#include "core/kernels/reference_backend.hpp"
#include "frame/kernels/key_encode.inl"

namespace slab::frame::kernels {
template struct KeyKernels<slab::kernels::Reference>;
}  // namespace slab::frame::kernels
