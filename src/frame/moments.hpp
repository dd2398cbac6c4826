#pragma once
// Private to the frame layer: a numeric column's count, sum, mean, M2, min and max over every rank, the one pass
// that Series' reductions and describe() share (src/frame/series.cpp).
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "slab/frame/frame.hpp"

namespace slab::frame::detail {

/// count, sum, mean (Welford), M2, min, max of the non-null, non-NaN values.
struct Moments {
  double count = 0;
  double sum = 0;
  double mean = 0;
  double m2 = 0;
  double min = std::numeric_limits<double>::quiet_NaN();
  double max = std::numeric_limits<double>::quiet_NaN();
};

/// The moments of `column` (not a string column) on every rank: each rank's own, one small task per partition
/// (OpsKernels::column_moments where the frame takes device paths; a host pass recorded as operation `op`'s
/// fallback otherwise), combined in partition and then rank order (Chan's formula), so every rank gets the same
/// bits. Collective. @throws TypeError for a string column.
Moments global_moments(const Frame& frame, const std::string& column, std::string_view op);
/// The same for several columns in one pass over the partitions.
std::vector<Moments> global_moments(const Frame& frame, const std::vector<std::string>& columns, std::string_view op);

}  // namespace slab::frame::detail
