#pragma once
/// @file transform_device.hpp
/// @brief group_transform (groupby/transform.cpp) on the device kernels (frame/kernels/transform.hpp): each of its
/// four tasks' bodies, with the same inputs and outputs as the host's, and the route of the results back to the
/// partitions owning their rows. The shuffle by key is groupby's device route (device_path.hpp).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "frame/key_words.hpp"
#include "frame/shuffle_device.hpp"
#include "slab/frame/frame.hpp"
#include "slab/frame/groupby_transform.hpp"

namespace slab {
class TaskContext;
}

namespace slab::frame::detail {

/// Whether group_transform takes the device path: a device context (every operation has a device pass:
/// segments_hd.hpp's sequential pass, rolling's window, or transform's nunique, median and quantile over sorted
/// values), and key words that leave room for the sort words after them (the row number, or a value's null flag and
/// word).
[[nodiscard]] bool group_transform_takes_device_path(const Frame& frame, const GroupTransform& what,
                                                     const KeyEncoder& enc);

/// The tag task: input 0's kept rows (the key kept by `enc`) as tag_schema's columns: the key words, the row number
/// (first_row + the row), the value column `vcol` when has_value. Not collective.
void tag_rows_on_device(TaskContext& ctx, const KeyEncoder& enc, const Schema& tag_schema, bool has_value,
                        std::size_t vcol, std::int64_t first_row);

/// The compute task: input 0, a shuffled partition of tagged rows (W key words, the row number below 2^row_bits,
/// the value), into (row number, result) columns of types res_types with masks res_masks. Not collective.
void transform_rows_on_device(TaskContext& ctx, const GroupTransform& what, const KeyEncoder& enc, int row_bits,
                              bool has_value, const std::vector<ElementType>& res_types,
                              const std::vector<bool>& res_masks);

/// The route back: a (row number, result) row goes to ids[b] for the last b with starts[b] <= its row number.
[[nodiscard]] DeviceRouteFn device_route_by_row(std::shared_ptr<const std::vector<std::int64_t>> starts,
                                                std::shared_ptr<const std::vector<std::uint32_t>> ids);

/// The scatter task: input 0's results into the m rows from first_row on, one column of out_schema (masked unless
/// float64); rows no result reached are null. Not collective.
void scatter_rows_on_device(TaskContext& ctx, const Schema& out_schema, std::int64_t first_row, std::int64_t m);

}  // namespace slab::frame::detail
