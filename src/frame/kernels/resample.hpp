#pragma once
/// @file resample.hpp
/// @brief resample's passes on a timestamp column (resample.cpp): the times' bounds, each row's bin
/// (resample_hd.hpp), and the filled bins of one partition of groupby's result (a row per bin from lo, the bins
/// groupby made copied, the others empty). Entry points of resample.inl.

#include <cstdint>

#include "core/kernels/exec.hpp"
#include "frame/kernels/columns.hpp"

namespace slab::frame::kernels {

using slab::kernels::Exec;

/// The non-null times of a column, in row order: whether there is one, the earliest, the first and the last,
/// and whether each is >= the one before it; and whether some row is null (by the mask).
struct TimeBounds {
  bool any = false;
  std::int64_t min = 0, first = 0, last = 0;
  bool sorted = true;
  bool nulls = false;
};

template <class B>
struct ResampleKernels {
  /// TimeBounds of rows [0, n) of `col` (timestamp or int64; nulls by mask skipped). Synchronises.
  static TimeBounds bounds(const Exec& exec, const ColumnView& col, std::int64_t n);

  /// out[i] = resample_bin(t[i], origin, freq) where row i is not null, else t[i] (t = col's values, every valid
  /// t >= origin; out may be col's own data). Asynchronous.
  static void bins(const Exec& exec, const ColumnView& col, std::int64_t n, std::int64_t origin, std::int64_t freq,
                   std::int64_t* out);

  /**
   * @brief The m bins from lo (resample_nth_bin) against `keys` (n distinct bins, ascending: one partition of
   * groupby's result): out_keys[j] = bin j, rows[j] = the row of `keys` that holds it, or -1. Returns how many
   * bins have a row (synchronises).
   */
  static std::int64_t bin_rows(const Exec& exec, const std::int64_t* keys, std::int64_t n, std::int64_t lo,
                               std::int64_t m, std::int64_t freq, std::int64_t* out_keys, std::int64_t* rows);

  /**
   * @brief One output column of the filled bins: out[j] = in's element at rows[j], valid as there (valid where
   * `in` has no mask), or, where rows[j] is -1, the element_size(in.type) low bytes of `empty` (little-endian),
   * valid = empty_valid. out_valid may be nullptr. Asynchronous.
   */
  static void fill(const Exec& exec, const ColumnView& in, const std::int64_t* rows, std::int64_t m,
                   std::uint64_t empty, bool empty_valid, void* out, std::uint8_t* out_valid);
};

}  // namespace slab::frame::kernels
