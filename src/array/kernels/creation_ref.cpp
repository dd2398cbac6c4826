// The reference instantiation of creation.inl: Thrust's serial CPU backend (docs/ARCHITECTURE.md, "Kernels").
#include "array/kernels/creation.inl"
#include "core/kernels/reference_backend.hpp"

namespace slab::kernels {
template struct CreationKernels<Reference>;
}  // namespace slab::kernels
