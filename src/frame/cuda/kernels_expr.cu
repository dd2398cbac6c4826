// The device instantiation of the frame expression interpreter (expr.inl), on Thrust's CUDA system.
#include "core/cuda/cuda_backend.cuh"
#include "frame/kernels/expr.inl"

namespace slab::frame::kernels {
template struct ExprKernels<slab::kernels::Cuda>;
}  // namespace slab::frame::kernels
