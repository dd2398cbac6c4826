#pragma once
// The composition of sort_perm.hpp: least-significant-word-first radix sort passes, each a stable sort of
// (word gathered through the current permutation, permutation) pairs over the word's significant bits
// (cub::DeviceRadixSort on the device, a stable comparison sort in the reference).
#include <thrust/for_each.h>
#include <thrust/gather.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sequence.h>

#include <utility>
#include <vector>

#include "core/kernels/hd.hpp"
#include "core/kernels/scratch.hpp"
#include "frame/kernels/sort_perm.hpp"

namespace slab::frame::kernels {
namespace detail {

struct GatherWord {
  const std::uint64_t* src;
  const std::int64_t* rows;
  std::uint64_t* dst;
  SLAB_HD void operator()(std::int64_t j) const {
    const std::int64_t r = rows[j];
    dst[j] = r >= 0 ? src[r] : 0;
  }
};

}  // namespace detail

template <class B>
void SortKernels<B>::permutation(const Exec& exec, const std::uint64_t* const* words, int nwords, const int* bits,
                                 std::int64_t n, std::int64_t* perm) {
  if (n <= 0) return;
  B b(exec);
  std::vector<int> passes;  // words that can change the order, least significant first
  for (int w = nwords - 1; w >= 0; --w) {
    const int e = bits ? bits[w] : 64;
    if (e > 0) passes.push_back(w);
  }
  if (passes.empty()) {
    thrust::sequence(b.policy(), perm, perm + n);
    return;
  }
  using slab::kernels::Scratch;
  Scratch<std::uint64_t, B> keys_in(b, n), keys_out(b, n);
  Scratch<std::int64_t, B> other(b, n);
  // Ping-pong the permutation so that the last pass writes `perm`.
  std::int64_t* cur = passes.size() % 2 ? other.get() : perm;
  std::int64_t* next = passes.size() % 2 ? perm : other.get();
  thrust::sequence(b.policy(), cur, cur + n);
  for (std::size_t p = 0; p < passes.size(); ++p) {
    const int w = passes[p];
    const int e = bits ? bits[w] : 64;
    const std::uint64_t* key = words[w];
    if (p > 0) {  // the first pass sorts the word itself (the permutation is still the identity)
      thrust::gather(b.policy(), cur, cur + n, words[w], keys_in.get());
      key = keys_in.get();
    }
    b.sort_pairs(key, keys_out.get(), cur, next, n, 0, e);
    std::swap(cur, next);
  }
}

template <class B>
void SortKernels<B>::gather_words(const Exec& exec, const std::uint64_t* const* words, int nwords,
                                  const std::int64_t* rows, std::int64_t n, std::uint64_t* const* out) {
  if (n <= 0) return;
  B b(exec);
  thrust::counting_iterator<std::int64_t> j(0);
  for (int w = 0; w < nwords; ++w) thrust::for_each(b.policy(), j, j + n, detail::GatherWord{words[w], rows, out[w]});
}

}  // namespace slab::frame::kernels
