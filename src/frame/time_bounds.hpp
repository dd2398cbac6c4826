#pragma once
// Private to the frame layer: the bounds of a timestamp column in every local partition (resample's origin and
// order, rolling's checks of a time window's column), on the device kernels (ResampleKernels::bounds, a small task
// a partition) or a host loop with the same answers.
#include <cstddef>
#include <vector>

#include "frame/kernels/resample.hpp"
#include "slab/frame/frame.hpp"

namespace slab::frame::detail {

/**
 * @brief kernels::TimeBounds of column `col` (timestamp) of every local partition, in partition order: on the
 * device kernels where `device` (the frame takes device paths), else a host loop over each partition. Runs the
 * frame's graph. Collective (persist).
 */
[[nodiscard]] std::vector<kernels::TimeBounds> time_bounds(const Frame& frame, std::size_t col, bool device);

}  // namespace slab::frame::detail
