// The reference instantiation of layout.inl: Thrust's serial CPU backend (docs/ARCHITECTURE.md, "Kernels").
#include "array/kernels/layout.inl"
#include "core/kernels/reference_backend.hpp"

namespace slab::kernels {
template struct LayoutKernels<Reference, float>;
template struct LayoutKernels<Reference, double>;
template struct LayoutKernels<Reference, std::int64_t>;
}  // namespace slab::kernels
