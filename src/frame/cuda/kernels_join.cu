// The device instantiation of merge.inl (sorted build side, binary-search probe, expansion in the host's order,
// the direct array) and rolling.inl (runs of sliding windows, block extremes), on Thrust's CUDA system. The sorts
// and gathers they call are instantiated in kernels_keys.cu.
#include "core/cuda/cuda_backend.cuh"
#include "frame/kernels/merge.inl"
#include "frame/kernels/rolling.inl"

namespace slab::frame::kernels {
template struct JoinKernels<slab::kernels::Cuda>;
template struct RollingKernels<slab::kernels::Cuda>;
}  // namespace slab::frame::kernels
