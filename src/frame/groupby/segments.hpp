#pragma once
/// @file segments.hpp
/// @brief group_transform's per-group kernels: one group's rows (in the frame's row order) in, one result per row
/// out, with pandas' numerics (Kahan-compensated sums as pandas' group_cumsum/group_sum/group_mean, Welford
/// variance as group_var, holistic.hpp's median and quantile, rolling.hpp's row-window kernel). Not collective.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "slab/frame/batch.hpp"
#include "slab/frame/groupby_transform.hpp"

namespace slab::frame::detail {

/// A value column as the kernels read it: null like pandas (masked, NaN, string code -1).
struct ValueView {
  ElementType type = ElementType::float64;
  const std::byte* data = nullptr;
  const std::uint8_t* valid = nullptr;

  ValueView() = default;
  ValueView(const BatchView& b, std::size_t c) : type(b.type(c)), data(b.data(c)), valid(b.valid(c)) {}

  [[nodiscard]] bool null(std::size_t i) const noexcept {
    if (valid && !valid[i]) return true;
    if (type == ElementType::float64) return f(i) != f(i);
    if (type == ElementType::string) return reinterpret_cast<const std::int32_t*>(data)[i] < 0;
    return false;
  }
  [[nodiscard]] double f(std::size_t i) const noexcept { return reinterpret_cast<const double*>(data)[i]; }
  /// int64 / timestamp values, booleans as 0/1, string codes.
  [[nodiscard]] std::int64_t i64(std::size_t i) const noexcept {
    switch (type) {
      case ElementType::boolean:
        return reinterpret_cast<const std::uint8_t*>(data)[i] ? 1 : 0;
      case ElementType::string:
        return reinterpret_cast<const std::int32_t*>(data)[i];
      default:
        return reinterpret_cast<const std::int64_t*>(data)[i];
    }
  }
  /// The value as double (NaN when null).
  [[nodiscard]] double d(std::size_t i) const noexcept;
};

/// The result column being written: values of `type`, a mask (null for float64 results, whose nulls are NaN).
struct ResultColumn {
  ElementType type = ElementType::float64;
  std::byte* data = nullptr;
  std::uint8_t* valid = nullptr;

  void set_null(std::size_t i) noexcept;
  void set_f(std::size_t i, double v) noexcept { reinterpret_cast<double*>(data)[i] = v; }
  /// int64 / timestamp / boolean (0/1) / string code, by type.
  void set_i(std::size_t i, std::int64_t v) noexcept;
  /// Row j of `in` (same type as this column), null included.
  void copy(std::size_t i, const ValueView& in, std::size_t j) noexcept;
};

/**
 * @brief `what` over one group: rows[t] (t < m, in row order) index `in` (unused by cumcount and size); result t
 * goes to out at out0 + t. `scratch` is reused between groups. Not collective.
 */
void transform_segment(const GroupTransform& what, const ValueView& in, const std::int64_t* rows, std::size_t m,
                       ResultColumn& out, std::size_t out0, std::vector<double>& scratch);

}  // namespace slab::frame::detail
