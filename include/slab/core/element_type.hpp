#pragma once
/// @file element_type.hpp
/// @brief slab::ElementType: the one list of element types, used by the comm layer (what a buffer holds), io
/// (what an HDF5 dataset holds) and frames (a column's type). Nothing here is collective.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace slab {

/**
 * @brief An element type. The first five are a frame's column types and keep their values (they are written
 * into every batch header): timestamp = int64 nanoseconds since 1970-01-01 UTC; string = int32 codes into a
 * sorted dictionary (-1 = null); boolean = one byte 0/1. The others are the physical types of buffers and files;
 * `bytes` is an opaque trivially copyable byte (comm moves structs as bytes).
 */
enum class ElementType : std::uint8_t {
  int64 = 0,
  float64 = 1,
  boolean = 2,
  timestamp = 3,
  string = 4,
  float32 = 5,
  int32 = 6,
  uint64 = 7,
  int8 = 8,
  uint8 = 9,
  uint32 = 10,
  bytes = 11,
};

/// "int64", "float64", "bool", "datetime64[ns]", "string", "float32", "int32", "uint64", "int8", "uint8",
/// "uint32", "bytes" (NumPy's and pandas' names).
[[nodiscard]] const char* to_string(ElementType type) noexcept;

/// Bytes per element: 8 (int64, float64, timestamp, uint64), 4 (float32, int32, uint32, string codes), 1.
[[nodiscard]] constexpr std::size_t element_size(ElementType type) noexcept {
  switch (type) {
    case ElementType::int64:
    case ElementType::float64:
    case ElementType::timestamp:
    case ElementType::uint64:
      return 8;
    case ElementType::float32:
    case ElementType::int32:
    case ElementType::uint32:
    case ElementType::string:
      return 4;
    case ElementType::boolean:
    case ElementType::int8:
    case ElementType::uint8:
    case ElementType::bytes:
      return 1;
  }
  return 1;
}

/// The element type of a C++ type: `value` and whether it is a native numeric type (`native`; false means
/// `bytes`, moved byte-wise).
template <class T>
struct element_type_of {
  static constexpr bool native = false;
  static constexpr ElementType value = ElementType::bytes;
};
#define SLAB_ELEMENT_TYPE_OF(T, E)                       \
  template <>                                            \
  struct element_type_of<T> {                            \
    static constexpr bool native = true;                 \
    static constexpr ElementType value = ElementType::E; \
  }
SLAB_ELEMENT_TYPE_OF(char, int8);
SLAB_ELEMENT_TYPE_OF(std::byte, uint8);
SLAB_ELEMENT_TYPE_OF(int, int32);
SLAB_ELEMENT_TYPE_OF(unsigned, uint32);
SLAB_ELEMENT_TYPE_OF(std::int64_t, int64);
SLAB_ELEMENT_TYPE_OF(std::uint64_t, uint64);
SLAB_ELEMENT_TYPE_OF(float, float32);
SLAB_ELEMENT_TYPE_OF(double, float64);
#undef SLAB_ELEMENT_TYPE_OF

/// The ElementType of T (float32, float64, int64, ...; bytes for anything else).
template <class T>
inline constexpr ElementType element_type_v = element_type_of<T>::value;

}  // namespace slab
