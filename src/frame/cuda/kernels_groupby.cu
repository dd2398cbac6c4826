// The device instantiation of the sorted-segment kernels: groupby (groupby.inl), unique / value_counts / filter /
// dropna / isin / cumsum / shift (ops.inl) and group_transform's (transform.inl), on Thrust's CUDA system. The
// sorts they call are the ones instantiated in kernels_keys.cu.
#include "core/cuda/cuda_backend.cuh"
#include "frame/kernels/groupby.inl"
#include "frame/kernels/ops.inl"
#include "frame/kernels/transform.inl"

namespace slab::frame::kernels {
template struct GroupbyKernels<slab::kernels::Cuda>;
template struct OpsKernels<slab::kernels::Cuda>;
template struct TransformKernels<slab::kernels::Cuda>;
}  // namespace slab::frame::kernels
