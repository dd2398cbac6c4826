#pragma once
/// @file column_recipe.hpp
/// @brief How frame::generate (datasets.hpp) makes one column: a counter-based value of the global row index r
/// (slab/core/counter_rng.hpp), never of the rank count or the partitioning. Integer arithmetic and one exact
/// conversion, so a partition made on the device (a GPU, or the reference place) holds bitwise the host's values.
/// A plain aggregate: the device kernels read it as it is.

#include <cstdint>

namespace slab::frame {

struct ColumnRecipe {
  enum class Kind : std::uint8_t { affine, hash_mod, multiply_mod, uniform };
  Kind kind = Kind::affine;
  std::int64_t offset = 0;    ///< affine, hash_mod
  std::int64_t step = 1;      ///< affine
  std::uint64_t stream = 0;   ///< hash_mod, uniform: the counter stream s of h(s, r) and U(s, r)
  std::uint64_t modulus = 1;  ///< hash_mod, multiply_mod (> 0)
  std::uint64_t factor = 0;   ///< multiply_mod
  double low = 0, high = 1;   ///< uniform

  /// offset + step * r, wrapping (int64, timestamp): a row number, a regular time axis.
  static ColumnRecipe affine(std::int64_t offset, std::int64_t step) {
    return {.kind = Kind::affine, .offset = offset, .step = step};
  }
  /// offset + h(stream, r) mod modulus (int64, timestamp; string codes and booleans within their range): a key.
  static ColumnRecipe hash_mod(std::uint64_t stream, std::uint64_t modulus, std::int64_t offset = 0) {
    return {.kind = Kind::hash_mod, .offset = offset, .stream = stream, .modulus = modulus};
  }
  /// (r * factor mod 2^64) mod modulus (as hash_mod's types): keys that visit every value of a range.
  static ColumnRecipe multiply_mod(std::uint64_t factor, std::uint64_t modulus) {
    return {.kind = Kind::multiply_mod, .modulus = modulus, .factor = factor};
  }
  /// low + (high - low) * U(stream, r), U in [0, 1) (float64).
  static ColumnRecipe uniform(std::uint64_t stream, double low, double high) {
    return {.kind = Kind::uniform, .stream = stream, .low = low, .high = high};
  }
};

}  // namespace slab::frame
