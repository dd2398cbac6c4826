#pragma once
/// @file generate_hd.hpp
/// @brief A ColumnRecipe's value at global row r as SLAB_HD functions: the one source of frame::generate's host
/// loop (datasets.cpp) and of its device kernel (generate.inl), so both make the same bits.

#include <cstdint>

#include "core/kernels/counter_rng_hd.hpp"
#include "core/kernels/hd.hpp"
#include "slab/frame/column_recipe.hpp"

namespace slab::frame::kernels {

/// The value of an affine, hash_mod or multiply_mod recipe at row r (0 for uniform).
SLAB_HD_INLINE std::int64_t recipe_integer(const ColumnRecipe& c, std::uint64_t r) noexcept {
  switch (c.kind) {
    case ColumnRecipe::Kind::affine:
      return static_cast<std::int64_t>(static_cast<std::uint64_t>(c.offset) + static_cast<std::uint64_t>(c.step) * r);
    case ColumnRecipe::Kind::hash_mod:
      return static_cast<std::int64_t>(static_cast<std::uint64_t>(c.offset) +
                                       slab::kernels::counter_hash(c.stream, r) % c.modulus);
    case ColumnRecipe::Kind::multiply_mod:
      return static_cast<std::int64_t>((r * c.factor) % c.modulus);
    default:
      return 0;
  }
}

/// The value of a uniform recipe at row r.
SLAB_HD_INLINE double recipe_float(const ColumnRecipe& c, std::uint64_t r) noexcept {
  return c.low + (c.high - c.low) * slab::kernels::counter_uniform(c.stream, r);
}

}  // namespace slab::frame::kernels
