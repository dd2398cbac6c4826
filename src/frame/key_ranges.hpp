#pragma once
// Private to the frame layer: the ranges pass of a KeyEncoder (groupby's and merge's key packing) over a frame's
// partitions, on the device where the frame takes device paths.
#include <cstdint>
#include <vector>

#include "frame/key_words.hpp"
#include "slab/frame/frame.hpp"

namespace slab::frame::detail {

/**
 * Fold the value words of `enc`'s key columns over every partition of `frame` into per-word [min, max] (`mins` /
 * `maxs`, enc.nwords each, as KeyEncoder::update_ranges folds one batch): one task per partition, run here. Where
 * the frame takes device paths the data-dependent words' ranges are found on the device
 * (KeyKernels::value_word_range), so no partition leaves it; otherwise update_ranges runs on the host. Not
 * collective: the caller combines the ranks' ranges (allreduce min / max).
 */
void fold_key_ranges(const Frame& frame, const KeyEncoder& enc, std::vector<std::uint64_t>& mins,
                     std::vector<std::uint64_t>& maxs, const char* task_name);

}  // namespace slab::frame::detail
