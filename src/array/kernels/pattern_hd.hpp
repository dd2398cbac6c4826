#pragma once
/// @file pattern_hd.hpp
/// @brief The element formulas of full, arange, linspace and eye (slab/array/creation.hpp) as SLAB_HD code, the one
/// source of the host's fill loop (array.cpp) and the device's creation kernel (creation.inl), so that both make
/// the same bits: element (i, j) depends only on its global indices.

#include <cstdint>
#include <cstring>

#include "array/kernels/cast_hd.hpp"
#include "core/kernels/hd.hpp"

namespace slab::kernels {

/// Which formula a CreationPattern applies.
enum class PatternKind : std::uint8_t { constant, arange, linspace, eye };

/// One creation's formula and its arguments.
struct CreationPattern {
  PatternKind kind = PatternKind::constant;
  unsigned char value[8] = {};  ///< constant: the element's bytes (sizeof(T) of them)
  double start = 0, step = 0;   ///< arange, linspace: element i is start + i * step
  double stop = 0;              ///< linspace with endpoint: the last element, exactly
  std::int64_t num = 0;         ///< linspace: the element count
  bool endpoint = false;        ///< linspace
  std::int64_t diagonal = 0;    ///< eye: ones where j == i + diagonal

  template <class T>
  [[nodiscard]] static CreationPattern constant_of(T v) {
    static_assert(sizeof(T) <= sizeof(value));
    CreationPattern p;
    std::memcpy(p.value, &v, sizeof v);
    return p;
  }

  /// Element (i, j) (a 1-D array's element i is (i, 0)) as T; a value outside an integer T's range (or NaN) becomes
  /// its lowest, as astype (cast_hd.hpp).
  template <class T>
  [[nodiscard]] SLAB_HD_INLINE T at(std::int64_t i, std::int64_t j) const {
    switch (kind) {
      case PatternKind::constant: {
        T v;
        memcpy(&v, value, sizeof v);
        return v;
      }
      case PatternKind::arange:
        return cast_value<T>(start + static_cast<double>(i) * step);
      case PatternKind::linspace:
        if (endpoint && num > 1 && i == num - 1) return cast_value<T>(stop);
        return cast_value<T>(start + static_cast<double>(i) * step);
      case PatternKind::eye:
        return static_cast<T>(j == i + diagonal ? 1 : 0);
    }
    return T(0);
  }
};

}  // namespace slab::kernels
