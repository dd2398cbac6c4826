// The reference instantiation of partition.inl: Thrust's serial CPU backend (docs/ARCHITECTURE.md, "Kernels").
#include "core/kernels/reference_backend.hpp"
#include "frame/kernels/partition.inl"

namespace slab::frame::kernels {
template struct PartitionKernels<slab::kernels::Reference>;
}  // namespace slab::frame::kernels
