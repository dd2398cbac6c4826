#pragma once
// The composition of layout.hpp: one functor call per element. (A shared-memory tiled transpose is the device's
// to add behind the same entry point; the result is the same bits.)
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include "array/kernels/layout.hpp"
#include "core/kernels/hd.hpp"

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

}  // namespace slab::kernels
