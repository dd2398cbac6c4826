#pragma once
// The composition of resample.hpp: the bounds from the compacted non-null times (reductions that need no order
// beyond the compaction's), the bins elementwise, and each filled bin's row by binary search among groupby's
// bins.
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>

#include <cstdint>
#include <cstring>
#include <limits>

#include "core/kernels/scratch.hpp"
#include "frame/kernels/resample.hpp"
#include "frame/kernels/resample_hd.hpp"
#include "slab/core/element_type.hpp"
#include "slab/core/error.hpp"

namespace slab::frame::kernels {
namespace detail {

struct ValidFlag {
  SLAB_HD bool operator()(std::uint8_t v) const { return v != 0; }
};

/// Where a time is below the one before it (i >= 1).
struct Descent {
  const std::int64_t* t;
  SLAB_HD bool operator()(std::int64_t i) const { return t[i] < t[i - 1]; }
};

struct BinOf {
  const std::int64_t* t;
  const std::uint8_t* valid;
  std::int64_t origin, freq;
  std::int64_t* out;
  SLAB_HD void operator()(std::int64_t i) const {
    out[i] = valid && !valid[i] ? t[i] : resample_bin(t[i], origin, freq);
  }
};

struct BinRow {
  const std::int64_t* keys;
  std::int64_t n, lo, freq;
  std::int64_t* out_keys;
  std::int64_t* rows;
  SLAB_HD void operator()(std::int64_t j) const {
    const std::int64_t bin = resample_nth_bin(lo, j, freq);
    std::int64_t a = 0, b = n;  // the first key >= bin
    while (a < b) {
      const std::int64_t mid = a + (b - a) / 2;
      if (keys[mid] < bin)
        a = mid + 1;
      else
        b = mid;
    }
    out_keys[j] = bin;
    rows[j] = a < n && keys[a] == bin ? a : -1;
  }
};

struct HasRow {
  SLAB_HD bool operator()(std::int64_t r) const { return r >= 0; }
};

struct FillBin {
  const unsigned char* in;
  const std::uint8_t* in_valid;
  const std::int64_t* rows;
  std::uint64_t empty;
  bool empty_valid;
  int size;
  unsigned char* out;
  std::uint8_t* out_valid;
  SLAB_HD void operator()(std::int64_t j) const {
    const std::int64_t r = rows[j];
    unsigned char* dst = out + j * size;
    if (r >= 0) {
      for (int k = 0; k < size; ++k) dst[k] = in[r * size + k];
      if (out_valid) out_valid[j] = in_valid ? in_valid[r] : 1;
    } else {
      for (int k = 0; k < size; ++k) dst[k] = static_cast<unsigned char>(empty >> (8 * k));
      if (out_valid) out_valid[j] = empty_valid ? 1 : 0;
    }
  }
};

}  // namespace detail

template <class B>
TimeBounds ResampleKernels<B>::bounds(const Exec& exec, const ColumnView& col, std::int64_t n) {
  SLAB_EXPECTS(col.type == ElementType::timestamp || col.type == ElementType::int64, TypeError,
               "resample bounds: the column is not a timestamp");
  TimeBounds out;
  if (n <= 0) return out;
  B b(exec);
  const auto* t = static_cast<const std::int64_t*>(col.data);
  slab::kernels::Scratch<std::int64_t, B> kept(b, col.valid ? n : 0);
  std::int64_t m = n;
  if (col.valid) {
    std::int64_t* end = thrust::copy_if(b.policy(), t, t + n, col.valid, kept.get(), detail::ValidFlag{});
    m = end - kept.get();
    t = kept.get();
    out.nulls = m < n;
  }
  if (m == 0) return out;
  out.any = true;
  b.to_host(&out.first, t, sizeof out.first);
  b.to_host(&out.last, t + m - 1, sizeof out.last);
  out.min =
      thrust::reduce(b.policy(), t, t + m, std::numeric_limits<std::int64_t>::max(), thrust::minimum<std::int64_t>());
  thrust::counting_iterator<std::int64_t> i(1);
  out.sorted = thrust::count_if(b.policy(), i, i + (m - 1), detail::Descent{t}) == 0;
  return out;
}

template <class B>
void ResampleKernels<B>::bins(const Exec& exec, const ColumnView& col, std::int64_t n, std::int64_t origin,
                              std::int64_t freq, std::int64_t* out) {
  SLAB_EXPECTS(freq > 0, InvalidArgument, "resample bins: the frequency must be positive");
  if (n <= 0) return;
  B b(exec);
  thrust::counting_iterator<std::int64_t> i(0);
  thrust::for_each(b.policy(), i, i + n,
                   detail::BinOf{static_cast<const std::int64_t*>(col.data), col.valid, origin, freq, out});
}

template <class B>
std::int64_t ResampleKernels<B>::bin_rows(const Exec& exec, const std::int64_t* keys, std::int64_t n, std::int64_t lo,
                                          std::int64_t m, std::int64_t freq, std::int64_t* out_keys,
                                          std::int64_t* rows) {
  if (m <= 0) return 0;
  B b(exec);
  thrust::counting_iterator<std::int64_t> j(0);
  thrust::for_each(b.policy(), j, j + m, detail::BinRow{keys, n, lo, freq, out_keys, rows});
  return thrust::count_if(b.policy(), rows, rows + m, detail::HasRow{});
}

template <class B>
void ResampleKernels<B>::fill(const Exec& exec, const ColumnView& in, const std::int64_t* rows, std::int64_t m,
                              std::uint64_t empty, bool empty_valid, void* out, std::uint8_t* out_valid) {
  if (m <= 0) return;
  B b(exec);
  thrust::counting_iterator<std::int64_t> j(0);
  thrust::for_each(
      b.policy(), j, j + m,
      detail::FillBin{static_cast<const unsigned char*>(in.data), in.valid, rows, empty, empty_valid,
                      static_cast<int>(element_size(in.type)), static_cast<unsigned char*>(out), out_valid});
}

}  // namespace slab::frame::kernels
