#pragma once
// The composition of layout.hpp: one functor call per element. (A shared-memory tiled transpose is the device's
// to add behind the same entry point; the result is the same bits.)
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include "array/kernels/layout.hpp"
#include "core/kernels/hd.hpp"
#include "core/kernels/scratch.hpp"

namespace slab::kernels {
namespace detail {

template <class T>
struct TransposeElement {
  const T* in;
  std::int64_t rows, cols;
  T* out;
  // One output element per call, so that writes are contiguous (reads are strided).
  SLAB_HD void operator()(std::int64_t k) const {
    const std::int64_t j = k / rows, i = k % rows;
    out[k] = in[i * cols + j];
  }
};

template <class T>
struct CopyElement {
  const T* src;
  std::int64_t src_ld, cols;
  T* dst;
  std::int64_t dst_ld;
  SLAB_HD void operator()(std::int64_t k) const {
    const std::int64_t i = k / cols, j = k % cols;
    dst[i * dst_ld + j] = src[i * src_ld + j];
  }
};

struct NonZero {
  SLAB_HD bool operator()(std::int64_t v) const { return v != 0; }
};

/// Element e of the selection: element e % unit of item items[e / unit].
template <class T>
struct SelectElement {
  const T* in;
  const std::int64_t* items;
  std::int64_t unit;
  T* out;
  SLAB_HD void operator()(std::int64_t e) const { out[e] = in[items[e / unit] * unit + e % unit]; }
};

}  // namespace detail

template <class B, class T>
void LayoutKernels<B, T>::transpose(const Exec& exec, const T* in, std::int64_t rows, std::int64_t cols, T* out) {
  if (rows <= 0 || cols <= 0) return;
  B b(exec);
  thrust::counting_iterator<std::int64_t> k(0);
  thrust::for_each(b.policy(), k, k + rows * cols, detail::TransposeElement<T>{in, rows, cols, out});
}

template <class B, class T>
void LayoutKernels<B, T>::copy_2d(const Exec& exec, const T* src, std::int64_t src_ld, std::int64_t rows,
                                  std::int64_t cols, T* dst, std::int64_t dst_ld) {
  if (rows <= 0 || cols <= 0) return;
  B b(exec);
  thrust::counting_iterator<std::int64_t> k(0);
  thrust::for_each(b.policy(), k, k + rows * cols, detail::CopyElement<T>{src, src_ld, cols, dst, dst_ld});
}

template <class B, class T>
std::int64_t LayoutKernels<B, T>::count_selected(const Exec& exec, const std::int64_t* mask, std::int64_t items) {
  if (items <= 0) return 0;
  B b(exec);
  return thrust::count_if(b.policy(), mask, mask + items, detail::NonZero{});
}

template <class B, class T>
void LayoutKernels<B, T>::select(const Exec& exec, const T* in, const std::int64_t* mask, std::int64_t items,
                                 std::int64_t unit, T* out) {
  if (items <= 0 || unit <= 0) return;
  B b(exec);
  Scratch<std::int64_t, B> picked(b, items);
  thrust::counting_iterator<std::int64_t> t(0);
  const std::int64_t k =
      thrust::copy_if(b.policy(), t, t + items, mask, picked.get(), detail::NonZero{}) - picked.get();
  thrust::counting_iterator<std::int64_t> e(0);
  thrust::for_each(b.policy(), e, e + k * unit, detail::SelectElement<T>{in, picked.get(), unit, out});
  b.sync();
}

}  // namespace slab::kernels
