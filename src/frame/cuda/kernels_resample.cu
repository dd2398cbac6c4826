// The device instantiation of resample's kernels (resample.inl) on Thrust's CUDA system.
#include "core/cuda/cuda_backend.cuh"
#include "frame/kernels/resample.inl"

namespace slab::frame::kernels {
template struct ResampleKernels<slab::kernels::Cuda>;
}  // namespace slab::frame::kernels
