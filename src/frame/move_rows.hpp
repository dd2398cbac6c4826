#pragma once
// Private to the frame layer: rows moved to given partitions by their global position (concat, repartition_rows).
#include <cstdint>
#include <string>
#include <vector>

#include "slab/frame/frame.hpp"

namespace slab::frame::detail {

/**
 * @brief The rows of `frame` (partition k of this rank starting at global position starts[k], its rows
 * consecutive) moved so that this rank holds partitions of target[j] rows each, in position order: sort_values'
 * range exchange (sort.cpp) with no key, the position as the row index and the targets' starts as the splitters of
 * the one partitioner, on the device kernels where the frame takes them (elsewhere `name` is noted as a host
 * fallback: concat, repartition). Collective: one allgatherv of the
 * targets, one shuffle.
 */
[[nodiscard]] Frame move_rows(const Frame& frame, const std::vector<std::int64_t>& starts,
                              const std::vector<std::int64_t>& target, const std::string& name);

}  // namespace slab::frame::detail
