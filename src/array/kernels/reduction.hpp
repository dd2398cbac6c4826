#pragma once
/// @file reduction.hpp
/// @brief Per-chunk partials of slab's array reductions (device_paths.hpp's reduce_partials) on the device, in the
/// canonical order of reduction_hd.hpp: every tile of every chunk in parallel (each one thread, its 8 lanes
/// in the host's order), then each chunk's tiles merged in order. The caller merges the partials in chunk
/// order (merge_stats, or += for sums) and over ranks as the host does, and finishes them as the host does:
/// the results are bitwise the host's at a fixed rank count. Entry points of reduction.inl; T = float, double,
/// std::int64_t or std::int32_t. No CUB DeviceReduce: its order is not the host's.

#include <cstdint>

#include "array/kernels/reduction_hd.hpp"
#include "core/kernels/exec.hpp"

namespace slab::kernels {

/// Where a chunk lies in the global array (for argmin/argmax's flat indices): its first row and column and its
/// width; element k of the chunk is global (row0 + k / cols, col0 + k % cols).
struct ChunkPlace {
  std::int64_t row0 = 0, col0 = 0, cols = 1;
};

template <class B, class T>
struct ReductionKernels {
  /// reduce_stats / mean / var / std / min / max: out[c] = chunk c's StatsPartial (host array). `chunks` and
  /// `sizes`: host arrays of nchunks backend pointers and element counts. Synchronises once.
  static void stats(const Exec& exec, const T* const* chunks, const std::int64_t* sizes, int nchunks,
                    StatsPartial<T>* out);
  /// sum: out[c].sum (tile sums added in order), out[c].n. Synchronises once.
  static void sum(const Exec& exec, const T* const* chunks, const std::int64_t* sizes, int nchunks, SumPartial<T>* out);
  /// norm: out[c].dsum = the chunk's sum of squares (tile sums added in order). Synchronises once.
  static void sum_squares(const Exec& exec, const T* const* chunks, const std::int64_t* sizes, int nchunks,
                          SumPartial<T>* out);
  /// nansum / nanmean (floating T): out[c].sum = out[c].dsum = the chunk's sum without its NaN (tile_nansum's tiles
  /// added in order), out[c].n = its values that are not NaN. Synchronises once.
  static void nansum(const Exec& exec, const T* const* chunks, const std::int64_t* sizes, int nchunks,
                     SumPartial<T>* out);
  /// count_nonzero: out[c].n. Synchronises once.
  static void count_nonzero(const Exec& exec, const T* const* chunks, const std::int64_t* sizes, int nchunks,
                            SumPartial<T>* out);
  /// argmin / argmax: out[c] = chunk c's ArgPartial with flat indices over `global_cols` columns. Synchronises.
  static void argminmax(const Exec& exec, const T* const* chunks, const std::int64_t* sizes, const ChunkPlace* places,
                        int nchunks, std::int64_t global_cols, ArgPartial<T>* out);
  /// reduce_axis along axis 1: out[r] (host array) = the partial of row r of the rows x cols row-major block x
  /// (backend memory), one tile_stats over the row as the host's stats_tile. Synchronises once.
  static void row_stats(const Exec& exec, const T* x, std::int64_t rows, std::int64_t cols, StatsPartial<T>* out);
  /// reduce_axis along axis 0: out[c] (host array) = the partial of column c, its values added in row order
  /// (stats_add) as the host does; one column per thread (coalesced across the columns). Synchronises once.
  static void col_stats(const Exec& exec, const T* x, std::int64_t rows, std::int64_t cols, StatsPartial<T>* out);
  /// argmin / argmax along an axis: out[k] (host array) = the ArgPartial of line k of the rows x cols block x
  /// (backend memory): column k for axis 0, row k for axis 1, its values folded in order (arg_fold_one: the
  /// maximum side where `max`, else the minimum) with the index `index0` + their position along the axis (the
  /// host's loop). Synchronises once.
  static void arg_lines(const Exec& exec, const T* x, std::int64_t rows, std::int64_t cols, int axis, bool max,
                        std::int64_t index0, ArgPartial<T>* out);
};

}  // namespace slab::kernels
