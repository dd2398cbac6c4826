#pragma once
/// @file ops.hpp
/// @brief The row-wise frame operations of ops.cpp on the device: filter and dropna (stream compaction to a
/// row list for take_rows), isin (a sorted lookup), unique and value_counts (sort + run-length encoding),
/// cumsum (a scan), shift and diff (an offset gather over halo + own rows). Entry points of ops.inl.

#include <cstdint>

#include "core/kernels/exec.hpp"
#include "frame/kernels/columns.hpp"

namespace slab::frame::kernels {

using slab::kernels::Exec;

template <class B>
struct OpsKernels {
  using Backend = B;
  /// filter(): rows[0, k) = the rows where the predicate is true and valid (pred_valid nullptr = all valid).
  /// rows: capacity n. Returns k (synchronises).
  static std::int64_t filter_rows(const Exec& exec, const std::uint8_t* pred, const std::uint8_t* pred_valid,
                                  std::int64_t n, std::int64_t* rows);

  /// dropna(): rows[0, k) = the rows with no null (mask, NaN, string code -1) in any of cols (host array).
  /// Returns k (synchronises).
  static std::int64_t dropna_rows(const Exec& exec, const ColumnView* cols, int ncols, std::int64_t n,
                                  std::int64_t* rows);

  /**
   * @brief Expr::isin on a non-string column: out[i] = the row is not null and its value as a double
   * (int64/timestamp/bool converted, as the host's evaluation does) equals one of `values` (sorted ascending, no
   * NaN; backend memory). Asynchronous.
   */
  static void isin_values(const Exec& exec, const ColumnView& col, std::int64_t n, const double* values,
                          std::int64_t nvalues, std::uint8_t* out);
  /// Expr::isin on a string column: out[i] = the code is not null and in `codes` (sorted; backend memory).
  static void isin_codes(const Exec& exec, const ColumnView& col, std::int64_t n, const std::int32_t* codes,
                         std::int64_t ncodes, std::uint8_t* out);

  /**
   * @brief unique(): the distinct keys of n rows (key words encoded with nulls kept, so a null is one key that
   * sorts last), in key order: first_row[g] = the key's first row (row order: its value is the host's
   * representative), counts[g] (optional) = its rows. Capacity n each. Returns the number of keys
   * (synchronises).
   */
  static std::int64_t unique(const Exec& exec, const std::uint64_t* const* words, int width, const int* bits,
                             std::int64_t n, std::int64_t* first_row, std::int64_t* counts);

  /**
   * @brief value_counts(): the distinct keys of the kept rows (keep: the encoder's, nulls dropped) ordered by
   * count descending, then key ascending: first_row[g] and counts[g]. Returns the number of keys (synchronises).
   */
  static std::int64_t value_counts(const Exec& exec, const std::uint64_t* const* words, int width, const int* bits,
                                   std::int64_t n, const std::uint8_t* keep, std::int64_t* first_row,
                                   std::int64_t* counts);

  /**
   * @brief cumsum() of one int64 or float64 column: out[i] = offset + the sum of the non-null values of rows
   * <= i, for non-null rows; null rows keep their input value (the caller keeps the mask). `offset`: the bits
   * of a double (float64) or an int64 (wrapping sums). Floats sum in ordered_scan.inl's fixed order, the offset
   * first: the host's row-order loop through the first 128 rows, within rounding after them, the same bits every
   * run on every backend. Asynchronous.
   */
  static void cumsum(const Exec& exec, const ColumnView& col, std::int64_t n, std::uint64_t offset, void* out);

  /**
   * @brief cumsum()'s total of one int64 or float64 column: the sum of its non-null values (the bits of a double,
   * or an int64 with wrapping sums), from 0. On Reference in row order, as the host sums; on Cuda a tree, equal
   * for exactly summable data. Returns it (synchronises).
   */
  static std::uint64_t column_sum(const Exec& exec, const ColumnView& col, std::int64_t n);

  /**
   * @brief Series' reductions of one column (int64, timestamp, float64 or boolean, read as doubles): the count,
   * sum, mean, M2 (the sum of squared deviations from the mean), min and max of the rows that are not null
   * (by mask, or NaN), into out[0..6) in that order (host memory); a column without such rows gives count 0 and
   * NaN min and max. A string column counts its non-null codes (its other moments are of 0). Rows merge by Chan's
   * formula, so the serial instantiation is the host's row-order pass (bitwise for count, sum, mean, min and max; M2
   * within rounding) and a parallel one agrees within rounding. Synchronises.
   */
  static void column_moments(const Exec& exec, const ColumnView& col, std::int64_t n, double* out);

  /**
   * @brief shift() / diff() of one column over `ext` = halo rows and own rows, contiguous (ext_n rows; own rows
   * from `first`, n of them): own row i reads ext row first + i - periods, out of range = a vacated row.
   * shift: the value (vacated: 0, or -1 for string codes) and out_valid (when not nullptr) = in range and
   * valid by the mask. diff (int64/float64): own value minus the source, when both exist and are not null
   * (else NaN for float64, 0 for int64), out_valid = both present. Asynchronous.
   */
  static void shift(const Exec& exec, const ColumnView& ext, std::int64_t ext_n, std::int64_t first, std::int64_t n,
                    std::int64_t periods, bool diff, void* out, std::uint8_t* out_valid);

  /**
   * @brief to_array's values of one int64, timestamp, float64 or boolean column (from_arrays.cpp): out[i] = row
   * i's value cast to a double (`as_double`; a row masked out: NaN) or to an int64 (a row masked out: left
   * unwritten), as the host's static_cast. Returns the first row masked out for an int64 `out` (-1 where none;
   * synchronises), -1 for a double one (asynchronous).
   */
  static std::int64_t column_values(const Exec& exec, const ColumnView& col, std::int64_t n, bool as_double, void* out);
};

}  // namespace slab::frame::kernels
