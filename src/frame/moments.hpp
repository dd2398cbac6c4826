#pragma once
// Private to the frame layer: a numeric column's count, sum, mean, M2, min and max over every rank, the one pass
// that Series' reductions and describe() share (src/frame/series.cpp).
#include <limits>
#include <string>

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

/// The moments of `column` (not a string column) on every rank: each rank's own, combined in rank order (Chan's
/// formula), so every rank gets the same bits. Collective. @throws TypeError for a string column.
Moments global_moments(const Frame& frame, const std::string& column);

}  // namespace slab::frame::detail
