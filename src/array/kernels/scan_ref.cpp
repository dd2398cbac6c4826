// The reference instantiation of scan.inl: Thrust's serial CPU backend (docs/ARCHITECTURE.md, "Kernels").
#include "array/kernels/scan.inl"
#include "core/kernels/reference_backend.hpp"

namespace slab::kernels {
template struct ScanKernels<Reference, double, double>;
template struct ScanKernels<Reference, float, float>;
template struct ScanKernels<Reference, std::int32_t, std::int64_t>;
template struct ScanKernels<Reference, std::int64_t, std::int64_t>;
}  // namespace slab::kernels
