#pragma once
/// @file gather.hpp
/// @brief take_rows for one column (batch.cpp: -1 = a null row) and stream compaction (the rows whose flag is
/// set, in row order): the two steps every filter, shuffle and join output is made of. Entry points of
/// gather.inl.

#include <cstdint>

#include "core/kernels/exec.hpp"
#include "frame/kernels/columns.hpp"

namespace slab::frame::kernels {

using slab::kernels::Exec;

template <class B>
struct GatherKernels {
  /**
   * @brief take_rows for one column: out[i] = in's value at rows[i], or for rows[i] = -1 the null value (0, or
   * -1 for string codes); out_valid (when not nullptr) = 0 for rows[i] = -1, else in's validity there (1 when
   * in has no mask). `out` holds n values of in's type. Asynchronous.
   */
  static void column(const Exec& exec, const ColumnView& in, const std::int64_t* rows, std::int64_t n, void* out,
                     std::uint8_t* out_valid);

  /// rows[0, count) = the i < n with flags[i] != 0, in order (rows: capacity n). Returns count (synchronises).
  static std::int64_t select_rows(const Exec& exec, const std::uint8_t* flags, std::int64_t n, std::int64_t* rows);
};

}  // namespace slab::frame::kernels
