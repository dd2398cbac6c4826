// The reference instantiation of elementwise.inl: Thrust's serial CPU backend (docs/ARCHITECTURE.md, "Kernels").
#include "array/kernels/elementwise.inl"
#include "core/kernels/reference_backend.hpp"

namespace slab::kernels {
template struct ElementwiseKernels<Reference, float>;
template struct ElementwiseKernels<Reference, double>;
template struct ElementwiseKernels<Reference, std::int64_t>;
template struct ElementwiseKernels<Reference, std::int32_t>;
}  // namespace slab::kernels
