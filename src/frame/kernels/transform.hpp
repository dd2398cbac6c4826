#pragma once
/// @file transform.hpp
/// @brief group_transform (groupby/transform.cpp) on the device: the tagged rows of each input partition, each
/// shuffled partition's groups computed (row-parallel where every result is exact in any order, segments_by_row.inl;
/// float sums and products in pieces of kGroupPiece rows of a group, segments_by_piece.inl; rolling in runs of
/// each group, RollingKernels::groups), the route of every result back to the partition owning its row, and the
/// scatter into place. Entry points of transform.inl.
///
/// Equality with the host: the row-parallel operations are exact (integers, positions, min and max keeping the
/// earlier of equals; nunique, median and quantile: counts, then holistic.hpp's formulas on the values sorted as
/// segments.cpp sorts them), bitwise the host's. The pieces run the host's own SLAB_HD loop (segments_hd.hpp) over
/// each piece, so a group of at most kGroupPiece rows is bitwise the host's; a larger one differs only in the
/// rounding of float cumsum, cumprod, sum, mean, std and var (exactly summable data: bitwise). Rolling within
/// groups is RollingKernels::rows' contract (counts, min, max and std bitwise; sums and means bitwise on exactly
/// summable data). Groups come out of compute() in key order (the host's in first-seen order): the rows are routed
/// back and scattered by row number, so the result is the same.
#include <cstdint>

#include "core/kernels/exec.hpp"
#include "frame/kernels/columns.hpp"
#include "frame/kernels/segments_hd.hpp"

namespace slab::frame::kernels {

using slab::kernels::Exec;

template <class B>
struct TransformKernels {
  /**
   * @brief The tag step: for j < k, out_words[w][j] = words[w][rows[j]] (w < width), out_row[j] = first_row +
   * rows[j], and with a value column (`value` not nullptr) its value and validity at rows[j] into out_value and
   * out_valid (nullptr: not written). `words`, `out_words`: host arrays of backend pointers. Asynchronous.
   */
  static void tag_rows(const Exec& exec, const std::uint64_t* const* words, int width, const std::int64_t* rows,
                       std::int64_t k, std::int64_t first_row, const ColumnView* value, std::uint64_t* const* out_words,
                       std::int64_t* out_row, void* out_value, std::uint8_t* out_valid);

  /**
   * @brief One shuffled partition of n tagged rows (key words `words`, host array of width backend arrays with end
   * bits `bits`; global row numbers `row`, below 2^row_bits; the value column `values`): the rows sorted by (key,
   * row), one segment a key, segment_op(op) over each in row order into `out` at the sorted positions, and
   * out_row[j] = the row number of sorted position j. For segment_op_is_sorted(op) the rows are sorted by (key,
   * null, segment_value_word) instead, and each segment takes sorted_segment_op's aggregate (computed row-parallel).
   * For segment_op_is_windowed(op) (rolling, a float64 `out`) each segment's values are read as doubles in row order
   * and take RollingKernels::groups (a variance: squared). width + 1 (sorted: + 2) <= kMaxKeyWords. Returns the number
   * of groups (synchronises).
   */
  static std::int64_t compute(const Exec& exec, const std::uint64_t* const* words, int width, const int* bits,
                              const std::int64_t* row, int row_bits, std::int64_t n, const SegmentValues& values,
                              const SegmentOp& op, const SegmentResult& out, std::int64_t* out_row);

  /**
   * @brief The route back: bucket[i] = ids[b] for the last b with starts[b] <= row[i] (starts ascending, nb of
   * them, starts[0] <= every row; `starts` and `ids` in backend memory). Asynchronous.
   */
  static void return_buckets(const Exec& exec, const std::int64_t* row, std::int64_t n, const std::int64_t* starts,
                             const std::uint32_t* ids, std::int64_t nb, std::uint32_t* bucket);

  /**
   * @brief The scatter into place: out's m rows (rows first_row .. first_row + m) null, then out[row[i] -
   * first_row] = values' row i for i < n (the route back sends only rows in the range). Asynchronous.
   */
  static void scatter(const Exec& exec, const std::int64_t* row, std::int64_t n, const SegmentValues& values,
                      std::int64_t first_row, std::int64_t m, const SegmentResult& out);
};

}  // namespace slab::frame::kernels
