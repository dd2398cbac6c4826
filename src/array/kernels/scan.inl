#pragma once
// The composition of scan.hpp: one inclusive scan of the values cast to the sum type (of floats in
// ordered_scan.inl's fixed order), and one transform.
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/transform.h>

#include <type_traits>

#include "array/kernels/scan.hpp"
#include "core/kernels/ordered_scan.inl"
#include "core/kernels/hd.hpp"

namespace slab::kernels {
namespace detail {

/// a + b as the host's cumsum adds: integers wrap (two's complement) instead of overflowing.
template <class S>
struct ScanPlus {
  SLAB_HD S operator()(S a, S b) const {
    if constexpr (std::is_integral_v<S>)
      return static_cast<S>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
    else
      return a + b;
  }
};
template <class T, class S>
struct CastTo {
  SLAB_HD S operator()(T v) const { return static_cast<S>(v); }
};
template <class S>
struct AddOffset {
  S offset;
  SLAB_HD S operator()(S p) const { return ScanPlus<S>{}(offset, p); }
};

}  // namespace detail

template <class B, class T, class S>
void ScanKernels<B, T, S>::prefix(const Exec& exec, const T* x, std::int64_t n, S* out) {
  if (n <= 0) return;
  B b(exec);
  auto in = thrust::make_transform_iterator(x, detail::CastTo<T, S>{});
  if constexpr (std::is_floating_point_v<S>)  // a fixed order: the same bits every run (ordered_scan.inl)
    slab::kernels::ordered_inclusive_scan(b, in, n, out, detail::ScanPlus<S>{});
  else  // exact: any order gives the bits
    thrust::inclusive_scan(b.policy(), in, in + n, out, detail::ScanPlus<S>{});
}

template <class B, class T, class S>
void ScanKernels<B, T, S>::add_offset(const Exec& exec, const S* p, std::int64_t n, S offset, S* out) {
  if (n <= 0) return;
  B b(exec);
  thrust::transform(b.policy(), p, p + n, out, detail::AddOffset<S>{offset});
}

}  // namespace slab::kernels
