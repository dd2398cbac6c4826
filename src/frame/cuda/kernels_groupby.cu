// The device instantiation of the sorted-segment kernels: groupby (groupby.inl) and unique / value_counts /
// filter / dropna / isin / cumsum / shift (ops.inl), on Thrust's CUDA system. The sorts they call are the ones
// instantiated in kernels_keys.cu.
#include "core/cuda/cuda_backend.cuh"
#include "frame/kernels/groupby.inl"
#include "frame/kernels/ops.inl"

namespace slab::frame::kernels {
template struct GroupbyKernels<slab::kernels::Cuda>;
template struct OpsKernels<slab::kernels::Cuda>;
}  // namespace slab::frame::kernels
