#pragma once
// The composition of gather.hpp: a typed gather per element size and Thrust's copy_if over row indices
// (cub::DeviceSelect underneath on the device).
#include <thrust/copy.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include "core/kernels/hd.hpp"
#include "frame/kernels/gather.hpp"
#include "slab/core/error.hpp"

namespace slab::frame::kernels {
namespace detail {

template <class T>
struct GatherValues {
  const T* in;
  const std::uint8_t* in_valid;
  const std::int64_t* rows;
  T* out;
  std::uint8_t* out_valid;
  T null_value;
  SLAB_HD void operator()(std::int64_t i) const {
    const std::int64_t r = rows[i];
    out[i] = r >= 0 ? in[r] : null_value;
    if (out_valid) out_valid[i] = r < 0 ? 0 : (in_valid ? in_valid[r] : 1);
  }
};

struct FlagSet {
  SLAB_HD bool operator()(std::uint8_t f) const { return f != 0; }
};

}  // namespace detail

template <class B>
void GatherKernels<B>::column(const Exec& exec, const ColumnView& in, const std::int64_t* rows, std::int64_t n,
                              void* out, std::uint8_t* out_valid) {
  if (n <= 0) return;
  B b(exec);
  thrust::counting_iterator<std::int64_t> i(0);
  switch (element_size(in.type)) {
    case 8:
      thrust::for_each(b.policy(), i, i + n,
                       detail::GatherValues<std::uint64_t>{static_cast<const std::uint64_t*>(in.data), in.valid, rows,
                                                           static_cast<std::uint64_t*>(out), out_valid, 0});
      break;
    case 4:
      thrust::for_each(b.policy(), i, i + n,
                       detail::GatherValues<std::int32_t>{static_cast<const std::int32_t*>(in.data), in.valid, rows,
                                                          static_cast<std::int32_t*>(out), out_valid, -1});
      break;
    default:
      thrust::for_each(b.policy(), i, i + n,
                       detail::GatherValues<std::uint8_t>{static_cast<const std::uint8_t*>(in.data), in.valid, rows,
                                                          static_cast<std::uint8_t*>(out), out_valid, 0});
      break;
  }
}

template <class B>
std::int64_t GatherKernels<B>::select_rows(const Exec& exec, const std::uint8_t* flags, std::int64_t n,
                                           std::int64_t* rows) {
  if (n <= 0) return 0;
  B b(exec);
  thrust::counting_iterator<std::int64_t> i(0);
  std::int64_t* end = thrust::copy_if(b.policy(), i, i + n, flags, rows, detail::FlagSet{});
  return end - rows;
}

}  // namespace slab::frame::kernels
