#pragma once
/// @file generate.hpp
/// @brief frame::generate's columns made on the device: one kernel per column writing a ColumnRecipe's values
/// (generate_hd.hpp, the host loop's arithmetic) in the batch layout. Entry points of generate.inl.

#include <cstdint>

#include "core/kernels/exec.hpp"
#include "slab/core/element_type.hpp"
#include "slab/frame/column_recipe.hpp"

namespace slab::frame::kernels {

using slab::kernels::Exec;

template <class B>
struct GenerateKernels {
  /**
   * @brief out[i] = recipe's value at global row first_row + i for i < n, as a `type` column of a batch: int64 and
   * timestamp 8-byte integers, float64 doubles (uniform), string int32 codes, boolean bytes. The caller checked
   * that the recipe fits the type (datasets.cpp). Asynchronous.
   */
  static void column(const Exec& exec, const ColumnRecipe& recipe, ElementType type, std::int64_t first_row,
                     std::int64_t n, void* out);
};

}  // namespace slab::frame::kernels
