#pragma once
// Private to the frame layer: map_partitions for the library's own per-partition operations, which say whether
// their function takes the device path (then no host fallback is recorded; see slab/engine/host_fallback.hpp).
#include <string>

#include "slab/frame/frame.hpp"

namespace slab::frame::detail {

/// map_partitions(frame, out, name, fn, keeps_rows), recording the host fallback `name` unless `device_path`.
[[nodiscard]] Frame map_partitions_with(const Frame& frame, Schema out, std::string name, PartitionFn fn,
                                        bool keeps_rows, bool device_path);

}  // namespace slab::frame::detail
