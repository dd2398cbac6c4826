// The device instantiation of the key kernels: key encoding (key_encode.inl), the radix-sort permutation
// (sort_perm.inl), routing and grouping by bucket (partition.inl) and gathers (gather.inl), on Thrust's CUDA
// system with cub::DeviceRadixSort behind the backend's sort_pairs (core/cuda/cuda_backend.cuh). One TU for
// the four: they share the radix sort's instantiation, the costliest part of the nvcc build.
#include "core/cuda/cuda_backend.cuh"
#include "frame/kernels/gather.inl"
#include "frame/kernels/key_encode.inl"
#include "frame/kernels/partition.inl"
#include "frame/kernels/sort_perm.inl"

namespace slab::frame::kernels {
template struct KeyKernels<slab::kernels::Cuda>;
template struct SortKernels<slab::kernels::Cuda>;
template struct PartitionKernels<slab::kernels::Cuda>;
template struct GatherKernels<slab::kernels::Cuda>;
}  // namespace slab::frame::kernels
