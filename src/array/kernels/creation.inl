#pragma once
// The composition of creation.hpp: one functor call per element on the shared SLAB_HD generators and patterns.
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include "array/kernels/creation.hpp"
#include "core/kernels/counter_rng_hd.hpp"

namespace slab::kernels {
namespace detail {

struct RandomElement {
  std::uint64_t seed;
  double a, b;
  bool normal;
  BlockExtent e;
  std::int64_t global_cols;
  double* out;
  SLAB_HD void operator()(std::int64_t k) const {
    const std::int64_t i = k / e.cols, j = k % e.cols;
    const auto g = static_cast<std::uint64_t>((e.row0 + i) * global_cols + e.col0 + j);
    out[k] = normal ? counter_normal(seed, g, a, b) : counter_uniform_in(seed, g, a, b);
  }
};

template <class T>
struct PatternElement {
  CreationPattern p;
  BlockExtent e;
  T* out;
  SLAB_HD void operator()(std::int64_t k) const {
    const std::int64_t i = k / e.cols, j = k % e.cols;
    out[k] = p.at<T>(e.row0 + i, e.col0 + j);
  }
};

template <class B, class T>
void make_pattern(const Exec& exec, const CreationPattern& p, const BlockExtent& e, T* out) {
  const std::int64_t n = e.rows * e.cols;
  if (n <= 0) return;
  B b(exec);
  thrust::counting_iterator<std::int64_t> k(0);
  thrust::for_each(b.policy(), k, k + n, PatternElement<T>{p, e, out});
}

}  // namespace detail

template <class B>
void CreationKernels<B>::uniform(const Exec& exec, std::uint64_t seed, double low, double high, const BlockExtent& e,
                                 std::int64_t global_cols, double* out) {
  const std::int64_t n = e.rows * e.cols;
  if (n <= 0) return;
  B b(exec);
  thrust::counting_iterator<std::int64_t> k(0);
  thrust::for_each(b.policy(), k, k + n, detail::RandomElement{seed, low, high, false, e, global_cols, out});
}

template <class B>
void CreationKernels<B>::normal(const Exec& exec, std::uint64_t seed, double mean, double stddev, const BlockExtent& e,
                                std::int64_t global_cols, double* out) {
  const std::int64_t n = e.rows * e.cols;
  if (n <= 0) return;
  B b(exec);
  thrust::counting_iterator<std::int64_t> k(0);
  thrust::for_each(b.policy(), k, k + n, detail::RandomElement{seed, mean, stddev, true, e, global_cols, out});
}

template <class B>
void CreationKernels<B>::pattern(const Exec& exec, const CreationPattern& p, const BlockExtent& e, double* out) {
  detail::make_pattern<B>(exec, p, e, out);
}
template <class B>
void CreationKernels<B>::pattern(const Exec& exec, const CreationPattern& p, const BlockExtent& e, float* out) {
  detail::make_pattern<B>(exec, p, e, out);
}
template <class B>
void CreationKernels<B>::pattern(const Exec& exec, const CreationPattern& p, const BlockExtent& e, std::int64_t* out) {
  detail::make_pattern<B>(exec, p, e, out);
}
template <class B>
void CreationKernels<B>::pattern(const Exec& exec, const CreationPattern& p, const BlockExtent& e, std::int32_t* out) {
  detail::make_pattern<B>(exec, p, e, out);
}

}  // namespace slab::kernels
