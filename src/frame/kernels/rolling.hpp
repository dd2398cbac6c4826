#pragma once
/// @file rolling.hpp
/// @brief Rolling windows by rows and by time (rolling_kernel_rows / rolling_kernel_time of
/// slab/frame/rolling.hpp) on the device: the same inputs (halo rows then own rows, contiguous), min_periods
/// and NaN rules. Entry points of rolling.inl.
///
/// Canonical order: outputs are cut into runs of about kRollingRun consecutive rows; each run starts its
/// accumulator afresh on its first window and then slides with the host's compensated add/remove
/// (rolling_hd.hpp). Equality with the host: count, min and max bitwise (min/max: the last occurrence of the
/// extreme in the window, as the host's deque, so -0.0 and 0.0 come out as the host's); a row window's std
/// bitwise (its runs start where the host recomputes the variance exactly, every `window` outputs, so each run
/// starts in the host's state); sums and means bitwise on exactly summable data, else within the rounding of a
/// different summation order (the host's running sum carries its whole history); a time window's std within
/// rounding (the host never recomputes it). Run to run the device is bitwise stable.

#include <cstdint>

#include "core/kernels/exec.hpp"
#include "frame/kernels/columns.hpp"
#include "frame/kernels/rolling_hd.hpp"

namespace slab::frame::kernels {

using slab::kernels::Exec;

/// Outputs per run (part of the canonical order).
inline constexpr std::int64_t kRollingRun = 256;

template <class B>
struct RollingKernels {
  /// rolling_kernel_rows: x holds halo then n rows (backend); out[i] for the n own rows. Asynchronous.
  static void rows(const Exec& exec, const double* x, std::int64_t halo, std::int64_t n, std::int64_t window,
                   std::int64_t min_periods, RollingKind op, double* out);
  /// A row window within each group (group_transform's rolling, segment_rolling of segments_hd.hpp): x[0, n)
  /// holds `groups` groups, group g at offsets[g] .. offsets[g + 1] (backend memory, offsets[groups] = n), and
  /// out[k] is the window of rows k + 1 - window .. k that lie in k's group. Runs are cut from each group's first
  /// row (a std's at its recomputes), so the equality with the host is rows()'s. Asynchronous.
  static void groups(const Exec& exec, const double* x, const std::int64_t* offsets, std::int64_t groups,
                     std::int64_t n, std::int64_t window, std::int64_t min_periods, RollingKind op, double* out);
  /// rolling_kernel_time: the window of row i is the rows j <= i with t[j] > t[i] - span (t sorted, no NaT).
  static void time(const Exec& exec, const std::int64_t* t, const double* x, std::int64_t halo, std::int64_t n,
                   std::int64_t span, std::int64_t min_periods, RollingKind op, double* out);
  /// The windows' input column as doubles (rolling.cpp's append_values): float64 as is, int64, timestamp and
  /// boolean converted, a null (by the mask) as NaN. Asynchronous.
  static void values(const Exec& exec, const ColumnView& col, std::int64_t n, double* out);
  /// Where the carry of a time window starts: the first j of t[0, n) (sorted) with t[j] > t[n - 1] - span, the
  /// rows a later row's window can reach; 0 for n = 0. Synchronises.
  static std::int64_t time_carry_start(const Exec& exec, const std::int64_t* t, std::int64_t n, std::int64_t span);
  /// The first j of t[0, n) (sorted, backend memory) with t[j] > bound; n if none. Synchronises.
  static std::int64_t first_after(const Exec& exec, const std::int64_t* t, std::int64_t n, std::int64_t bound);
};

}  // namespace slab::frame::kernels
