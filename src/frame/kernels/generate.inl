#pragma once
// The composition of generate.hpp: one Thrust for_each over the rows per column.
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include "frame/kernels/generate.hpp"
#include "frame/kernels/generate_hd.hpp"

namespace slab::frame::kernels {
namespace detail {

template <class T>
struct RecipeIntegers {
  ColumnRecipe recipe;
  std::uint64_t first;
  T* out;
  SLAB_HD void operator()(std::int64_t i) const {
    out[i] = static_cast<T>(recipe_integer(recipe, first + static_cast<std::uint64_t>(i)));
  }
};
struct RecipeFloats {
  ColumnRecipe recipe;
  std::uint64_t first;
  double* out;
  SLAB_HD void operator()(std::int64_t i) const { out[i] = recipe_float(recipe, first + static_cast<std::uint64_t>(i)); }
};

}  // namespace detail

template <class B>
void GenerateKernels<B>::column(const Exec& exec, const ColumnRecipe& recipe, ElementType type, std::int64_t first_row,
                                std::int64_t n, void* out) {
  if (n <= 0) return;
  B b(exec);
  thrust::counting_iterator<std::int64_t> i(0);
  const auto first = static_cast<std::uint64_t>(first_row);
  switch (type) {
    case ElementType::float64:
      thrust::for_each(b.policy(), i, i + n, detail::RecipeFloats{recipe, first, static_cast<double*>(out)});
      break;
    case ElementType::string:
      thrust::for_each(b.policy(), i, i + n,
                       detail::RecipeIntegers<std::int32_t>{recipe, first, static_cast<std::int32_t*>(out)});
      break;
    case ElementType::boolean:
      thrust::for_each(b.policy(), i, i + n,
                       detail::RecipeIntegers<std::uint8_t>{recipe, first, static_cast<std::uint8_t*>(out)});
      break;
    default:  // int64, timestamp
      thrust::for_each(b.policy(), i, i + n,
                       detail::RecipeIntegers<std::int64_t>{recipe, first, static_cast<std::int64_t*>(out)});
      break;
  }
}

}  // namespace slab::frame::kernels
