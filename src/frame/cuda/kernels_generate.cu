// The device instantiation of frame::generate's column kernel (generate.inl), on Thrust's CUDA system.
#include "core/cuda/cuda_backend.cuh"
#include "frame/kernels/generate.inl"

namespace slab::frame::kernels {
template struct GenerateKernels<slab::kernels::Cuda>;
}  // namespace slab::frame::kernels
