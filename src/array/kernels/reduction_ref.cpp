// The reference instantiation of reduction.inl: Thrust's serial CPU backend (docs/ARCHITECTURE.md, "Kernels").
#include "array/kernels/reduction.inl"
#include "core/kernels/reference_backend.hpp"

namespace slab::kernels {
template struct ReductionKernels<Reference, float>;
template struct ReductionKernels<Reference, double>;
template struct ReductionKernels<Reference, std::int64_t>;
template struct ReductionKernels<Reference, std::int32_t>;
}  // namespace slab::kernels
