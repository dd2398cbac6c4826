// The device instantiation of the array kernels: counter-based creation (creation.inl), per-chunk reduction
// partials in the host's canonical order (reduction.inl), fused elementwise programs (elementwise.inl), layout
// changes (layout.inl) and cumsum's scans (scan.inl), for float, double and int64 (and int32 scanned in int64),
// on Thrust's CUDA system. --fmad=false (CMake): the reductions and the shared generators round as the host does.
#include "array/kernels/creation.inl"
#include "array/kernels/elementwise.inl"
#include "array/kernels/layout.inl"
#include "array/kernels/reduction.inl"
#include "array/kernels/scan.inl"
#include "core/cuda/cuda_backend.cuh"

namespace slab::kernels {
template struct CreationKernels<Cuda>;
template struct ReductionKernels<Cuda, float>;
template struct ReductionKernels<Cuda, double>;
template struct ReductionKernels<Cuda, std::int64_t>;
template struct ReductionKernels<Cuda, std::int32_t>;
template struct ElementwiseKernels<Cuda, float>;
template struct ElementwiseKernels<Cuda, double>;
template struct ElementwiseKernels<Cuda, std::int64_t>;
template struct ElementwiseKernels<Cuda, std::int32_t>;
template struct LayoutKernels<Cuda, float>;
template struct LayoutKernels<Cuda, double>;
template struct LayoutKernels<Cuda, std::int64_t>;
template struct ScanKernels<Cuda, double, double>;
template struct ScanKernels<Cuda, float, float>;
template struct ScanKernels<Cuda, std::int32_t, std::int64_t>;
template struct ScanKernels<Cuda, std::int64_t, std::int64_t>;
}  // namespace slab::kernels
