#pragma once
/// @file segments.hpp
/// @brief group_transform's per-group kernels: one group's rows (in the frame's row order) in, one result per row
/// out, with pandas' numerics. The per-group passes are frame/kernels/segments_hd.hpp's, shared with the device
/// path (the sequential ones, rolling's window); transform's nunique, median and quantile sort the group's values
/// here first, as the device sorts them. Not collective.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "frame/kernels/segments_hd.hpp"
#include "slab/frame/batch.hpp"
#include "slab/frame/groupby_transform.hpp"

namespace slab::frame::detail {

/// A value column as the kernels read it: null like pandas (masked, NaN, string code -1).
struct ValueView : kernels::SegmentValues {
  ValueView() = default;
  ValueView(const BatchView& b, std::size_t c) : kernels::SegmentValues{b.type(c), b.data(c), b.valid(c)} {}
};

/// The result column being written: values of `type`, a mask (null for float64 results, whose nulls are NaN).
using ResultColumn = kernels::SegmentResult;

/// The sequential pass's view of `what` (segments_hd.hpp).
[[nodiscard]] kernels::SegmentOp segment_op_of(const GroupTransform& what) noexcept;

/**
 * @brief `what` over one group: rows[t] (t < m, in row order) index `in` (unused by cumcount and size); result t
 * goes to out at out0 + t. `scratch` is reused between groups. Not collective.
 */
void transform_segment(const GroupTransform& what, const ValueView& in, const std::int64_t* rows, std::size_t m,
                       ResultColumn& out, std::size_t out0, std::vector<double>& scratch);

}  // namespace slab::frame::detail
